/**
 * Server-sent events: `openSse`, a lean event-stream response body for hot routes,
 * and `GET /v1/sessions/{id}/events`: the session's events, replaying kept events
 * after `Last-Event-ID` (or `?after=`) and then following live ones, with a
 * `: ping` comment at an interval to keep proxies open. A new connection (no
 * Last-Event-ID) first gets the approval requests and questions still waiting.
 */
import type { Context } from 'hono';
import { streamSSE } from 'hono/streaming';
import * as z from 'zod';
import { flatEvent } from '../runtime/subagents.js';
import { Channel } from '../util/channel.js';
import { apiError } from './errors.js';
import type { HubEvent } from './events.js';
import { type AppContext, doc } from './routes.js';

const eventsQuery = z.object({
  after: z.coerce.number().int().min(0).optional(),
  token: z.string().optional(),
});

function lastEventId(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const n = Number(header.trim());
  if (!Number.isInteger(n) || n < 0) {
    throw apiError(400, `Last-Event-ID must be a non-negative integer, got ${JSON.stringify(header)}`, {
      param: 'Last-Event-ID',
      code: 'invalid_value',
    });
  }
  return n;
}

export function eventRoutes(ctx: AppContext): void {
  const { app, deps, live } = ctx;
  doc(ctx, {
    method: 'get',
    path: '/v1/sessions/:id/events',
    summary:
      "Session events (SSE), resumable with Last-Event-ID; a new connection first gets the approval requests and questions still waiting. A sub-agent's events come as its own events with `parent` ({ callId, sessionId, label, role, depth }); its approval requests and questions carry `agent` and are answered on this session",
    tag: 'sessions',
    query: eventsQuery,
    produces: 'text/event-stream',
  });
  app.get('/v1/sessions/:id/events', async (c) => {
    const parsed = eventsQuery.safeParse(c.req.query());
    if (!parsed.success)
      throw apiError(400, 'after must be a non-negative integer', { param: 'after', code: 'invalid_value' });
    const resumed = lastEventId(c.req.header('last-event-id'));
    const after = resumed ?? parsed.data.after ?? 0;
    const session = await live.open(c.req.param('id'));
    const pingMs = deps.pingIntervalMs ?? 15_000;
    c.header('cache-control', 'no-cache');
    c.header('x-accel-buffering', 'no');
    return streamSSE(c, async (stream) => {
      const queue = new Channel<HubEvent>();
      // Events the client missed and the buffer no longer holds: it must reload.
      const gap = session.hub.gapAfter(after, resumed !== undefined);
      const from = gap?.reason === 'restarted' ? 0 : after;
      // A client that stops reading while events keep coming would queue them without
      // end: past the hub's capacity (at least 256) it stops following, and its reconnect
      // resumes from its Last-Event-ID (with a gap event if the hub moved on meanwhile).
      let queued = 0;
      const most = Math.max(session.hub.capacity, 256);
      const { backlog, stop } = session.hub.follow(from, (e) => {
        if (++queued > most) end();
        else queue.push(e);
      });
      // A new client (not a reconnect: a reloaded page) gets the approval requests and
      // questions still waiting that its backlog lacks first, without an id (they are
      // not news for the Last-Event-ID it resumes from), so it can answer them.
      const sent = new Set(backlog.map((e) => e.seq));
      const waiting = resumed === undefined ? live.waiting(session).filter((a) => !sent.has(a.seq)) : [];
      const end = (): void => {
        stop();
        queue.close();
      };
      stream.onAbort(end);
      c.req.raw.signal.addEventListener('abort', end, { once: true });
      const ping =
        pingMs > 0
          ? setInterval(() => {
              stream.write(': ping\n\n').catch(end);
            }, pingMs)
          : undefined;
      // A sub-agent's event goes out as its own event with `parent` (the child, the call).
      const send = (e: HubEvent) => {
        const event = flatEvent(e.event);
        return stream.writeSSE({ id: String(e.seq), event: event.type, data: JSON.stringify(event) });
      };
      try {
        await stream.write(': connected\n\n');
        if (gap) {
          // The id moves the client past the gap (or back to 0 after a restart).
          const id = gap.last === null ? '0' : String(gap.last);
          await stream.writeSSE({ id, event: 'gap', data: JSON.stringify(gap) });
        }
        for (const { event } of waiting)
          await stream.writeSSE({ event: event.type, data: JSON.stringify(event) });
        for (const e of backlog) await send(e);
        for await (const e of queue) {
          queued--;
          if (stream.aborted) break;
          await send(e);
        }
      } finally {
        clearInterval(ping);
        // The request's signal outlives the request: a listener left on it keeps the stream.
        c.req.raw.signal.removeEventListener('abort', end);
        end();
      }
    });
  });
}

