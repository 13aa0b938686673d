import { describe, expect, it, vi } from 'vitest';
import { LlmError } from '../../src/llm/errors.js';
import type { Delta } from '../../src/llm/types.js';
import { collect } from '../support/collect.js';
import { reply } from '../support/script.js';
import { failure, hi, pooledSockets, textOf, useOpenAIServer } from './provider-helpers.js';
import { startRawServer } from './raw-server.js';

type Json = Record<string, unknown>;

const t = useOpenAIServer();
const provider = t.provider;

describe('OpenAICompatibleProvider: errors', () => {
  it('turns a 429 into a retryable http error with retry-after', async () => {
    t.server.script(reply().error(429, { message: 'Rate limit reached', retryAfter: 2 }));
    const err = await failure(collect(provider().stream(hi)));
    expect(err).toMatchObject({ kind: 'http', status: 429, retryAfterMs: 2000, profile: 'main_model' });
    expect(err.retryable).toBe(true);
    expect(err.message).toContain('429');
    expect(err.message).toContain('Rate limit reached');
  });

  it('reads retry-after-ms too', async () => {
    t.server.script(reply().error(503, { retryAfterMs: 150 }));
    const err = await failure(collect(provider().stream(hi)));
    expect(err).toMatchObject({ kind: 'http', status: 503, retryAfterMs: 150 });
  });

  it('turns 401 into an auth error that never shows the key', async () => {
    t.server.script(reply().error(401, { message: 'Incorrect API key provided: sk-secret-999' }));
    const err = await failure(collect(provider({ apiKey: 'sk-secret-999' }).stream(hi)));
    expect(err.kind).toBe('auth');
    expect(err.status).toBe(401);
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('Incorrect API key provided');
    expect(err.message).not.toContain('sk-secret-999');
  });

  it('surfaces the scripted server complaint when no reply is left', async () => {
    const err = await failure(collect(provider().stream(hi)));
    expect(err).toMatchObject({ kind: 'http', status: 500 });
    expect(err.message).toContain('no scripted reply left');
  });

  it('turns a cut stream into a network error', async () => {
    t.server.script(reply().text('partial answer that will be cut').cutAfter(3));
    const seen: Delta[] = [];
    const err = await failure(
      (async () => {
        for await (const d of provider().stream(hi)) seen.push(d);
      })(),
    );
    expect(err.kind).toBe('network');
    expect(err.retryable).toBe(true);
    expect(textOf(seen, 'text').length).toBeGreaterThan(0);
  });

  it('turns a refused connection into a network error', async () => {
    const raw = await startRawServer((_req, res) => res.end());
    await raw.close();
    const err = await failure(collect(provider({}, `${raw.url}/v1`).stream(hi)));
    expect(err.kind).toBe('network');
    expect(err.message).toMatch(/network error calling/);
  });

  it('aborts promptly while waiting for headers', async () => {
    t.server.script(reply().hang());
    const ctrl = new AbortController();
    // Abort once the server has the request (an explicit signal, not a timer).
    const arrived = t.server.waitForRequests(1).then(() => ctrl.abort());
    const err = await failure(collect(provider().stream(hi, ctrl.signal)));
    await arrived;
    expect(err.kind).toBe('aborted');
    expect(err.retryable).toBe(false);
  });

  it('aborts promptly mid-stream, rethrowing an LlmError abort reason as is', async () => {
    t.server.script(reply().text('some text then silence').hangAfter(2));
    const ctrl = new AbortController();
    const reason = new LlmError('timeout', 'idle for too long');
    const seen: Delta[] = [];
    const err = await failure(
      (async () => {
        for await (const d of provider().stream(hi, ctrl.signal)) {
          seen.push(d);
          ctrl.abort(reason); // while the stream is open: the next read sees the abort
        }
      })(),
    );
    expect(err).toBe(reason);
    expect(seen.length).toBeGreaterThan(0);
  });

  it('refuses to start with an already aborted signal', async () => {
    const err = await failure(collect(provider().stream(hi, AbortSignal.abort())));
    expect(err.kind).toBe('aborted');
    expect(t.server.requests).toHaveLength(0);
  });
});

describe('OpenAICompatibleProvider: unusual servers', () => {
  const chunk = (delta: Json, finish: string | null = null): string =>
    `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

  it('treats a stream that ends without finish or [DONE] as a network error', async () => {
    const raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(chunk({ content: 'half' }));
    });
    try {
      const err = await failure(collect(provider({}, raw.url).stream(hi)));
      expect(err.kind).toBe('network');
      expect(err.message).toMatch(/ended before the model finished/);
    } finally {
      await raw.close();
    }
  });

  it('reuses one connection for consecutive calls, even when the body ends a moment after [DONE]', async () => {
    const raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`${chunk({ content: 'ok' })}${chunk({}, 'stop')}data: [DONE]\n\n`);
      setTimeout(() => res.end(), 20);
    });
    try {
      for (let i = 0; i < 2; i++) {
        expect(textOf(await collect(provider({}, raw.url).stream(hi)), 'text')).toBe('ok');
        await vi.waitFor(async () => expect(await pooledSockets(raw.url)).toBe(1));
      }
      expect(raw.connections()).toBe(1);
    } finally {
      await raw.close();
    }
  });

  it('accepts a stream with a finish reason but no [DONE]', async () => {
    const raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(chunk({ content: 'complete' }) + chunk({}, 'stop'));
    });
    try {
      const deltas = await collect(provider({}, raw.url).stream(hi));
      expect(textOf(deltas, 'text')).toBe('complete');
      expect(deltas.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
    } finally {
      await raw.close();
    }
  });

  it('turns an error object inside the stream into an http error', async () => {
    const raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(`${chunk({ content: 'x' })}data: {"error":{"message":"upstream overloaded","code":502}}\n\n`);
    });
    try {
      const err = await failure(collect(provider({}, raw.url).stream(hi)));
      expect(err).toMatchObject({ kind: 'http', status: 502 });
      expect(err.message).toContain('upstream overloaded');
    } finally {
      await raw.close();
    }
  });

  it('turns a chunk that is not JSON into an invalid-response error', async () => {
    const raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {not json\n\n');
    });
    try {
      const err = await failure(collect(provider({}, raw.url).stream(hi)));
      expect(err.kind).toBe('invalid-response');
      expect(err.message).toContain('{not json');
    } finally {
      await raw.close();
    }
  });

  it('reads one JSON completion from a server that ignores stream: true', async () => {
    const raw = await startRawServer((_req, res) => {
      const body = {
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: 'whole',
              tool_calls: [{ id: 't1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 5, completion_tokens: 6 },
      };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    });
    try {
      const deltas = await collect(provider({}, raw.url).stream(hi));
      expect(deltas).toEqual([
        { type: 'text', text: 'whole' },
        { type: 'tool-call', call: { type: 'tool-call', id: 't1', name: 'f', args: { a: 1 } } },
        { type: 'usage', usage: { inputTokens: 5, outputTokens: 6 } },
        { type: 'finish', reason: 'tool-calls' },
      ]);
    } finally {
      await raw.close();
    }
  });
});
