/**
 * The legacy HTTP+SSE transport: a `url` server that answers the streamable HTTP POST
 * with a 4xx is reached over SSE (the spec's backwards-compatibility procedure);
 * `transport` forces one; and an OAuth login also works over SSE. The server is the
 * SDK's SSEServerTransport behind its auth helpers (test/support/oauth-mcp-server.mjs).
 */
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { attachMcp, type LoginUi, type McpServerConfig } from '../../../src/tools/mcp/index.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { type OAuthMcpServer, startOAuthMcpServer } from '../../support/oauth-mcp-server.mjs';
import { callTool, tempDir } from './peers.js';

let tmp: ReturnType<typeof tempDir>;
let server: OAuthMcpServer;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(async () => {
  await server.close();
  tmp.cleanup();
});

async function connect(config: McpServerConfig, login?: LoginUi) {
  const registry = new ToolRegistry();
  const manager = await attachMcp(
    registry,
    { legacy: config },
    { home: path.join(tmp.dir, 'home'), cwd: tmp.dir, ...(login ? { login } : {}) },
  );
  return { registry, manager };
}

const requests = () => server.seen.requests.map((r) => `${r.method} ${r.path}`);

describe('legacy SSE transport', () => {
  it('falls back to SSE when the first POST gets a 4xx, and calls tools over it', async () => {
    server = await startOAuthMcpServer({ open: true, noStreamable: true });
    const { registry, manager } = await connect({ url: server.sseUrl });
    try {
      const tools = await manager.refresh('legacy');
      expect(tools.map((t) => t.name)).toEqual(['whoami']);
      const r = await callTool(registry, 'mcp__legacy__whoami', {});
      expect(r).toMatchObject({ status: 'ok', output: 'client anonymous' });
      // One streamable HTTP attempt (404), then the SSE stream and its message posts.
      expect(requests().slice(0, 2)).toEqual(['POST /sse', 'GET /sse']);
      expect(requests().filter((r) => r === 'POST /sse')).toHaveLength(1);
      expect(requests()).toContain('POST /messages');
    } finally {
      await manager.close();
    }
  });

  it('`transport: sse` goes straight to the SSE stream', async () => {
    server = await startOAuthMcpServer({ open: true, noStreamable: true });
    const { manager } = await connect({ url: server.sseUrl, transport: 'sse' });
    try {
      await manager.refresh('legacy');
      expect(requests()[0]).toBe('GET /sse');
      expect(requests()).not.toContain('POST /sse');
    } finally {
      await manager.close();
    }
  });

  it('`transport: http` does not fall back: the 404 is the error', async () => {
    server = await startOAuthMcpServer({ open: true, noStreamable: true });
    const { manager } = await connect({ url: server.sseUrl, transport: 'http' });
    try {
      const error = (await manager.refresh('legacy').catch((e: unknown) => e)) as Error;
      expect(error.message).toContain(`MCP server "legacy": cannot connect to ${server.sseUrl}`);
      expect(error.message).toContain('the server answered HTTP 404');
      expect((error as Error & { hint?: string }).hint).toBe(
        'is it an MCP endpoint? Without transport: http, Tea also tries the legacy SSE transport',
      );
      expect(requests()).not.toContain('GET /sse');
    } finally {
      await manager.close();
    }
  });

  it('a streamable HTTP server is not taken for a legacy one', async () => {
    server = await startOAuthMcpServer({ open: true });
    const { manager } = await connect({ url: server.url });
    try {
      await manager.refresh('legacy');
      expect(requests()).not.toContain('GET /sse');
    } finally {
      await manager.close();
    }
  });

  it('logs in over SSE: the stream gets a 401, the browser login runs, the stream opens with the token', async () => {
    server = await startOAuthMcpServer();
    const opened: string[] = [];
    const login: LoginUi = {
      async open(name, url) {
        opened.push(name);
        // A browser that approves at once: follow the redirects to the loopback callback.
        let next: string | undefined = url.href;
        while (next) {
          const res: Response = await fetch(next, { redirect: 'manual' });
          await res.text();
          const location = res.headers.get('location');
          next = location ? new URL(location, next).href : undefined;
        }
      },
    };
    const { registry, manager } = await connect({ url: server.sseUrl, transport: 'sse' }, login);
    try {
      await manager.refresh('legacy');
      expect(opened).toEqual(['legacy']);
      const r = await callTool(registry, 'mcp__legacy__whoami', {});
      expect(r.output).toBe(`client ${server.seen.authorize[0]?.clientId}`);
      const streams = server.seen.requests.filter((q) => q.method === 'GET' && q.path === '/sse');
      expect(streams.map((q) => q.authorization)).toEqual([undefined, `Bearer ${server.seen.issued[0]}`]);
    } finally {
      await manager.close();
    }
  });
});
