/** Starts the app on a real HTTP server; `close()` cancels running turns and stops listening. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { getRequestListener, RequestError } from '@hono/node-server';
import { createTeaApp, type TeaApp } from './app.js';
import { type ApiError, apiError } from './errors.js';
import { hostProblem } from './guard.js';
import {
  answerAndClose,
  answerClientErrors,
  capConnections,
  closeIfEarly,
  DEFAULT_MAX_CONNECTIONS,
  serverOptions,
} from './http.js';
import { tooLarge } from './limits.js';
import { DEFAULT_BODY_LIMIT, type ServerDeps } from './types.js';

/** 503 on a connection past the cap; 413 for a declared body over the limit (never read). */
function connectionProblem(
  req: IncomingMessage,
  cap: { over(socket: Socket): boolean },
  bodyLimit: number,
): ApiError | undefined {
  if (cap.over(req.socket)) {
    return apiError(503, 'the server has too many open connections: retry in a moment', {
      code: 'server_busy',
      headers: { 'retry-after': '1' },
    });
  }
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > bodyLimit) return tooLarge(bodyLimit);
  return undefined;
}

/** A request the adapter could not turn into a `Request`: a 400 in the API's shape. */
function unreadable(err: unknown): Response {
  const e =
    err instanceof RequestError
      ? apiError(400, `unreadable request: ${err.message}`, { code: 'bad_request' })
      : apiError(500, 'internal error', { code: 'internal_error' });
  return Response.json(e.toBody(), { status: e.status });
}

export interface RunningServer {
  url: string;
  host: string;
  port: number;
  tea: TeaApp;
  close(): Promise<void>;
}

export async function startServer(
  deps: ServerDeps,
  opts: { host: string; port: number },
): Promise<RunningServer> {
  const tea = createTeaApp(deps);
  const listener = getRequestListener(tea.app.fetch, { errorHandler: unreadable });
  const bodyLimit = deps.bodyLimitBytes ?? DEFAULT_BODY_LIMIT;
  const server = createServer(serverOptions(deps));
  const cap = capConnections(server, deps.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
  answerClientErrors(server);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // The Host check comes first, before the adapter parses the name (a malformed one
    // would otherwise get a bare 400), and missing Host is ours to answer (Node's own reply is bare).
    const problem = hostProblem(tea.hosts, req.headers.host) ?? connectionProblem(req, cap, bodyLimit);
    if (problem) return answerAndClose(req, res, problem);
    closeIfEarly(req, res);
    listener(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // A deep accept queue: a burst of a thousand clients must not be reset.
    server.listen({ port: opts.port, host: opts.host, backlog: 4096 }, () => {
      server.off('error', reject);
      // Before any connection is read: the real port (for --port 0) is part of every allowed Host.
      tea.hosts.bind(opts.host, (server.address() as AddressInfo).port);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shown = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${shown}:${port}`,
    host: opts.host,
    port,
    tea,
    async close() {
      await Promise.all([tea.live.closeAll(), tea.runs.closeAll()]);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
