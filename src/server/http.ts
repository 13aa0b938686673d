/**
 * The connection policy of `tea serve`, below the app: what a client that sends too
 * much, too slowly or on too many connections gets.
 *
 * - Timeouts: the headers must arrive within `headersTimeoutMs` and the whole request
 *   within `requestTimeoutMs` (a slow body is answered 408 and closed).
 * - A connection cap: a request on a connection past `maxConnections` is answered
 *   503 with `retry-after`; past twice the cap, new connections are dropped unread.
 * - Early answers close: a response sent before the request body has fully arrived
 *   (413 for a declared size over the limit, or any error before the body was read)
 *   carries `Connection: close`, and the connection lingers, reading and dropping
 *   what the client still sends, until the client closes it or LINGER_MS pass.
 *   Closing at once would make the kernel reset the connection on the next bytes,
 *   and a reset can destroy the answer before the client has read it.
 */
import type { IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ApiError } from './errors.js';

export const DEFAULT_MAX_CONNECTIONS = 2_000;
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** How long a closing connection keeps draining what the client still sends. */
export const LINGER_MS = 5_000;

export interface ConnectionLimits {
  maxConnections?: number;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
}

/** Options for `http.createServer`: the timeouts, checked often enough to be kept. */
export function serverOptions(limits: ConnectionLimits): ServerOptions {
  const requestTimeout = limits.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const headersTimeout = Math.min(limits.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, requestTimeout);
  return {
    requireHostHeader: false,
    requestTimeout,
    headersTimeout,
    // Node checks the timeouts on this interval (default 30 s, which would double them).
    connectionsCheckingInterval: Math.max(20, Math.min(1_000, Math.floor(headersTimeout / 4))),
  };
}

const lingering = new WeakSet<Socket>();

/** After the response: end our side, keep reading (and dropping) until the client closes. */
function lingerOnClose(socket: Socket): void {
  if (lingering.has(socket)) return;
  lingering.add(socket);
  // Node calls destroySoon() once a `Connection: close` response is sent; destroying
  // now would reset the connection on the client's next bytes.
  socket.destroySoon = function destroySoon(this: Socket) {
    if (this.writable) this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
    this.resume();
  };
}

/** Makes any response sent before the request body has fully arrived close the connection. */
export function closeIfEarly(req: IncomingMessage, res: ServerResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    if (!req.complete && !this.headersSent) {
      this.setHeader('connection', 'close');
      lingerOnClose(req.socket);
    }
    return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
  } as ServerResponse['writeHead'];
}

/** Sends `err` as the JSON answer to this request and closes the connection (lingering). */
export function answerAndClose(req: IncomingMessage, res: ServerResponse, err: ApiError): void {
  const body = JSON.stringify(err.toBody());
  lingerOnClose(req.socket);
  res.writeHead(err.status, {
    ...err.headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}

/**
 * Counts the open connections; `over(socket)` tells whether a connection came
 * past the cap. Past twice the cap Node drops new connections itself.
 */
export function capConnections(server: Server, max: number): { over(socket: Socket): boolean } {
  if (!Number.isInteger(max) || max < 1) throw new Error(`maxConnections must be ≥ 1, got ${max}`);
  const past = new WeakSet<Socket>();
  let open = 0;
  server.maxConnections = max * 2;
  server.on('connection', (socket: Socket) => {
    open++;
    if (open > max) past.add(socket);
    socket.once('close', () => {
      open--;
    });
  });
  return { over: (socket) => past.has(socket) };
}

/** The raw answer to a request Node could not read (timeouts, malformed requests), in the API's shape. */
export function clientErrorAnswer(code: string | undefined): {
  status: number;
  text: string;
  message: string;
} {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return {
      status: 408,
      text: 'Request Timeout',
      message: 'the request did not arrive in time: send the headers and the whole body promptly',
    };
  if (code === 'HPE_HEADER_OVERFLOW')
    return {
      status: 431,
      text: 'Request Header Fields Too Large',
      message: 'the request headers are too large',
    };
  return { status: 400, text: 'Bad Request', message: 'the request is not valid HTTP' };
}

/** Answers Node's client errors (408 for a request that did not arrive in time) as JSON, then closes. */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    const answering = (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) {
      socket.destroy();
      return;
    }
    const { status, text, message } = clientErrorAnswer(err.code);
    const body = JSON.stringify({
      error: {
        message,
        type: 'invalid_request_error',
        param: null,
        code: status === 408 ? 'request_timeout' : 'bad_request',
      },
    });
    socket.end(
      `HTTP/1.1 ${status} ${text}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
    );
    socket.destroySoon();
  });
}
