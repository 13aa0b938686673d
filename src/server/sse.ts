/**
 * `GET /v1/sessions/{id}/events`: the session's events as server-sent events,
 * replaying kept events after `Last-Event-ID` (or `?after=`) and then following
 * live ones, with a `: ping` comment at an interval to keep proxies open.
 */
import { streamSSE } from 'hono/streaming';
import * as z from 'zod';
import { Channel } from '../agent/channel.js';
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
    summary: 'Session events (SSE), resumable with Last-Event-ID',
    tag: 'sessions',
    query: eventsQuery,
    produces: 'text/event-stream',
  });
  app.get('/v1/sessions/:id/events', async (c) => {
    const parsed = eventsQuery.safeParse(c.req.query());
    if (!parsed.success)
      throw apiError(400, 'after must be a non-negative integer', { param: 'after', code: 'invalid_value' });
    const after = lastEventId(c.req.header('last-event-id')) ?? parsed.data.after ?? 0;
    const session = await live.open(c.req.param('id'));
    const pingMs = deps.pingIntervalMs ?? 15_000;
    c.header('cache-control', 'no-cache');
    c.header('x-accel-buffering', 'no');
    return streamSSE(c, async (stream) => {
      const queue = new Channel<HubEvent>();
      const { backlog, stop } = session.hub.follow(after, (e) => queue.push(e));
      const end = (): void => {
        stop();
        queue.close();
      };
      stream.onAbort(end);
      c.req.raw.signal.addEventListener('abort', end, { once: true });
      const ping = setInterval(() => {
        stream.write(': ping\n\n').catch(end);
      }, pingMs);
      const send = (e: HubEvent) =>
        stream.writeSSE({ id: String(e.seq), event: e.event.type, data: JSON.stringify(e.event) });
      try {
        await stream.write(': connected\n\n');
        for (const e of backlog) await send(e);
        for await (const e of queue) {
          if (stream.aborted) break;
          await send(e);
        }
      } finally {
        clearInterval(ping);
        end();
      }
    });
  });
}
