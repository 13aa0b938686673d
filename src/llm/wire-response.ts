/**
 * The `node:http` side of a model call: which module and keep-alive pool serve a
 * URL, and a small response type over `http.IncomingMessage`. Error mapping lives
 * in `http.ts`; nothing here knows about `LlmError`.
 */
import type http from 'node:http';
import type { IncomingMessage } from 'node:http';

/** Case-insensitive header lookup; fetch's `Headers` fits too. */
export interface HeaderLookup {
  get(name: string): string | null;
}

/** A response whose headers have arrived; the body is read on demand. */
export interface WireResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HeaderLookup;
  /** The next chunk of the body, or null at its clean end; rejects when the connection fails. */
  read(): Promise<Buffer | null>;
  /** The rest of the body as UTF-8 text. */
  text(): Promise<string>;
  /** Stops reading and closes the connection, so it is never reused. */
  destroy(): void;
  /**
   * The caller has all it needs: the rest of the body is drained so the connection
   * can go back to the keep-alive pool, or closed if the body does not end within `graceMs`.
   */
  release(graceMs?: number): void;
}

/** How long a released body may take to end before its connection is closed. */
export const RELEASE_GRACE_MS = 1000;

/** Sends requests for one protocol through one shared keep-alive pool. */
export interface Transport {
  protocol: 'http:' | 'https:';
  request(url: URL, options: http.RequestOptions): http.ClientRequest;
  agent: http.Agent;
}

/**
 * Idle connections kept per host. Node's default (256) is far below the streams a
 * busy server runs at once, so after each burst most connections would be closed
 * and opened again; idle ones still close when the model server times them out.
 */
const MAX_FREE_SOCKETS = 2048;

// Each module is loaded on the first call of its protocol: `node:https` pulls in
// TLS, and commands that never call a model (`tea memory`, `tea sessions`) start
// without `node:http` and its streams and sockets (~4 ms).
let httpTransport: Promise<Transport> | undefined;
let httpsTransport: Promise<Transport> | undefined;

async function loadHttp(): Promise<Transport> {
  const { default: http } = await import('node:http');
  return {
    protocol: 'http:',
    request: (url, options) => http.request(url, options),
    agent: new http.Agent({ keepAlive: true, maxFreeSockets: MAX_FREE_SOCKETS }),
  };
}

async function loadHttps(): Promise<Transport> {
  const { default: https } = await import('node:https');
  return {
    protocol: 'https:',
    request: (url, options) => https.request(url, options),
    agent: new https.Agent({ keepAlive: true, maxFreeSockets: MAX_FREE_SOCKETS }),
  };
}

/** The transport for a URL's protocol, or undefined when it is neither http nor https. */
export async function transportFor(url: URL): Promise<Transport | undefined> {
  if (url.protocol === 'http:') {
    httpTransport ??= loadHttp();
    return httpTransport;
  }
  if (url.protocol === 'https:') {
    httpsTransport ??= loadHttps();
    return httpsTransport;
  }
  return undefined;
}

/** The error for a body whose connection closed before the body ended. */
function closedEarly(): Error {
  return Object.assign(new Error('the connection closed before the response ended'), { code: 'ECONNRESET' });
}

/** Node reports a cut connection as a bare "aborted"; say what happened instead. */
function bodyError(err: Error): Error {
  return err.message === 'aborted' ? closedEarly() : err;
}

interface Waiter {
  resolve(chunk: Buffer | null): void;
  reject(err: Error): void;
}

/**
 * `WireResponse` over a Node response. The body is read in paused mode: nothing
 * is read before the first `read()`, then at most the stream's buffer ahead; each
 * `read()` takes everything buffered so far in one piece, so bytes that arrived
 * together are handled together.
 */
export class NodeWireResponse implements WireResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HeaderLookup;
  private waiter: Waiter | undefined;
  private listening = false;

  constructor(private readonly message: IncomingMessage) {
    this.status = message.statusCode ?? 0;
    this.statusText = message.statusMessage ?? '';
    this.headers = {
      get: (name: string): string | null => {
        const value = message.headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(', ') : value;
      },
    };
    // Failures surface through read(); without a listener a late one would crash the process.
    message.on('error', () => {});
  }

  read(): Promise<Buffer | null> {
    const message = this.message;
    if (!this.listening) this.listen();
    const chunk: Buffer | null = message.read();
    if (chunk !== null) return Promise.resolve(chunk);
    if (message.readableEnded) return Promise.resolve(null);
    if (message.errored) return Promise.reject(bodyError(message.errored));
    if (message.destroyed) return Promise.reject(closedEarly());
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  /** Listens for the whole body once, instead of once per chunk. */
  private listen(): void {
    this.listening = true;
    const message = this.message;
    const settle = (): Waiter | undefined => {
      const waiter = this.waiter;
      this.waiter = undefined;
      return waiter;
    };
    message.on('readable', () => {
      if (this.waiter === undefined) return;
      const chunk: Buffer | null = message.read();
      if (chunk !== null) settle()?.resolve(chunk);
    });
    message.on('end', () => settle()?.resolve(null));
    message.on('error', (err: Error) => settle()?.reject(bodyError(err)));
    message.on('close', () => {
      if (message.readableEnded) settle()?.resolve(null);
      else settle()?.reject(message.errored ? bodyError(message.errored) : closedEarly());
    });
  }

  /** Stops reading in paused mode, so `resume()` lets the rest of the body flow. */
  private stopListening(): void {
    this.message.removeAllListeners('readable');
  }

  async text(): Promise<string> {
    const chunks: Buffer[] = [];
    for (let chunk = await this.read(); chunk !== null; chunk = await this.read()) chunks.push(chunk);
    return Buffer.concat(chunks).toString('utf8');
  }

  destroy(): void {
    this.message.destroy();
  }

  release(graceMs: number = RELEASE_GRACE_MS): void {
    const message = this.message;
    if (message.readableEnded || message.destroyed) return;
    const timer = setTimeout(() => message.destroy(), graceMs);
    timer.unref();
    const stop = (): void => clearTimeout(timer);
    message.once('end', stop);
    message.once('close', stop);
    // A drain in progress must not keep the process alive; the pool refs a socket it reuses.
    message.socket?.unref();
    this.stopListening();
    message.resume();
  }
}
