/**
 * A fake model that speaks the real wire over real HTTP on 127.0.0.1.
 * Replies are queued with `script(...)` and served in order to any request on
 * either wire: OpenAI chat completions (`/v1/chat/completions`) or Anthropic
 * messages (`/v1/messages`). Every request is recorded for assertions.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicEvents, anthropicMessage } from './render-anthropic.js';
import { openaiChunks, openaiCompletion } from './render-openai.js';
import type { Reply, ReplyBuilder } from './script.js';

export type Wire = 'openai' | 'anthropic';

export interface RecordedRequest {
  wire: Wire;
  method: string;
  path: string;
  /** Lower-case header names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  /** The parsed JSON body (`{}` for a request without one). */
  body: Record<string, unknown>;
  /** `Date.now()` when the request body had arrived. */
  at: number;
}

export interface ModelServer {
  url: string;
  /** `${url}/v1`: POST /v1/chat/completions, GET /v1/models. */
  openaiBaseUrl: string;
  /** `${url}`: the Anthropic adapter appends /v1/messages. */
  anthropicBaseUrl: string;
  script(...replies: Array<Reply | ReplyBuilder>): void;
  /**
   * Builds a reply from the request body whenever no scripted reply is queued
   * (a model that answers by rule, e.g. a judge playing from labels). `undefined` clears it.
   */
  respond(responder: ((body: Record<string, unknown>) => Reply | ReplyBuilder) | undefined): void;
  requests: RecordedRequest[];
  /** Resolves once `count` requests have arrived (an explicit signal instead of a poll). */
  waitForRequests(count: number): Promise<void>;
  /**
   * Resolves once the client has gone away from `count` responses before they ended
   * (a cancelled stream: the client closed the connection).
   */
  waitForHangUps(count: number): Promise<void>;
  /** Lets the replies held with `holdUntil(gate)` go on (now, or as soon as they arrive). */
  release(gate: string): void;
  pending(): number;
  reset(): void;
  close(): Promise<void>;
}

export const NO_REPLY_MESSAGE = 'model-server: no scripted reply left';

function toReply(r: Reply | ReplyBuilder): Reply {
  return 'build' in r ? r.build() : r;
}

function flatHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

function wireOf(method: string, path: string): Wire | 'models' | undefined {
  if (method === 'GET' && path.endsWith('/models')) return 'models';
  if (method !== 'POST') return undefined;
  if (path.endsWith('/chat/completions')) return 'openai';
  if (path.endsWith('/v1/messages')) return 'anthropic';
  return undefined;
}

