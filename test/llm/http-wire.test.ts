/** The node:http transport under the providers: protocols, keep-alive, aborts, cut bodies, redirects. */
import http, { type ServerResponse } from 'node:http';
import https from 'node:https';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LlmError } from '../../src/llm/errors.js';
import { type CallContext, postJson, readText } from '../../src/llm/http.js';
import { readSse } from '../../src/llm/sse-read.js';
import { transportFor } from '../../src/llm/wire-response.js';
import { failure, pooledSockets } from './provider-helpers.js';
import { closed, type RawServer, startRawServer } from './raw-server.js';

const servers: RawServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handle: Parameters<typeof startRawServer>[0]): Promise<RawServer> {
  const server = await startRawServer(handle);
  servers.push(server);
  return server;
}

const ctx = (signal?: AbortSignal): CallContext => ({ profile: 'p', signal, secrets: ['sk-very-secret'] });

/** Reads every event of a response, returning the data fields. */
async function events(res: Awaited<ReturnType<typeof postJson>>, c: CallContext): Promise<string[]> {
  const out: string[] = [];
  for await (const e of readSse(res, c)) out.push(e.data);
  return out;
}

function startStream(res: ServerResponse, first: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(`data: ${first}\n\n`);
}

describe('transportFor', () => {
  it('picks node:http or node:https by protocol, each with one shared keep-alive pool', async () => {
    const plain = await transportFor(new URL('http://127.0.0.1/v1'));
    const secure = await transportFor(new URL('https://api.example.com/v1'));
    expect(plain?.protocol).toBe('http:');
    expect(plain?.agent).toBeInstanceOf(http.Agent);
    expect(plain?.agent).not.toBeInstanceOf(https.Agent);
    expect(secure?.protocol).toBe('https:');
    expect(secure?.agent).toBeInstanceOf(https.Agent);
    expect((await transportFor(new URL('http://other:9/')))?.agent).toBe(plain?.agent);
    expect((await transportFor(new URL('https://other/')))?.agent).toBe(secure?.agent);
    expect(await transportFor(new URL('ftp://example.com/'))).toBeUndefined();
  });

  it('speaks TLS to an https URL (a plain HTTP server never sees a request)', async () => {
    let requests = 0;
    const raw = await serve((_req, res) => {
      requests++;
      res.end('{}');
    });
    const err = await failure(postJson(raw.url.replace('http:', 'https:'), {}, {}, ctx()));
    expect(err.kind).toBe('network');
    expect(err.message).toMatch(/network error calling https:\/\/127\.0\.0\.1:\d+\/: .*(EPROTO|SSL)/);
    expect(requests).toBe(0);
    expect(raw.connections()).toBe(1);
  });
});

describe('postJson', () => {
  it('refuses a protocol other than http and https, before any I/O', async () => {
    const err = await failure(postJson('ftp://127.0.0.1/v1/chat', {}, {}, ctx()));
    expect(err.kind).toBe('invalid-response');
    expect(err.retryable).toBe(false);
    expect(err.message).toBe(
      'p: cannot call ftp://127.0.0.1/v1/chat: unsupported protocol "ftp:" (use http:// or https://)',
    );
    const bad = await failure(postJson('not a url', {}, {}, ctx()));
    expect(bad.message).toBe('p: not a url is not a valid URL');
  });

  it('sends a JSON POST with content-type, content-length, accept and the caller headers', async () => {
    let seen: { method?: string; headers: http.IncomingHttpHeaders; body: string } | undefined;
    const raw = await serve((req, res, body) => {
      seen = { method: req.method, headers: req.headers, body };
      res.writeHead(200, { 'content-type': 'application/json', 'x-answer': '42' });
      res.end('{"ok":"día"}');
    });
    const payload = { text: 'héllo ✓' };
    const res = await postJson(`${raw.url}/v1/x`, { 'x-extra': 'yes' }, payload, ctx());
    expect(res.status).toBe(200);
    expect(res.statusText).toBe('OK');
    expect(res.headers.get('X-Answer')).toBe('42');
    expect(res.headers.get('x-missing')).toBeNull();
    expect(await readText(res, ctx())).toBe('{"ok":"día"}');
    expect(seen?.method).toBe('POST');
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(seen?.headers.accept).toBe('text/event-stream, application/json');
    expect(seen?.headers['x-extra']).toBe('yes');
    expect(seen?.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(payload))));
    expect(JSON.parse(seen?.body ?? '')).toEqual(payload);
  });

  it('reuses one keep-alive connection for consecutive calls', async () => {
    const raw = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end('data: {"n":1}\n\ndata: [DONE]\n\n');
    });
    for (let i = 0; i < 3; i++) {
      const res = await postJson(raw.url, {}, { i }, ctx());
      expect(await events(res, ctx())).toEqual(['{"n":1}', '[DONE]']);
    }
    expect(raw.connections()).toBe(1);
  });

  it('turns 204 into invalid-response, and reports a redirect with its target', async () => {
    const raw = await serve((req, res) => {
      if (req.url === '/empty') res.writeHead(204).end();
      else res.writeHead(302, { location: 'https://elsewhere.example/v1' }).end();
    });
    const empty = await failure(postJson(`${raw.url}/empty`, {}, {}, ctx()));
    expect(empty.kind).toBe('invalid-response');
    expect(empty.message).toBe('p: response has no body');
    const moved = await failure(postJson(`${raw.url}/old`, {}, {}, ctx()));
    expect(moved).toMatchObject({ kind: 'http', status: 302 });
    expect(moved.message).toContain('redirects to https://elsewhere.example/v1');
  });

  it('follows a same-origin 307/308 with the same body, but never sends credentials to another origin', async () => {
    const other = await serve((_req, res) => res.end('{}'));
    const bodies: string[] = [];
    const raw = await serve((req, res, body) => {
      bodies.push(`${req.url} ${body} ${req.headers.authorization}`);
      if (req.url === '/a') res.writeHead(308, { location: '/b' }).end();
      else if (req.url === '/b') res.writeHead(200, { 'content-type': 'application/json' }).end('{"at":"b"}');
      else res.writeHead(307, { location: `${other.url}/steal` }).end();
    });
    const auth = { authorization: 'Bearer sk-very-secret' };
    const res = await postJson(`${raw.url}/a`, auth, { q: 1 }, ctx());
    expect(await readText(res, ctx())).toBe('{"at":"b"}');
    expect(bodies).toEqual(['/a {"q":1} Bearer sk-very-secret', '/b {"q":1} Bearer sk-very-secret']);
    const err = await failure(postJson(`${raw.url}/c`, auth, { q: 2 }, ctx()));
    expect(err).toMatchObject({ kind: 'http', status: 307 });
    expect(err.message).toContain(`redirects to ${other.url}/steal`);
    expect(other.connections()).toBe(0);
  });
});

