/**
 * `tea mcp serve --http` keeps sessions (the built CLI, the MCP SDK's clients and raw
 * HTTP): a client's notifications/cancelled stops its running call (the bash child is
 * killed); a session id is unguessable, bound to the credentials that opened it, ends
 * on DELETE or when idle; sessions are capped; the legacy SSE transport works and
 * passes the same checks.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type CliEnv, cliEnv } from '../support/cli.js';
import { startMcpHttp } from './mcp-http.js';

let ctx: CliEnv;
const servers: Array<Awaited<ReturnType<typeof startMcpHttp>>> = [];
beforeEach(() => {
  ctx = cliEnv();
  writeFileSync(path.join(ctx.work, 'notes.txt'), 'first line\n');
});
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.child.kill('SIGTERM');
    await s.exited;
  }
  ctx.cleanup();
});

async function start(args: string[] = []) {
  const s = await startMcpHttp(ctx.env, ['--cwd', ctx.work, '--yolo', ...args]);
  servers.push(s);
  return s;
}

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const ACCEPT = 'application/json, text/event-stream';

/** Opens a session with raw HTTP; resolves to its id. */
async function initialize(
  url: string,
  auth?: string,
): Promise<{ status: number; id: string | null; text: string }> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT, ...(auth ? { authorization: auth } : {}) },
    body: JSON.stringify(INIT),
  });
  return { status: res.status, id: res.headers.get('mcp-session-id'), text: await res.text() };
}

async function send(
  url: string,
  id: string,
  body: object | null,
  opts: { auth?: string; method?: string } = {},
) {
  const res = await fetch(url, {
    method: opts.method ?? 'POST',
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-06-18',
      ...(opts.auth ? { authorization: opts.auth } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, text: await res.text() };
}

const toolsList = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'tea-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Whether a process whose command line is exactly `args` runs (read from /proc: the sandbox has its own pids). */
function running(args: string[]): boolean {
  const want = `${args.join('\0')}\0`;
  return readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .some((d) => {
      try {
        return readFileSync(`/proc/${d}/cmdline`, 'utf8') === want;
      } catch {
        return false;
      }
    });
}

describe('cancelling over streamable HTTP', () => {
  it('notifications/cancelled stops the running bash call and kills its child', async () => {
    const server = await start();
    const client = await connect(server.url);
    const child = ['sleep', `${900 + (process.pid % 99)}.25`];
    const abort = new AbortController();
    const call = client.callTool(
      { name: 'bash', arguments: { command: `exec ${child.join(' ')}` } },
      undefined,
      {
        signal: abort.signal,
        timeout: 120_000,
      },
    );
    await vi.waitFor(() => expect(running(child)).toBe(true), { timeout: 15_000 });
    abort.abort('the user changed their mind');
    await expect(call).rejects.toThrow(/changed their mind|abort/i);
    await vi.waitFor(() => expect(running(child)).toBe(false), { timeout: 15_000 });
    // The session lives on: the next call runs.
    const next = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
    expect(JSON.stringify(next.content)).toContain('first line');
    await client.close();
  });

  it("a cancel sent in another session does not stop this session's call", async () => {
    const server = await start();
    const a = await connect(server.url);
    const go = path.join(ctx.work, 'go');
    const started = path.join(ctx.work, 'started');
    const call = a.callTool(
      {
        name: 'bash',
        arguments: { command: `touch ${started}; while [ ! -f ${go} ]; do sleep 0.05; done; echo finished` },
      },
      undefined,
      { timeout: 120_000 },
    );
    await vi.waitFor(() => expect(existsSync(started)).toBe(true), { timeout: 15_000 });
    const b = await initialize(server.url);
    expect(b.status).toBe(200);
    // Session B cancels every request id A could be using.
    for (let requestId = 0; requestId < 10; requestId++) {
      const r = await send(server.url, b.id!, {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason: 'not yours' },
      });
      expect(r.status).toBe(202);
    }
    writeFileSync(go, '');
    const result = await call;
    expect(result.isError).toBe(false);
    expect(JSON.stringify(result.content)).toContain('finished');
    await a.close();
  });
});

describe('progress of a long call', () => {
  it('a tool without progress of its own reports that it is still running, to a client that asked', async () => {
    const server = await start();
    const client = await connect(server.url);
    const go = path.join(ctx.work, 'go');
    const beats: Array<{ progress: number; message?: string }> = [];
    const result = await client.request(
      {
        method: 'tools/call',
        params: {
          name: 'bash',
          arguments: { command: `while [ ! -f ${go} ]; do sleep 0.05; done; echo over` },
        },
      },
      CallToolResultSchema,
      {
        timeout: 120_000,
        onprogress: (p) => {
          beats.push(p);
          if (beats.length === 2) writeFileSync(go, '');
        },
      },
    );
    expect(JSON.stringify(result.content)).toContain('over');
    expect(beats.map((b) => b.progress).slice(0, 2)).toEqual([1, 2]);
    expect(beats[0]?.message).toMatch(/^bash is running \(\d+ s\)$/);
    await client.close();
  });
});

describe('session ids', () => {
  it('are random UUIDs, bound to the credentials that opened them, and end on DELETE', async () => {
    const server = await start();
    const alice = await initialize(server.url, 'Bearer alice');
    expect(alice.status).toBe(200);
    expect(alice.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const again = await initialize(server.url, 'Bearer alice');
    expect(again.id).not.toBe(alice.id);
    const id = alice.id!;
    expect((await send(server.url, id, toolsList, { auth: 'Bearer alice' })).status).toBe(200);
    // Reuse with other credentials, or none: unknown.
    for (const auth of ['Bearer mallory', 'Bearer alicE', 'alice', undefined]) {
      const r = await send(server.url, id, toolsList, auth ? { auth } : {});
      expect(r.status).toBe(404);
      expect(r.text).toContain('session not found');
    }
    // A guessed id, or one a letter off.
    const guessed = `${id.slice(0, -1)}${id.endsWith('0') ? '1' : '0'}`;
    for (const other of [guessed, crypto.randomUUID(), '1', '../x']) {
      expect((await send(server.url, other, toolsList, { auth: 'Bearer alice' })).status).toBe(404);
      expect((await send(server.url, other, null, { auth: 'Bearer alice', method: 'DELETE' })).status).toBe(
        404,
      );
    }
    // DELETE by another credential does not end it; by the owner it does.
    expect((await send(server.url, id, null, { auth: 'Bearer mallory', method: 'DELETE' })).status).toBe(404);
    expect((await send(server.url, id, null, { auth: 'Bearer alice', method: 'DELETE' })).status).toBe(200);
    expect((await send(server.url, id, toolsList, { auth: 'Bearer alice' })).status).toBe(404);
  });

  it('a request without a session id must be initialize; GET needs one', async () => {
    const server = await start();
    const r = await fetch(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT },
      body: JSON.stringify(toolsList),
    });
    expect(r.status).toBe(400);
    expect(await r.text()).toContain('the first request of a session must be initialize');
    const g = await fetch(server.url, { headers: { accept: 'text/event-stream' } });
    expect(g.status).toBe(400);
  });

  it('past --max-sessions a new session replaces the one idle the longest', async () => {
    const server = await start(['--max-sessions', '3']);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await initialize(server.url)).id!);
    // Used after opening: ids[1] is now the one idle the longest.
    expect((await send(server.url, ids[0]!, toolsList)).status).toBe(200);
    expect((await send(server.url, ids[2]!, toolsList)).status).toBe(200);
    const fourth = await initialize(server.url);
    expect(fourth.status).toBe(200);
    expect((await send(server.url, ids[1]!, toolsList)).status).toBe(404);
    for (const id of [ids[0]!, ids[2]!, fourth.id!])
      expect((await send(server.url, id, toolsList)).status).toBe(200);
  });

  it('a flood stops at --max-sessions while every session is busy; one going idle makes room', async () => {
    const server = await start(['--max-sessions', '3']);
    const streams: AbortController[] = [];
    // Held, not just awaited: an unread fetch body nobody references may be collected, and
    // undici then closes its stream, making that session idle under a busy machine's GC.
    const held: Response[] = [];
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = (await initialize(server.url)).id!;
      ids.push(id);
      // A standalone event stream held open keeps the session busy.
      const abort = new AbortController();
      const res = await fetch(server.url, {
        headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
        signal: abort.signal,
      });
      expect(res.status).toBe(200);
      streams.push(abort);
      held.push(res);
    }
    const refused = await initialize(server.url);
    expect(refused.status).toBe(503);
    expect(refused.text).toContain('too many busy MCP sessions (3 open');
    expect((await fetch(server.url.replace(/\/mcp$/, '/sse'))).status).toBe(503);
    streams[1]!.abort();
    await vi.waitFor(async () => expect((await initialize(server.url)).status).toBe(200), {
      timeout: 15_000,
    });
    expect((await send(server.url, ids[1]!, toolsList)).status).toBe(404);
    expect((await send(server.url, ids[0]!, toolsList)).status).toBe(200);
    for (const s of streams) s.abort();
    expect(held).toHaveLength(3);
  });

  it('an idle session expires (--session-idle)', async () => {
    const server = await start(['--session-idle', '1']);
    let stderr = '';
    server.child.stderr?.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const { id } = await initialize(server.url);
    await vi.waitFor(() => expect(stderr).toContain(`session ${id!.slice(0, 8)}… expired (idle)`), {
      timeout: 15_000,
    });
    expect((await send(server.url, id!, toolsList)).status).toBe(404);
  });
});