function errorBody(wire: Wire, status: number, message: string): Record<string, unknown> {
  if (wire === 'anthropic') {
    const type = status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
    return { type: 'error', error: { type, message } };
  }
  return { error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', code: status } };
}

export async function startModelServer(): Promise<ModelServer> {
  const queue: Reply[] = [];
  const requests: RecordedRequest[] = [];
  let responder: ((body: Record<string, unknown>) => Reply | ReplyBuilder) | undefined;
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const opened = new Set<string>();
  const held = new Map<string, Array<() => void>>();
  let hangUps = 0;
  const hangUpWaiters: Array<{ count: number; resolve: () => void }> = [];
  const noteHangUp = (): void => {
    hangUps++;
    for (const w of [...hangUpWaiters]) {
      if (hangUps < w.count) continue;
      hangUpWaiters.splice(hangUpWaiters.indexOf(w), 1);
      w.resolve();
    }
  };
  const noteRequest = (): void => {
    for (const w of [...waiters]) {
      if (requests.length < w.count) continue;
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  };
  /** Resolves when `gate` is released (true), or early (false) when the client went away or the server closed. */
  const gateOpen = (gate: string, res: ServerResponse): Promise<boolean> =>
    new Promise((resolve) => {
      if (opened.has(gate)) {
        resolve(true);
        return;
      }
      const onClose = (): void => resolve(false);
      res.once('close', onClose);
      held.set(gate, [
        ...(held.get(gate) ?? []),
        () => {
          res.off('close', onClose);
          resolve(!closed);
        },
      ]);
    });

  /** Resolves after `ms`, or early (false) when the client went away or the server closed. */
  const sleep = (ms: number, res: ServerResponse): Promise<boolean> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        res.off('close', onClose);
        resolve(!closed);
      }, ms);
      const onClose = (): void => {
        clearTimeout(timer);
        timers.delete(timer);
        resolve(false);
      };
      timers.add(timer);
      res.once('close', onClose);
    });

  const write = (res: ServerResponse, chunk: string): Promise<void> =>
    new Promise((resolve) => {
      res.write(chunk, () => resolve());
    });

  async function serveStream(res: ServerResponse, r: Reply, events: string[]): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    if (r.gate !== undefined && !(await gateOpen(r.gate, res))) return;
    for (let i = 0; i <= events.length; i++) {
      if (r.stallAfter === i) return; // leave the stream open, silent
      if (r.cutAfter === i) {
        res.socket?.destroy();
        return;
      }
      const chunk = events[i];
      if (chunk === undefined) break;
      if (i > 0 && r.chunkDelayMs > 0 && !(await sleep(r.chunkDelayMs, res))) return;
      if (res.destroyed || closed) return;
      await write(res, chunk);
    }
    res.end();
  }

  function serveWhole(res: ServerResponse, r: Reply, body: unknown): void {
    if (r.stallAfter !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      return;
    }
    if (r.cutAfter !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      res.socket?.destroy();
      return;
    }
    sendJson(res, 200, body);
  }

  async function serve(wire: Wire, body: Record<string, unknown>, res: ServerResponse): Promise<void> {
    const queued = queue.shift();
    const r = queued ?? (responder ? toReply(responder(body)) : undefined);
    if (!r) {
      sendJson(res, 500, errorBody(wire, 500, NO_REPLY_MESSAGE));
      return;
    }
    if (r.error) {
      const headers: Record<string, string> = {};
      if (r.error.retryAfter !== undefined) headers['retry-after'] = String(r.error.retryAfter);
      if (r.error.retryAfterMs !== undefined) headers['retry-after-ms'] = String(r.error.retryAfterMs);
      const message = r.error.message ?? `scripted error ${r.error.status}`;
      sendJson(res, r.error.status, errorBody(wire, r.error.status, message), headers);
      return;
    }
    if (r.hang) return; // never answer; close() or the client ends it
    const model = typeof body.model === 'string' ? body.model : 'scripted-model';
    if (body.stream !== true) {
      serveWhole(res, r, wire === 'openai' ? openaiCompletion(r, model) : anthropicMessage(r, model));
      return;
    }
    await serveStream(res, r, wire === 'openai' ? openaiChunks(r, model) : anthropicEvents(r, model));
  }

  const server = createServer((req, res) => {
    res.once('close', () => {
      if (!res.writableEnded && !closed) noteHangUp();
    });
    void (async () => {
      const method = req.method ?? 'GET';
      const path = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
      const text = await readBody(req);
      const wire = wireOf(method, path);
      if (wire === undefined) {
        sendJson(res, 404, { error: { message: `model-server: unknown route ${method} ${path}` } });
        return;
      }
      let body: Record<string, unknown> = {};
      if (text.trim() !== '') {
        try {
          const parsed: unknown = JSON.parse(text);
          if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
            throw new Error('not an object');
          body = parsed as Record<string, unknown>;
        } catch {
          sendJson(res, 400, { error: { message: 'model-server: request body is not a JSON object' } });
          return;
        }
      }
      const recordedWire: Wire = wire === 'models' ? 'openai' : wire;
      requests.push({ wire: recordedWire, method, path, headers: flatHeaders(req), body, at: Date.now() });
      noteRequest();
      if (wire === 'models') {
        sendJson(res, 200, {
          object: 'list',
          data: [{ id: 'scripted-model', object: 'model', owned_by: 'tea' }],
        });
        return;
      }
      await serve(wire, body, res);
    })().catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `model-server: ${String(err)}` } });
      else res.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    requests,
    waitForRequests(count) {
      if (requests.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    waitForHangUps(count) {
      if (hangUps >= count) return Promise.resolve();
      return new Promise((resolve) => hangUpWaiters.push({ count, resolve }));
    },
    release(gate) {
      opened.add(gate);
      for (const go of held.get(gate) ?? []) go();
      held.delete(gate);
    },
    script(...replies) {
      for (const r of replies) queue.push(toReply(r));
    },
    respond(next) {
      responder = next;
    },
    pending: () => queue.length,
    reset() {
      queue.length = 0;
      requests.length = 0;
      hangUps = 0;
      responder = undefined;
      opened.clear();
    },
    close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
