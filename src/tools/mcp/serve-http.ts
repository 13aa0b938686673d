/**
 * `tea mcp serve --http`: the served tools and content over streamable HTTP (`/mcp`,
 * with sessions: serve-sessions.ts) and the legacy HTTP+SSE transport for older
 * clients (`GET /sse` + `POST /messages?sessionId=`: serve-sse.ts). Loopback by
 * default, with Host and Origin checks against DNS rebinding; any other address needs
 * a bearer token. Every route passes the same checks before anything else.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createToolServer, type McpServeOptions, servedRegistry } from './serve.js';
import { RETRY_MS, SessionEvents } from './serve-events.js';
import {
  credentialOf,
  newSessionId,
  type SessionLimits,
  SessionTable,
  sameCredential,
} from './serve-sessions.js';
import { openSse, postSse, SSE_MESSAGES_PATH, SSE_PATH } from './serve-sse.js';
import { jsonBody, rpcError } from './serve-wire.js';

export interface HttpServeOptions extends McpServeOptions, SessionLimits {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Required when `host` is not a loopback address; clients send `Authorization: Bearer <token>`. */
  token?: string;
  /** Largest request body accepted (default 4 MB). */
  maxBodyBytes?: number;
  /** Told when a session opens, ends or expires. */
  onSessionEvent?: (message: string) => void;
}

export interface HttpServeHandle {
  /** The endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  url: string;
  /** The legacy SSE endpoint, e.g. `http://127.0.0.1:41234/sse`. */
  sseUrl: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
const MCP_PATH = '/mcp';

export function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * The Host header names this loopback server exactly: a loopback name (or the
 * bound address) and the bound port — not `127.0.0.1.evil.example`, not another port.
 */
export function ownHost(header: string | undefined, bound: string, port: number): boolean {
  const m = /^(\[[^\]]*\]|[^:[\]]+):(\d{1,5})$/.exec((header ?? '').toLowerCase());
  if (!m || Number(m[2]) !== port) return false;
  const name = m[1] as string;
  const boundName = bound.includes(':') && !bound.startsWith('[') ? `[${bound}]` : bound.toLowerCase();
  return name === '127.0.0.1' || name === 'localhost' || name === '[::1]' || name === boundName;
}

function isInitialize(body: unknown): boolean {
  const one = (m: unknown) =>
    typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize';
  return Array.isArray(body) ? body.some(one) : one(body);
}

export async function serveHttp(opts: HttpServeOptions): Promise<HttpServeHandle> {
  const host = opts.host ?? '127.0.0.1';
  const loopback = isLoopback(host);
  if (!loopback && !opts.token) {
    throw new Error(`serving MCP on ${host} (not loopback) needs a token: pass --token or set TEA_MCP_TOKEN`);
  }
  const served = servedRegistry(opts);
  const limit = opts.maxBodyBytes ?? 4 * 1024 * 1024;
  const table = new SessionTable(opts, opts.onSessionEvent);

  let boundPort = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== MCP_PATH && url.pathname !== SSE_PATH && url.pathname !== SSE_MESSAGES_PATH)
      return rpcError(res, 404, `not found; the MCP endpoint is ${MCP_PATH} (legacy SSE: ${SSE_PATH})`);
    // DNS rebinding: a page on another name reaches a loopback server with its own name in Host.
    if (loopback && !ownHost(req.headers.host, host, boundPort)) {
      return rpcError(
        res,
        403,
        `forbidden Host header: only ${host}, localhost or [::1] with port ${boundPort}`,
      );
    }
    // A page of another site may not drive the server: an Origin must be the server's own.
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${req.headers.host ?? ''}`) {
      return rpcError(res, 403, `forbidden Origin: ${origin}`);
    }
    if (opts.token && !sameCredential(credentialOf(req), `Bearer ${opts.token}`)) {
      return rpcError(res, 401, 'missing or wrong bearer token');
    }
    const credential = credentialOf(req);
    if (url.pathname === SSE_PATH) return openSse(req, res, { table, credential, create, limit });
    if (url.pathname === SSE_MESSAGES_PATH)
      return postSse(req, res, url, { table, credential, create, limit });
    return streamable(req, res, credential);
  };

  const create = () => createToolServer(opts, served);

  const streamable = async (req: IncomingMessage, res: ServerResponse, credential: string): Promise<void> => {
    const header = req.headers['mcp-session-id'];
    const id = Array.isArray(header) ? header[0] : header;
    if (id !== undefined) {
      const session = table.find(id, credential, 'streamable');
      // Unknown, ended, or opened with other credentials: all look the same.
      if (!session) return rpcError(res, 404, 'session not found: initialize a new one (no Mcp-Session-Id)');
      if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE')
        return rpcError(res, 405, 'method not allowed: POST, GET or DELETE');
      let body: { body: unknown } | undefined;
      if (req.method === 'POST') {
        body = await jsonBody(req, res, limit);
        if (!body) return;
      }
      table.track(session, res);
      const transport =
        session.transport as import('@modelcontextprotocol/sdk/server/streamableHttp.js').StreamableHTTPServerTransport;
      return transport.handleRequest(req, res, body?.body);
    }
    if (req.method !== 'POST')
      return rpcError(res, 400, `${req.method} needs an Mcp-Session-Id header; POST initialize first`);
    const parsed = await jsonBody(req, res, limit);
    if (!parsed) return;
    if (!isInitialize(parsed.body))
      return rpcError(
        res,
        400,
        'no Mcp-Session-Id header: the first request of a session must be initialize',
      );
    const full = table.full();
    if (full) return rpcError(res, full.status, full.message);
    const release = table.reserve();
    try {
      const { StreamableHTTPServerTransport } = await import(
        '@modelcontextprotocol/sdk/server/streamableHttp.js'
      );
      const server = await create();
      const transport: InstanceType<typeof StreamableHTTPServerTransport> = new StreamableHTTPServerTransport(
        {
          sessionIdGenerator: newSessionId,
          // Resumable streams: event ids, a retry hint, replay after Last-Event-ID (serve-events.ts).
          eventStore: new SessionEvents(),
          retryInterval: RETRY_MS,
          onsessioninitialized: (sid) => {
            const session = table.add(sid, 'streamable', server, transport, credential);
            release();
            table.track(session, res);
          },
          onsessionclosed: (sid) => void table.end(sid, 'ended by the client'),
        },
      );
      const closed = server.onclose;
      server.onclose = () => {
        closed?.();
        if (transport.sessionId) void table.end(transport.sessionId, 'closed');
      };
      await server.connect(transport);
      await transport.handleRequest(req, res, parsed.body);
      if (!transport.sessionId) await server.close();
    } finally {
      release();
    }
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) rpcError(res, 500, `internal error: ${(error as Error).message}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(opts.port ?? 0, host, () => {
      http.off('error', reject);
      resolve();
    });
  });
  const port = (http.address() as AddressInfo).port;
  boundPort = port;
  const shownHost = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}${MCP_PATH}`,
    sseUrl: `http://${shownHost}:${port}${SSE_PATH}`,
    close: async () => {
      await table.closeAll();
      await new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      });
    },
  };
}
