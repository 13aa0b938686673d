/**
 * The `node:http` side of a model call: which module and keep-alive pool serve a
 * URL, and a small response type over `http.IncomingMessage`. Error mapping lives
 * in `http.ts`; nothing here knows about `LlmError`.
 */
import http, { type IncomingMessage } from 'node:http';

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

const httpTransport: Transport = {
  protocol: 'http:',
  request: (url, options) => http.request(url, options),
  agent: new http.Agent({ keepAlive: true }),
};

// `node:https` pulls in TLS; it is loaded on the first https call only.
let httpsTransport: Promise<Transport> | undefined;

async function loadHttps(): Promise<Transport> {
  const { default: https } = await import('node:https');
  return {
    protocol: 'https:',
    request: (url, options) => https.request(url, options),
    agent: new https.Agent({ keepAlive: true }),
  };
}

/** The transport for a URL's protocol, or undefined when it is neither http nor https. */
export async function transportFor(url: URL): Promise<Transport | undefined> {
  if (url.protocol === 'http:') return httpTransport;
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

/**
 * Resolves with the next chunk of `message` (null at its end), pausing it again
 * afterwards, so nothing is read that nobody asked for.
 */
function nextChunk(message: IncomingMessage): Promise<Buffer | null> {
  if (message.readableEnded) return Promise.resolve(null);
  if (message.errored) return Promise.reject(bodyError(message.errored));
  if (message.destroyed) return Promise.reject(closedEarly());
  return new Promise((resolve, reject) => {
    const settle = (): void => {
      message.pause();
      message.off('data', onData);
      message.off('end', onEnd);
      message.off('error', onError);
      message.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      settle();
      resolve(chunk);
    };
    const onEnd = (): void => {
      settle();
      resolve(null);
    };
    const onError = (err: Error): void => {
      settle();
      reject(bodyError(err));
    };
    const onClose = (): void => {
      settle();
      if (message.readableEnded) resolve(null);
      else reject(message.errored ? bodyError(message.errored) : closedEarly());
    };
    message.on('data', onData);
    message.on('end', onEnd);
    message.on('error', onError);
    message.on('close', onClose);
    message.resume();
  });
}

/** `WireResponse` over a Node response. */
export class NodeWireResponse implements WireResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: HeaderLookup;

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
    return nextChunk(this.message);
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
    message.resume();
  }
}
