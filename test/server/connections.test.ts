/**
 * What `tea serve` does with clients that send too much, too slowly or too deep:
 * raw sockets (node:net) against the real server on a loopback port.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/server/json-depth.js';
import { startTestServer, type TestServer } from './helpers.js';
import { connect } from './raw-http.js';

const LIMIT = 64 * 1024;
let t: TestServer;
let port: number;

beforeAll(async () => {
  t = await startTestServer({
    deps: { bodyLimitBytes: LIMIT, requestTimeoutMs: 400, headersTimeoutMs: 400 },
  });
  port = t.server.port;
});
afterAll(() => t.close());

const head = (lines: string[]) => `${[...lines, `host: 127.0.0.1:${port}`].join('\r\n')}\r\n\r\n`;

function errorOf(body: string): { message: string; type: string; code: string } {
  return (JSON.parse(body) as { error: { message: string; type: string; code: string } }).error;
}

describe('slow clients', () => {
  it('answers a body that stops arriving with 408 and closes the connection', async () => {
    const c = await connect(port);
    await c.write(
      head(['POST /v1/chat/completions HTTP/1.1', 'content-type: application/json', 'content-length: 100']),
    );
    await c.write('{"messages": [');
    const res = await c.response();
    expect(res.status).toBe(408);
    expect(res.headers.connection).toBe('close');
    expect(errorOf(res.body)).toMatchObject({ type: 'invalid_request_error', code: 'request_timeout' });
    expect((await c.closed).ended || c.socket.destroyed).toBe(true);
  });

  it('answers headers that stop arriving with 408 and closes the connection', async () => {
    const c = await connect(port);
    await c.write('GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\n');
    expect((await c.response()).status).toBe(408);
    await c.closed;
  });
});

describe('oversized bodies', () => {
  it('refuses a declared body over the limit with 413 before reading it, then closes without a reset', async () => {
    const c = await connect(port);
    await c.write(
      head([
        'POST /v1/chat/completions HTTP/1.1',
        'content-type: application/json',
        `content-length: ${LIMIT * 4}`,
      ]),
    );
    const res = await c.response();
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
    expect(errorOf(res.body)).toMatchObject({ code: 'request_too_large', type: 'invalid_request_error' });
    // The client goes on sending what it declared: the server drains it and ends, no reset.
    await c.write('x'.repeat(LIMIT * 4));
    c.socket.end();
    expect(await c.closed).toEqual({ reset: false, ended: true });
  });

  it('refuses a chunked body once it passes the limit, and closes the connection', async () => {
    const c = await connect(port);
    await c.write(
      head([
        'POST /v1/chat/completions HTTP/1.1',
        'content-type: application/json',
        'transfer-encoding: chunked',
      ]),
    );
    const chunk = 'x'.repeat(16 * 1024);
    const reply = c.response();
    for (let i = 0; i < 5; i++) await c.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`);
    const res = await reply;
    expect(res.status).toBe(413);
    expect(res.headers.connection).toBe('close');
    expect(errorOf(res.body).code).toBe('request_too_large');
    await c.write('0\r\n\r\n');
    c.socket.end();
    expect((await c.closed).reset).toBe(false);
  });

  it('lets a keep-alive client go on after a 413: the next request on a new connection works', async () => {
    for (let i = 0; i < 5; i++) {
      const big = await t.req('POST', '/v1/sessions', { title: 'x'.repeat(LIMIT * 2) });
      expect(big.status).toBe(413);
      expect(big.headers.get('connection')).toBe('close');
      expect(((await big.json()) as { error: { code: string } }).error.code).toBe('request_too_large');
      const ok = await t.req('POST', '/v1/sessions', { title: `ok ${i}` });
      expect(ok.status).toBe(201);
    }
  });

  it('loses no request of a hostile mix over keep-alive connections (no resets)', async () => {
    const big = JSON.stringify({ title: 'x'.repeat(LIMIT * 3) });
    const post = (
      body: NonNullable<RequestInit['body']>,
      type = 'application/json',
      extra: RequestInit = {},
    ) => fetch(`${t.url}/v1/sessions`, { method: 'POST', headers: { 'content-type': type }, body, ...extra });
    const mix = [
      () => post(big),
      () => post(new Blob([big]).stream(), 'application/json', { duplex: 'half' } as RequestInit),
      () => post('x'.repeat(LIMIT * 3), 'text/plain'),
      () => post('{bad'),
      () => post(`${'['.repeat(100)}${']'.repeat(100)}`),
      () => fetch(`${t.url}/health`),
    ];
    const failures: string[] = [];
    const statuses: number[] = [];
    for (let round = 0; round < 100; round++) {
      await Promise.all(
        mix.map(async (send) => {
          try {
            const res = await send();
            await res.arrayBuffer();
            statuses.push(res.status);
          } catch (e) {
            failures.push(`${(e as Error).message}: ${String((e as { cause?: unknown }).cause)}`);
          }
        }),
      );
    }
    expect(failures).toEqual([]);
    expect(statuses.filter((s) => s === 413)).toHaveLength(300);
  });

  it('refuses JSON nested deeper than the limit before parsing it', async () => {
    const deep = `${'['.repeat(30_000)}${']'.repeat(30_000)}`;
    for (const body of [deep, `{"messages": ${deep}}`]) {
      const res = await t.json<{ error: { code: string; message: string } }>(
        'POST',
        '/v1/chat/completions',
        body,
      );
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('json_too_deep');
      expect(res.body.error.message).toContain(`${MAX_JSON_DEPTH} levels`);
    }
    // Strings holding brackets are not nesting.
    const flat = await t.json('POST', '/v1/sessions', { title: '[[[['.repeat(100) });
    expect(flat.status).toBe(201);
    expect((await t.req('GET', '/health')).status).toBe(200);
  });
});

describe('the connection cap', () => {
  it('answers a request on a connection past the cap with 503, and keeps serving the others', async () => {
    // A server of its own: no other test's keep-alive connections count against the cap.
    const s = await startTestServer({ model: t.model, deps: { maxConnections: 4 } });
    const at = s.server.port;
    const get = `GET /health HTTP/1.1\r\nhost: 127.0.0.1:${at}\r\n\r\n`;
    try {
      const held = [];
      for (let i = 0; i < 4; i++) {
        const c = await connect(at);
        // One request each, so the server has counted the connection before the next opens.
        await c.write(get);
        expect((await c.response()).status).toBe(200);
        held.push(c);
      }
      const extra = await connect(at);
      await extra.write(get);
      const res = await extra.response();
      expect(res.status).toBe(503);
      expect(res.headers['retry-after']).toBe('1');
      expect(res.headers.connection).toBe('close');
      expect(errorOf(res.body)).toMatchObject({ code: 'server_busy', type: 'server_error' });
      await extra.closed;
      // The connections inside the cap still work.
      await held[0]!.write(get);
      expect((await held[0]!.response()).status).toBe(200);
      for (const c of held) c.socket.destroy();
      await Promise.all(held.map((c) => c.closed));
    } finally {
      await s.close();
    }
  });
});