/** An event-stream response body that frames are written to as they are ready. */
export interface SseSink {
  /** The response to return from the route handler. */
  readonly response: Response;
  /** True once the client went away or the body was ended. */
  readonly closed: boolean;
  /**
   * Queues one frame, already formatted (`data: …\n\n`). Returns false when the
   * client is not keeping up: await `ready()` before writing more.
   */
  write(frame: string): boolean;
  /** Resolves when the client has room for more (at once when it has). */
  ready(): Promise<void>;
  /** Ends the body; later writes are dropped. */
  end(): void;
}

/** The comment sent on a silent stream. */
export const KEEP_ALIVE = ': keep-alive\n\n';

/** How often a silent stream gets a keep-alive comment (`tea serve --keep-alive`). */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;

export interface SseOptions {
  /** Interval of keep-alive comments while nothing else is written (default 15 s; 0: none). */
  keepAliveMs?: number | undefined;
}

/** Frames queued beyond this many bytes make `write` ask the writer to wait. */
const SSE_HIGH_WATER_BYTES = 64 * 1024;

/** The shape of `c.env` under `@hono/node-server`, which writes strings to the socket as they are. */
function servedByNode(c: Context): boolean {
  const env: unknown = c.env;
  return typeof env === 'object' && env !== null && 'outgoing' in env;
}

/**
 * Opens an event-stream response. Frames go into one plain `ReadableStream` that
 * the Node adapter writes straight to the socket (strings, no re-encoding, no
 * extra streams in between); frames queued in the same tick leave in one socket
 * write. `onAbort` runs once when the client disconnects before `end()`.
 */
export function openSse(c: Context, onAbort: () => void, opts: SseOptions = {}): SseSink {
  const asText = servedByNode(c);
  const keepAliveMs = opts.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  let wroteSince = false;
  const encoder = asText ? undefined : new TextEncoder();
  let controller: ReadableStreamDefaultController<string | Uint8Array> | undefined;
  let closed = false;
  let waiting: (() => void) | undefined;
  const wake = (): void => {
    const resolve = waiting;
    waiting = undefined;
    resolve?.();
  };
  const body = new ReadableStream<string | Uint8Array>(
    {
      start(ctrl) {
        controller = ctrl;
      },
      pull() {
        wake();
      },
      cancel() {
        if (closed) return;
        closed = true;
        clearInterval(keepAlive);
        wake();
        onAbort();
      },
    },
    { highWaterMark: SSE_HIGH_WATER_BYTES, size: (chunk) => chunk.length },
  );
  // Chunked from the start, so the adapter does not wait for the body to guess a length.
  const response = c.newResponse(body, 200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'transfer-encoding': 'chunked',
  });
  // A stream the turn leaves silent (a tool runs, the model thinks without streaming) gets
  // a comment line now and then: proxies with idle timeouts keep it open, clients ignore it.
  if (keepAliveMs > 0) {
    keepAlive = setInterval(() => {
      if (wroteSince) wroteSince = false;
      else if (!closed && (controller?.desiredSize ?? 1) > 0)
        controller?.enqueue(encoder ? encoder.encode(KEEP_ALIVE) : KEEP_ALIVE);
    }, keepAliveMs);
    keepAlive.unref?.();
  }
  return {
    response,
    get closed() {
      return closed;
    },
    write(frame) {
      if (closed || !controller) return true;
      wroteSince = true;
      controller.enqueue(encoder ? encoder.encode(frame) : frame);
      return (controller.desiredSize ?? 1) > 0;
    },
    ready() {
      if (closed || (controller?.desiredSize ?? 1) > 0) return Promise.resolve();
      return new Promise((resolve) => {
        const previous = waiting;
        waiting = () => {
          previous?.();
          resolve();
        };
      });
    },
    end() {
      if (closed) return;
      closed = true;
      clearInterval(keepAlive);
      wake();
      controller?.close();
    },
  };
}
