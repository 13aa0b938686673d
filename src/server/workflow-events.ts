/**
 * `GET /v1/workflow-runs/{id}/events`: a run's events (and its sub-runs') as they
 * happen, as server-sent events named by their type. It opens with `status` (the
 * run's status now); a run that is not running ends there. Otherwise the stream
 * follows until the run ends or waits (`run_end`), with `: ping` comments to keep
 * proxies open. An agent node's events come as `agent` events whose `event` is the
 * agent's, flattened like the session stream: a sub-agent's event is the event itself
 * with `parent`. A run executed by another process sends no node events here; the
 * stream ends with a last `status` once that run stops.
 */
import { streamSSE } from 'hono/streaming';
import type { WorkflowEvent } from '../multi/workflow/index.js';
import { flatEvent } from '../runtime/subagents.js';
import { Channel } from '../util/channel.js';
import { type AppContext, doc } from './routes.js';
import { mapped } from './workflow-views.js';

/** A client that stops reading while this many events wait is dropped (it reconnects and reloads the run). */
const MAX_QUEUED = 10_000;

/** The event as sent: an agent node's sub-agent events flattened with `parent`. */
function wire(e: WorkflowEvent): unknown {
  return e.type === 'agent' ? { ...e, event: flatEvent(e.event) } : e;
}

export function workflowEventRoutes(ctx: AppContext): void {
  const { app, deps, runs } = ctx;
  doc(ctx, {
    method: 'get',
    path: '/v1/workflow-runs/:id/events',
    summary:
      "A run's events (SSE) until it ends or waits: first `status`, then run_start, node_start, node_end, checkpoint, agent (an agent node's events, a sub-agent's with `parent`), approval_request, timer, run_end. A run not running sends only `status`",
    tag: 'workflows',
    produces: 'text/event-stream',
  });
  app.get('/v1/workflow-runs/:id/events', async (c) => {
    const wf = await runs.service();
    const runId = (await mapped(() => wf.get(c.req.param('id')))).run.id;
    // The ping also looks at a run another process executes: it never stops (0 is the default).
    const pingMs = deps.pingIntervalMs || 15_000;
    c.header('cache-control', 'no-cache');
    c.header('x-accel-buffering', 'no');
    return streamSSE(c, async (stream) => {
      const stop = new AbortController();
      const end = (): void => stop.abort();
      // Subscribed before the status is read: nothing that happens after it is missed.
      const events = wf.events(runId, stop.signal);
      const queue = new Channel<WorkflowEvent>();
      let queued = 0;
      let ended = false;
      const pump = (async () => {
        for await (const e of events) {
          if (e.type === 'run_end' && e.runId === runId) ended = true;
          if (++queued > MAX_QUEUED) end();
          else queue.push(e);
        }
        queue.close();
      })();
      const status = async (): Promise<string> => (await wf.get(runId)).status;
      const sendStatus = async (): Promise<void> => {
        const now = await status();
        await stream.writeSSE({
          event: 'status',
          data: JSON.stringify({ type: 'status', runId, status: now }),
        });
      };
      stream.onAbort(end);
      c.req.raw.signal.addEventListener('abort', end, { once: true });
      // A run another process executes (or that was taken over) ends without an event here: look at each ping.
      const ping = setInterval(() => {
        stream.write(': ping\n\n').catch(end);
        if (runs.runsHere(runId)) return;
        status()
          .then((s) => {
            if (s !== 'running') end();
          })
          .catch(end);
      }, pingMs);
      try {
        await stream.write(': connected\n\n');
        const first = await status();
        await stream.writeSSE({
          event: 'status',
          data: JSON.stringify({ type: 'status', runId, status: first }),
        });
        if (first !== 'running') return;
        for await (const e of queue) {
          queued--;
          if (stream.aborted) break;
          await stream.writeSSE({ event: e.type, data: JSON.stringify(wire(e)) });
        }
        // Stopped without its run_end (it ran elsewhere): the last word is its status.
        if (!ended && !stream.aborted) await sendStatus();
      } finally {
        clearInterval(ping);
        c.req.raw.signal.removeEventListener('abort', end);
        end();
        await pump;
      }
    });
  });
}
