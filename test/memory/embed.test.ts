import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LlmError } from '../../src/llm/errors.js';
import { cosine, OfflineEmbedder, RemoteEmbedder } from '../../src/memory/embed.js';

const norm = (v: Float32Array): number => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

async function sims(e: OfflineEmbedder, anchor: string, others: string[]): Promise<number[]> {
  const [a, ...rest] = await e.embed([anchor, ...others]);
  return rest.map((v) => cosine(a!, v));
}

describe('OfflineEmbedder', () => {
  const e = new OfflineEmbedder();

  it('has a stable id and 192 dimensions by default, configurable', async () => {
    expect(e.id).toBe('offline-hash-192');
    expect(e.dimensions).toBe(192);
    const small = new OfflineEmbedder({ dimensions: 64 });
    expect(small.id).toBe('offline-hash-64');
    const [v] = await small.embed(['hello world']);
    expect(v).toHaveLength(64);
    expect(() => new OfflineEmbedder({ dimensions: 3 })).toThrow(
      /dimensions must be an integer of at least 8/,
    );
  });

  it('is deterministic and L2-normalised', async () => {
    const [a, b] = await e.embed(['The user prefers dark mode', 'The user prefers dark mode']);
    expect(Array.from(a!)).toEqual(Array.from(b!));
    expect(a).toBeInstanceOf(Float32Array);
    expect(norm(a!)).toBeCloseTo(1, 5);
    const [fresh] = await new OfflineEmbedder().embed(['The user prefers dark mode']);
    expect(Array.from(fresh!)).toEqual(Array.from(a!));
  });

  it('normalises whitespace and case', async () => {
    const [a, b] = await e.embed(['Dark   MODE\n please', 'dark mode please']);
    expect(cosine(a!, b!)).toBeCloseTo(1, 5);
  });

  it('gives an empty text a zero vector without failing', async () => {
    const [v] = await e.embed(['']);
    expect(norm(v!)).toBe(0);
    expect(cosine(v!, v!)).toBe(0);
  });

  it('puts English paraphrases closer than unrelated text', async () => {
    const [para, unrelated] = await sims(e, 'The user prefers dark mode in the editor', [
      'User likes a dark theme for the editor',
      'The deployment runs on Kubernetes every Friday',
    ]);
    expect(para!).toBeGreaterThan(unrelated! + 0.3);
    const [p2, u2] = await sims(e, 'Always run the tests before committing', [
      'Run tests before every commit, always',
      'My cat is called Mochi',
    ]);
    expect(p2!).toBeGreaterThan(u2! + 0.3);
  });

  it('puts Chinese paraphrases closer than unrelated text', async () => {
    const [para, unrelated] = await sims(e, '用户喜欢深色主题', ['用户偏好深色的主题', '明天下午三点开会']);
    expect(para!).toBeGreaterThan(unrelated! + 0.3);
    const [p2, u2] = await sims(e, '项目使用 PostgreSQL 数据库', [
      '这个项目的数据库是 PostgreSQL',
      '我每天早上跑步',
    ]);
    expect(p2!).toBeGreaterThan(u2! + 0.3);
  });
});

describe('cosine', () => {
  it('computes the cosine and refuses vectors of different lengths', () => {
    expect(cosine(Float32Array.from([1, 0]), Float32Array.from([0, 1]))).toBe(0);
    expect(cosine(Float32Array.from([1, 2]), Float32Array.from([2, 4]))).toBeCloseTo(1, 6);
    expect(cosine(Float32Array.from([1, 0]), Float32Array.from([-1, 0]))).toBeCloseTo(-1, 6);
    expect(() => cosine(new Float32Array(2), new Float32Array(3))).toThrow(/differ in length \(2 vs 3\)/);
  });
});

interface Seen {
  path: string;
  auth: string | undefined;
  body: { model?: string; input?: string[] };
}

type Behaviour = 'ok' | 'unauthorized' | 'short' | 'garbage' | 'hang' | 'shuffled';

