import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { badInputCases } from './bad-input-cases.js';
import { startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let sessionId: string;

beforeAll(async () => {
  t = await startTestServer({ mode: 'ask', deps: { bodyLimitBytes: 64 * 1024 } });
  sessionId = ((await t.json<{ id: string }>('POST', '/v1/sessions')).body as { id: string }).id;
});
afterAll(() => t.close());

const cases = badInputCases(() => sessionId);

describe('malformed requests get a clear error in the OpenAI shape', () => {
  it.each(cases)('$name → $status', async (c) => {
    const p = typeof c.path === 'function' ? c.path() : c.path;
    const body =
      c.body === undefined ? undefined : typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
    const res = await t.req(c.method, p, body, {
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...c.headers,
    });
    const json = (await res.json()) as {
      error: { message: string; type: string; param: string | null; code: string | null };
    };
    expect(res.status).toBe(c.status);
    expect(Object.keys(json.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(json.error.message.length).toBeGreaterThan(5);
    expect(json.error.type).toBe(c.type ?? 'invalid_request_error');
    if (c.param !== undefined) expect(json.error.param).toBe(c.param);
    if (c.code !== undefined) expect(json.error.code).toBe(c.code);
  });

  it('still answers /health afterwards', async () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
    const res = await t.json('GET', '/health');
    expect(res).toEqual({ status: 200, body: { status: 'ok', version: '0.0.0-test' } });
  });
});

describe('auth and rate limits', () => {
  it('guards every route but /health with the bearer token', async () => {
    const s = await startTestServer({ model: t.model, deps: { token: 'tok-123456' } });
    try {
      expect((await s.req('GET', '/health')).status).toBe(200);
      const missing = await s.json<{ error: Record<string, unknown> }>('GET', '/v1/sessions');
      expect(missing.status).toBe(401);
      expect(missing.body.error).toMatchObject({ type: 'authentication_error', code: 'missing_api_key' });
      const wrong = await s.req('GET', '/v1/sessions', undefined, { authorization: 'Bearer nope' });
      expect(wrong.status).toBe(401);
      expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
      const malformed = await s.req('GET', '/v1/models', undefined, { authorization: 'Basic abc' });
      expect(malformed.status).toBe(401);
      const ok = await s.req('GET', '/v1/sessions', undefined, { authorization: 'Bearer tok-123456' });
      expect(ok.status).toBe(200);
      // ?token= works on event streams only.
      expect((await s.req('GET', '/v1/sessions?token=tok-123456')).status).toBe(401);
      const id = (
        (await (
          await s.req('POST', '/v1/sessions', undefined, { authorization: 'Bearer tok-123456' })
        ).json()) as { id: string }
      ).id;
      const ac = new AbortController();
      const events = await fetch(`${s.url}/v1/sessions/${id}/events?token=tok-123456`, { signal: ac.signal });
      expect(events.status).toBe(200);
      expect(events.headers.get('content-type')).toContain('text/event-stream');
      ac.abort();
    } finally {
      await s.close();
    }
  });

  it('answers 429 with retry-after beyond the per-client rate', async () => {
    const s = await startTestServer({ model: t.model, deps: { rateLimit: { perMinute: 60, burst: 3 } } });
    try {
      const statuses: number[] = [];
      let limited: Response | undefined;
      for (let i = 0; i < 5; i++) {
        const res = await s.req('GET', '/v1/models');
        statuses.push(res.status);
        if (res.status === 429) limited = res;
        else await res.body?.cancel();
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(((await limited!.json()) as { error: { type: string } }).error.type).toBe('rate_limit_error');
      expect((await s.req('GET', '/health')).status).toBe(200);
    } finally {
      await s.close();
    }
  });
});
