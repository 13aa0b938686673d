/**
 * `tea mcp serve --http` on loopback cannot be driven by other web sites: attacks
 * by Host (DNS rebinding), Origin and body type, each refused before any tool
 * runs; the legitimate request still works.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { type HttpServeHandle, ownHost, serveHttp } from '../../../src/tools/mcp/serve-http.js';
import { PermissionPolicy } from '../../../src/tools/permissions.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { defineTool } from '../../../src/tools/types.js';
import { tempDir } from './peers.js';

let runs = 0;

function served(): ToolRegistry {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: 'touch',
      description: 'Counts its runs.',
      parameters: z.object({}),
      category: 'test',
      readOnly: true,
      concurrencySafe: true,
      approval: 'none',
      async execute() {
        runs += 1;
        return 'touched';
      },
    }),
  );
  return registry;
}

const CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'touch', arguments: {} },
});

/** A raw request to 127.0.0.1:port with these headers; resolves to the status and the session id given. */
function post(
  port: number,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; session?: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers, setHost: false },
      (res) => {
        res.resume();
        const session = res.headers['mcp-session-id'];
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, ...(typeof session === 'string' ? { session } : {}) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'guard', version: '1' } },
});

/** Opens a session with `headers`, then sends the call in it; resolves to the call's status. */
async function callInSession(port: number, headers: Record<string, string>): Promise<number> {
  const opened = await post(port, headers, INIT);
  if (opened.status !== 200 || !opened.session) return opened.status;
  return (
    await post(
      port,
      { ...headers, 'mcp-session-id': opened.session, 'mcp-protocol-version': '2025-06-18' },
      CALL,
    )
  ).status;
}

/** A raw request to 127.0.0.1:port with exactly these headers (fetch cannot set Host). */
function send(port: number, headers: Record<string, string>, body = CALL): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers, setHost: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('tea mcp serve --http on loopback refuses other sites', () => {
  const tmp = tempDir();
  let server: HttpServeHandle;
  let port: number;
  const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

  beforeAll(async () => {
    server = await serveHttp({
      registry: served(),
      cwd: tmp.dir,
      policy: new PermissionPolicy('auto-edit', []),
    });
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    await server.close();
    tmp.cleanup();
  });

  const attacks: Array<[string, (port: number) => Record<string, string>, number]> = [
    ['a rebinding name', (p) => ({ ...json, host: `evil.example:${p}` }), 403],
    ['a loopback look-alike name', (p) => ({ ...json, host: `127.0.0.1.evil.example:${p}` }), 403],
    ['localhost as a prefix', (p) => ({ ...json, host: `localhost.evil.example:${p}` }), 403],
    ['another port', (p) => ({ ...json, host: `127.0.0.1:${p + 1}` }), 403],
    ['no port', () => ({ ...json, host: '127.0.0.1' }), 403],
    ['an empty Host', () => ({ ...json, host: '' }), 403],
    ['a port with junk', (p) => ({ ...json, host: `127.0.0.1:${p}x` }), 403],
    ['a userinfo trick', (p) => ({ ...json, host: `127.0.0.1:${p}@evil.example` }), 403],
    ['a foreign Origin', (p) => ({ ...json, host: `127.0.0.1:${p}`, origin: 'http://evil.example' }), 403],
    ['Origin null', (p) => ({ ...json, host: `127.0.0.1:${p}`, origin: 'null' }), 403],
    [
      'an Origin on another port',
      (p) => ({ ...json, host: `127.0.0.1:${p}`, origin: `http://127.0.0.1:${p + 1}` }),
      403,
    ],
    ['text/plain', (p) => ({ host: `127.0.0.1:${p}`, 'content-type': 'text/plain' }), 415],
    [
      'a form post',
      (p) => ({ host: `127.0.0.1:${p}`, 'content-type': 'application/x-www-form-urlencoded' }),
      415,
    ],
    [
      'multipart',
      (p) => ({ host: `127.0.0.1:${p}`, 'content-type': 'multipart/form-data; boundary=x' }),
      415,
    ],
    ['no Content-Type', (p) => ({ host: `127.0.0.1:${p}` }), 415],
  ];

  it.each(attacks)('refuses %s and runs nothing', async (_, headers, status) => {
    const before = runs;
    expect(await send(port, headers(port))).toBe(status);
    expect(runs).toBe(before);
  });

  it.each([
    ['127.0.0.1', (p: number) => `127.0.0.1:${p}`],
    ['localhost', (p: number) => `localhost:${p}`],
    ['LOCALHOST (names are case-insensitive)', (p: number) => `LOCALHOST:${p}`],
  ])('serves its own name: %s', async (_, host) => {
    const before = runs;
    expect(await callInSession(port, { ...json, host: host(port) })).toBe(200);
    expect(runs).toBe(before + 1);
  });

  it('serves a same-origin request', async () => {
    const before = runs;
    expect(
      await callInSession(port, { ...json, host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` }),
    ).toBe(200);
    expect(runs).toBe(before + 1);
  });
});

describe('ownHost', () => {
  it.each([
    ['127.0.0.1:8080', '127.0.0.1', 8080, true],
    ['[::1]:8080', '127.0.0.1', 8080, true],
    ['[::1]:8080', '::1', 8080, true],
    ['127.0.0.2:8080', '127.0.0.2', 8080, true],
    ['127.0.0.2:8080', '127.0.0.1', 8080, false],
    ['127.0.0.1:80', '127.0.0.1', 8080, false],
    ['evil.example:8080', '127.0.0.1', 8080, false],
    ['127.0.0.1.nip.io:8080', '127.0.0.1', 8080, false],
    [undefined, '127.0.0.1', 8080, false],
  ])('%s against %s:%s → %s', (header, bound, port, expected) => {
    expect(ownHost(header, bound, port)).toBe(expected);
  });
});
