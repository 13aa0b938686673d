/**
 * The loopback redirect of an OAuth login, attacked directly: forged state, a second
 * callback (code replay), error=, another Host, another path, and its lifetime.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthorizationDenied, type Loopback, startLoopback } from '../../../src/tools/mcp/oauth-loopback.js';

let loopback: Loopback | undefined;
afterEach(async () => {
  await loopback?.close();
  loopback = undefined;
});

/** A GET with a chosen Host header; resolves to the status. */
function get(url: string, host?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request(
      { host: u.hostname, port: u.port, path: `${u.pathname}${u.search}`, headers: host ? { host } : {} },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const STATE = 'expected-state-0123456789';

/** Waits for the callback of STATE (a rejection is observed even before the test awaits it). */
function wait(lb: Loopback, timeoutMs = 60_000): Promise<string> {
  const code = lb.waitForCode(STATE, timeoutMs);
  code.catch(() => undefined);
  return code;
}

describe('loopback redirect', () => {
  it('listens on 127.0.0.1 at /callback and hands over the code of the matching state once', async () => {
    loopback = await startLoopback();
    expect(loopback.redirectUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    const code = wait(loopback);
    expect(await get(`${loopback.redirectUrl}?state=${STATE}&code=c1`)).toBe(200);
    await expect(code).resolves.toBe('c1');
    // The same callback again (a replayed code) is refused.
    expect(await get(`${loopback.redirectUrl}?state=${STATE}&code=c1`)).toBe(410);
  });

  it('refuses a callback with another state and keeps waiting for the real one', async () => {
    loopback = await startLoopback();
    const code = wait(loopback);
    expect(await get(`${loopback.redirectUrl}?state=forged&code=evil`)).toBe(400);
    expect(await get(`${loopback.redirectUrl}?code=evil`)).toBe(400);
    expect(await get(`${loopback.redirectUrl}?state=forged&error=access_denied`)).toBe(400);
    expect(await get(`${loopback.redirectUrl}?state=${STATE}&code=real`)).toBe(200);
    await expect(code).resolves.toBe('real');
  });

  it('error= with the right state ends the login with the server’s reason', async () => {
    loopback = await startLoopback();
    const code = wait(loopback);
    const status = await get(
      `${loopback.redirectUrl}?state=${STATE}&error=access_denied&error_description=no%20thanks`,
    );
    expect(status).toBe(400);
    await expect(code).rejects.toThrow(AuthorizationDenied);
    await expect(code).rejects.toThrow(
      'the authorization server refused the login (access_denied: no thanks)',
    );
  });

  it('answers only its own Host and path, and nothing before a login waits', async () => {
    loopback = await startLoopback();
    const port = new URL(loopback.redirectUrl).port;
    expect(await get(`${loopback.redirectUrl}?state=${STATE}&code=early`)).toBe(409);
    const code = wait(loopback);
    // DNS rebinding: a page on another name that resolves to 127.0.0.1.
    expect(await get(`${loopback.redirectUrl}?state=${STATE}&code=c`, `evil.example:${port}`)).toBe(421);
    expect(await get(`${loopback.redirectUrl}?state=${STATE}&code=c`, 'localhost')).toBe(421);
    expect(await get(`http://127.0.0.1:${port}/other?state=${STATE}&code=c`)).toBe(404);
    expect(await get(`${loopback.redirectUrl}?state=${STATE}&code=c`)).toBe(200);
    await expect(code).resolves.toBe('c');
  });

  it('stops listening when closed; a waiting login is told so', async () => {
    loopback = await startLoopback();
    const code = wait(loopback);
    const url = loopback.redirectUrl;
    await loopback.close();
    await expect(code).rejects.toThrow('the login was stopped');
    await expect(get(`${url}?state=${STATE}&code=late`)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('gives up after its time limit', async () => {
    loopback = await startLoopback();
    await expect(wait(loopback, 1)).rejects.toThrow('no login arrived within 1 ms');
  });
});
