/**
 * `tea mcp serve --http`: the served tools over streamable HTTP, stateless (each
 * POST gets a fresh server and transport). Loopback by default, with a Host check
 * against DNS rebinding; any other address needs a bearer token.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createToolServer, type McpServeOptions, servedRegistry } from './serve.js';

export interface HttpServeOptions extends McpServeOptions {
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Required when `host` is not a loopback address; clients send `Authorization: Bearer <token>`. */
  token?: string;
  /** Largest request body accepted (default 4 MB). */
  maxBodyBytes?: number;
}

export interface HttpServeHandle {
  /** The endpoint, e.g. `http://127.0.0.1:41234/mcp`. */
  url: string;
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

function rpcError(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function readJson(req: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new RangeError(`request body over ${limit} bytes`);
    chunks.push(chunk as Buffer);
  }
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

export async function serveHttp(opts: HttpServeOptions): Promise<HttpServeHandle> {
  const host = opts.host ?? '127.0.0.1';
  const loopback = isLoopback(host);
  if (!loopback && !opts.token) {
    throw new Error(`serving MCP on ${host} (not loopback) needs a token: pass --token or set TEA_MCP_TOKEN`);
  }
  const served = servedRegistry(opts);
  const limit = opts.maxBodyBytes ?? 4 * 1024 * 1024;

  let boundPort = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== MCP_PATH) return rpcError(res, 404, `not found; the MCP endpoint is ${MCP_PATH}`);
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
    if (opts.token && req.headers.authorization !== `Bearer ${opts.token}`) {
      return rpcError(res, 401, 'missing or wrong bearer token');
    }
    if (req.method !== 'POST') return rpcError(res, 405, 'method not allowed (stateless server: POST only)');
    // JSON only: a cross-site form or text/plain post (a "simple request") is not a client.
    const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') {
      return rpcError(res, 415, 'unsupported Content-Type: send application/json');
    }
    let body: unknown;
    try {
      body = await readJson(req, limit);
    } catch (error) {
      return rpcError(res, 400, `bad request body: ${(error as Error).message}`);
    }
    const { StreamableHTTPServerTransport } = await import(
      '@modelcontextprotocol/sdk/server/streamableHttp.js'
    );
    const server = await createToolServer(opts, served);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
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
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}