describe('RemoteEmbedder', () => {
  let server: Server;
  let baseUrl = '';
  const seen: Seen[] = [];
  let behaviour: Behaviour = 'ok';
  const KEY = 'sk-very-secret-key-1234';

  const vectorFor = (text: string): number[] => [text.length, 1, 2];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Seen['body'];
        seen.push({ path: req.url ?? '', auth: req.headers.authorization, body });
        const send = (status: number, payload: unknown): void => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(payload));
        };
        const input = body.input ?? [];
        if (behaviour === 'hang') return;
        if (behaviour === 'unauthorized') {
          send(401, { error: { message: `Incorrect API key provided: ${req.headers.authorization}` } });
        } else if (behaviour === 'garbage') {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end('<html>not json</html>');
        } else if (behaviour === 'short') {
          send(200, { data: [{ index: 0, embedding: [1, 2, 3] }] });
        } else {
          const data = input.map((t, index) => ({ object: 'embedding', index, embedding: vectorFor(t) }));
          if (behaviour === 'shuffled') data.reverse();
          send(200, { object: 'list', data, model: body.model });
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  beforeEach(() => {
    seen.length = 0;
    behaviour = 'ok';
  });

  it('posts batches to /embeddings with the bearer key and learns the dimensions', async () => {
    const e = new RemoteEmbedder({
      baseUrl: `${baseUrl}/`,
      model: 'nomic-embed-text',
      apiKey: KEY,
      batchSize: 2,
    });
    expect(e.id).toBe('openai:nomic-embed-text');
    expect(e.dimensions).toBe(0);
    const texts = ['a', 'bb', 'ccc', 'dddd', 'eeeee'];
    const vectors = await e.embed(texts);
    expect(vectors.map((v) => Array.from(v))).toEqual(texts.map(vectorFor));
    expect(seen.map((s) => s.body.input)).toEqual([['a', 'bb'], ['ccc', 'dddd'], ['eeeee']]);
    expect(seen.every((s) => s.path === '/v1/embeddings')).toBe(true);
    expect(seen.every((s) => s.auth === `Bearer ${KEY}`)).toBe(true);
    expect(seen[0]!.body.model).toBe('nomic-embed-text');
    expect(e.dimensions).toBe(3);
  });

  it('sends no request for no texts, and no auth header without a key', async () => {
    const e = new RemoteEmbedder({ baseUrl, model: 'm' });
    expect(await e.embed([])).toEqual([]);
    expect(seen).toHaveLength(0);
    await e.embed(['x']);
    expect(seen[0]!.auth).toBeUndefined();
  });

  it('orders vectors by their index', async () => {
    behaviour = 'shuffled';
    const e = new RemoteEmbedder({ baseUrl, model: 'm' });
    const vectors = await e.embed(['a', 'bbb']);
    expect(vectors.map((v) => v[0])).toEqual([1, 3]);
  });

  it('reports an auth failure without leaking the key', async () => {
    behaviour = 'unauthorized';
    const e = new RemoteEmbedder({ baseUrl, model: 'm', apiKey: KEY });
    const err = await e.embed(['x']).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(LlmError);
    const { kind, message } = err as LlmError;
    expect(kind).toBe('auth');
    expect(message).toContain('HTTP 401');
    expect(message).toContain('Incorrect API key');
    expect(message).not.toContain(KEY);
  });

  it('rejects a response with the wrong count, bad JSON or the wrong dimensions', async () => {
    behaviour = 'short';
    const e = new RemoteEmbedder({ baseUrl, model: 'm' });
    await expect(e.embed(['a', 'b'])).rejects.toThrow(/1 vectors for 2 inputs/);
    behaviour = 'garbage';
    await expect(e.embed(['a'])).rejects.toThrow(/not JSON/);
    behaviour = 'ok';
    const fixed = new RemoteEmbedder({ baseUrl, model: 'm', dimensions: 768 });
    expect(fixed.dimensions).toBe(768);
    await expect(fixed.embed(['a'])).rejects.toThrow(/vector of length 3, expected 768/);
  });

  it('times out a silent server', async () => {
    behaviour = 'hang';
    const e = new RemoteEmbedder({ baseUrl, model: 'm', timeoutMs: 100 });
    const err = await e.embed(['a']).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).kind).toBe('timeout');
  });

  it('validates its options', () => {
    expect(() => new RemoteEmbedder({ baseUrl, model: ' ' })).toThrow(/model must not be empty/);
    expect(() => new RemoteEmbedder({ baseUrl, model: 'm', batchSize: 0 })).toThrow(/batchSize/);
  });
});