describe('aborts and broken bodies', () => {
  it('aborts while waiting for headers: a timeout reason becomes timeout, and the request is dropped', async () => {
    let answer: Promise<void> | undefined;
    const raw = await serve((_req, res) => {
      answer = closed(res); // never answered
    });
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(new DOMException('slow', 'TimeoutError')), 30);
    const err = await failure(postJson(raw.url, {}, {}, ctx(ctrl.signal)));
    expect(err.kind).toBe('timeout');
    expect(err.message).toBe('p: request timed out');
    await answer; // the server saw the client go away
  });

  it('aborts mid-body, rethrowing an LlmError reason, and closes the connection', async () => {
    let answer: Promise<void> | undefined;
    const raw = await serve((_req, res) => {
      startStream(res, '"first"'); // then silence
      answer = closed(res);
    });
    const ctrl = new AbortController();
    const reason = new LlmError('timeout', 'idle for too long');
    const seen: string[] = [];
    const res = await postJson(raw.url, {}, {}, ctx(ctrl.signal));
    const err = await failure(
      (async () => {
        for await (const e of readSse(res, ctx(ctrl.signal))) {
          seen.push(e.data);
          setTimeout(() => ctrl.abort(reason), 20);
        }
      })(),
    );
    expect(err).toBe(reason);
    expect(seen).toEqual(['"first"']);
    await answer;
  });

  it('aborts a whole-body read too', async () => {
    const raw = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":');
    });
    const ctrl = new AbortController();
    const res = await postJson(raw.url, {}, {}, ctx(ctrl.signal));
    setTimeout(() => ctrl.abort(), 20);
    const err = await failure(readText(res, ctx(ctrl.signal)));
    expect(err.kind).toBe('aborted');
  });

  it('turns a connection cut mid-body into a retryable network error naming the code', async () => {
    const raw = await serve((_req, res) => {
      startStream(res, '"first"');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const c = ctx();
    const res = await postJson(raw.url, {}, {}, c);
    const err = await failure(events(res, c));
    expect(err.kind).toBe('network');
    expect(err.retryable).toBe(true);
    expect(err.message).toBe(
      'p: network error while streaming: the connection closed before the response ended (ECONNRESET)',
    );
  });

  it('never shows a secret in a network error', async () => {
    const raw = await serve((_req, res) => res.end());
    await raw.close();
    const err = await failure(postJson(`${raw.url}/sk-very-secret/x`, {}, {}, ctx()));
    expect(err.kind).toBe('network');
    expect(err.message).toMatch(/ECONNREFUSED/);
    expect(err.message).not.toContain('sk-very-secret');
  });
});

describe('stopping a stream early', () => {
  it('destroys an unfinished body (the server sees the client leave) and opens a new connection next time', async () => {
    let answer: Promise<void> | undefined;
    const raw = await serve((req, res) => {
      if (req.url === '/hold') {
        startStream(res, '"one"');
        res.write('data: "two"\n\n');
        answer = closed(res);
      } else sseResponse200(res);
    });
    const res = await postJson(`${raw.url}/hold`, {}, {}, ctx());
    // Not complete, so no drain: a drain would keep the connection open for this long.
    for await (const e of readSse(res, ctx(), { complete: () => false, releaseGraceMs: 60_000 })) {
      expect(e.data).toBe('"one"');
      break;
    }
    await answer;
    const again = await postJson(`${raw.url}/ok`, {}, {}, ctx());
    expect(await events(again, ctx())).toEqual(['[DONE]']);
    expect(raw.connections()).toBe(2);
  });

  it('drains a complete answer so its connection is reused, or closes it when the body never ends', async () => {
    let answer: Promise<void> | undefined;
    const raw = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: [DONE]\n\n');
      if (req.url === '/ends') setTimeout(() => res.end(), 20);
      else answer = closed(res); // keeps the stream open after [DONE]
    });
    const readUntilDone = async (path: string, releaseGraceMs: number): Promise<void> => {
      let done = false;
      const res = await postJson(`${raw.url}${path}`, {}, {}, ctx());
      for await (const e of readSse(res, ctx(), { complete: () => done, releaseGraceMs })) {
        done = e.data === '[DONE]';
        if (done) break;
      }
      expect(done).toBe(true);
    };
    await readUntilDone('/ends', 5000);
    await vi.waitFor(async () => expect(await pooledSockets(raw.url)).toBe(1)); // drained, back in the pool
    await readUntilDone('/ends', 5000);
    expect(raw.connections()).toBe(1);
    await readUntilDone('/open', 30);
    await answer; // closed by the client after the grace period
  });
});

function sseResponse200(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end('data: [DONE]\n\n');
}