describe('the legacy HTTP+SSE transport', () => {
  it('serves an SSE client, with the same Host, Origin and token checks', async () => {
    const server = await start(['--token', 'sekrit']);
    const sseUrl = new URL(server.url.replace(/\/mcp$/, '/sse'));
    const headers = { authorization: 'Bearer sekrit' };
    const client = new Client({ name: 'old-client', version: '1.0.0' });
    await client.connect(
      new SSEClientTransport(sseUrl, {
        requestInit: { headers },
        eventSourceInit: {
          fetch: (u, init) => fetch(u, { ...init, headers: { ...(init?.headers ?? {}), ...headers } }),
        },
      }),
    );
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('read_file');
    const got = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
    expect(JSON.stringify(got.content)).toContain('first line');
    await client.close();

    expect((await fetch(sseUrl)).status).toBe(401);
    expect((await fetch(sseUrl, { headers: { ...headers, origin: 'http://evil.example' } })).status).toBe(
      403,
    );
    expect(await getWithHost(sseUrl.href, 'evil.example', headers)).toBe(403);
    // A message for a session that does not exist.
    const post = await fetch(new URL(`/messages?sessionId=${crypto.randomUUID()}`, sseUrl), {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(toolsList),
    });
    expect(post.status).toBe(404);
  });
});

/** A GET with a chosen Host header (fetch will not send one); resolves to the status. */
function getWithHost(
  url: string,
  host: string,
  headers: Record<string, string>,
): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'GET', headers: { ...headers, host } }, (res) => {
      res.resume();
      resolve(res.statusCode);
      res.destroy();
    });
    req.on('error', reject);
    req.end();
  });
}
