/**
 * The Responses API: `POST /v1/responses` (whole or streamed) and
 * `GET /v1/responses/{id}`. A response is one agent turn in a Tea session, the agent
 * running its own tools as on chat completions (approvals denied: nobody can answer
 * them here); `previous_response_id` continues the session (responses-session.ts).
 * The client's function tools are offered beside Tea's: a turn that calls one ends
 * with `function_call` items, and the client's `function_call_output` items continue
 * that same turn (responses-tools.ts). `text.format` (json_schema, json_object) checks
 * the final answer as chat completions' `response_format` does (responses-format.ts). A
 * conversation resent whole continues its session (responses-conversation.ts).
 */
import type { Context } from 'hono';
import * as z from 'zod';
import type { AgentEvent } from '../agent/events.js';
import { whileAborted } from './abort.js';
import { requestAgent, turnEvents } from './api-session.js';
import { continuedAt, notingFailure, retryAt } from './chat-conversation.js';
import { type ApiError, apiError } from './errors.js';
import { IdleSessions } from './idle-sessions.js';
import { tracked } from './openai.js';
import { earlierItems, inputItems, itemsHash } from './responses-conversation.js';
import { ResponseBuilder } from './responses-events.js';
import { readResponsesRequest, responsesRequest, toResponsesInput } from './responses-request.js';
import { lastMessageId, responseId, responseSession } from './responses-session.js';
import { responsesClientTurn } from './responses-tools.js';
import { type AppContext, doc } from './routes.js';
import { openSse } from './sse.js';
import { answered, INTERNAL, turnFailure } from './turn-errors.js';
import { readJson } from './validate.js';

type Json = Record<string, unknown>;

/** Whole responses kept for `GET /v1/responses/{id}` (the newest; in memory). */
const KEPT_RESPONSES = 256;

/** Keeps the newest `max` entries. */
function remember<V>(map: Map<string, V>, key: string, value: V, max = KEPT_RESPONSES): void {
  map.delete(key);
  map.set(key, value);
  while (map.size > max) map.delete(map.keys().next().value as string);
}

export function responsesRoutes(ctx: AppContext): void {
  const { app, deps } = ctx;
  const idle = new IdleSessions();
  /** Response id → the last message of its turn (where a follow-up continues). */
  const ends = new Map<string, number>();
  const kept = new Map<string, Json>();

  doc(ctx, {
    method: 'post',
    path: '/v1/responses',
    summary:
      'OpenAI Responses API: one agent turn (the agent runs its own tools; function tools of the client end it with function_call items, and function_call_output items continue it); previous_response_id continues the Tea session',
    tag: 'openai',
    body: responsesRequest,
  });
  app.post('/v1/responses', async (c) => {
    const raw = await readJson(c, z.record(z.string(), z.unknown()));
    // The model first: a client's default model (e.g. the Agents SDK's) sends settings for
    // that model, and "set model" is the fix to tell, not the settings Tea does not take.
    if (typeof raw.model === 'string' && raw.profile == null && raw.config_path == null)
      await deps.agents.resolve(raw.model, 'model');
    const body = readResponsesRequest(raw);
    const turn = toResponsesInput(body.input);
    const agent = await requestAgent(ctx, { ...body, model: body.model ?? undefined });
    const client = await responsesClientTurn(body.client, body.text.responseFormat, agent, {
      ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
      ...(body.max_output_tokens ? { maxOutputTokens: body.max_output_tokens } : {}),
    });
    // A conversation resent whole (no previous_response_id or session_id) continues the session it was answered in.
    // The same request again after its turn failed runs that turn again there.
    const whole = !body.previous_response_id && !body.session_id;
    const resent = whole && body.store !== false && !turn.toolResults;
    const sent = resent ? await itemsHash(inputItems(body.input)) : '';
    const where = { ifBusy: body.if_busy, signal: c.req.raw.signal, param: 'input' };
    const retried = resent ? await retryAt(ctx, idle, agent, sent, where) : undefined;
    const earlier = resent && !retried ? earlierItems(body.input) : undefined;
    const continued =
      retried ?? (earlier && (await continuedAt(ctx, idle, agent, await itemsHash(earlier), where)));
    const opened = continued
      ? { ...continued, temporary: false }
      : await responseSession(ctx, idle, agent, body, turn, ends, c.req.raw.signal);
    const { session } = opened;
    c.header('x-tea-session-id', session.id);
    let id: string;
    try {
      id = responseId({ sessionId: session.id, before: lastMessageId(ctx, session.id) });
    } catch (e) {
      opened.release(); // the turn never starts: nothing else ends the claim
      throw e;
    }
    const builder = new ResponseBuilder(
      {
        id,
        model: body.model ?? 'tea',
        created_at: Math.floor(Date.now() / 1000),
        instructions: body.instructions ?? null,
        previous_response_id: body.previous_response_id ?? null,
        store: body.store !== false,
        metadata: body.metadata ?? {},
        session_id: session.id,
        tools: body.client.functions,
        tool_choice: body.tool_choice ?? 'auto',
        parallel_tool_calls: body.parallel_tool_calls ?? true,
        text: body.text.echo,
        temperature: body.temperature ?? null,
        top_p: body.top_p ?? null,
        max_output_tokens: body.max_output_tokens ?? null,
      },
      { progress: body.tea_progress === true, holdText: client?.responseFormat !== undefined },
    );
    const abort = new AbortController();
    const opts = {
      signal: abort.signal,
      ...(body.instructions ? { instructions: body.instructions } : {}),
      ...(opened.temporary ? { ephemeral: true } : {}),
      ...(client ? { client } : {}),
      ...(turn.toolResults
        ? { toolResults: turn.toolResults.map(({ callId, output }) => ({ callId, output })) }
        : {}),
    };
    const run = retried
      ? session.retry({ ...opts, probe: false })
      : session.prompt(turn.input, { ...opts, ...(turn.images.length ? { images: turn.images } : {}) });
    // store: false: the session goes before the answer does (after its turn's background work).
    let cleanup: Promise<void> = Promise.resolve();
    const after = (): void => {
      // A store: false turn that waits for function call outputs keeps its session until they come.
      const waiting = opened.temporary && deps.sessions.clientCalls(session.id) !== undefined;
      if (!opened.temporary || waiting) {
        remember(ends, id, lastMessageId(ctx, session.id), KEPT_RESPONSES * 8);
        return;
      }
      idle.drop(session.id);
      cleanup = session
        .settled()
        .catch(() => undefined)
        .then(() => {
          deps.sessions.delete(session.id);
        });
    };
    const finished = async (response: Json): Promise<void> => {
      await cleanup;
      if (opened.temporary) return;
      remember(kept, id, response);
      // The client now holds its input and this output: what a resent conversation continues from.
      if (whole && (response.status === 'completed' || response.status === 'incomplete')) {
        const held = [...inputItems(body.input), ...(response.output as Json[])];
        deps.sessions.setConversation(session.id, await itemsHash(held));
      }
    };
    const ran = turnEvents(ctx, idle, opened, run, abort, after);
    const events = resent ? notingFailure(ctx, session, ran, sent) : ran;
    if (body.stream) return streamResponse(c, ctx, { builder, events, abort, finished });
    return whileAborted(
      c.req.raw.signal,
      () => abort.abort(),
      () => tracked(ctx.stats, () => wholeResponse(c, builder, events, finished)),
    );
  });

  doc(ctx, {
    method: 'get',
    path: '/v1/responses/:id',
    summary: 'A stored response (the newest 256 this server made; store: false ones are not kept)',
    tag: 'openai',
  });
  app.get('/v1/responses/:id', (c) => {
    const id = c.req.param('id');
    const found = kept.get(id);
    if (!found) {
      throw apiError(
        404,
        `Response with id '${id}' not found: this server keeps the newest ${KEPT_RESPONSES} stored responses in memory until it restarts (the conversation stays in its session: x-tea-session-id)`,
        { param: 'id', code: 'response_not_found' },
      );
    }
    return c.json(found);
  });
}

/** The first error of the turn, and its `done`. */
interface Outcome {
  done: Extract<AgentEvent, { type: 'done' }> | undefined;
  error: Extract<AgentEvent, { type: 'error' }> | undefined;
}

function note(outcome: Outcome, e: AgentEvent): void {
  if (e.type === 'done') outcome.done = e;
  else if (e.type === 'error') outcome.error ??= e;
}

/** The turn's failure (none: it was answered), as `text.format` names it. */
function failure({ done, error }: Outcome, sessionId: string): ApiError | undefined {
  return answered(done) ? undefined : turnFailure(error, done, sessionId, 'text.format');
}

async function wholeResponse(
  c: Context,
  builder: ResponseBuilder,
  events: AsyncGenerator<AgentEvent>,
  finished: (response: Json) => Promise<void>,
): Promise<Response> {
  const outcome: Outcome = { done: undefined, error: undefined };
  for await (const e of events) {
    builder.push(e);
    note(outcome, e);
  }
  const failed = failure(outcome, builder.meta.session_id);
  if (failed) throw failed;
  builder.finish(outcome.done, undefined);
  const response = builder.response();
  await finished(response);
  return c.json(response);
}

interface StreamJob {
  builder: ResponseBuilder;
  events: AsyncGenerator<AgentEvent>;
  abort: AbortController;
  finished: (response: Json) => Promise<void>;
}

function streamResponse(c: Context, ctx: AppContext, job: StreamJob): Response {
  const { builder, events, abort } = job;
  const sink = openSse(c, () => abort.abort(), { keepAliveMs: ctx.deps.pingIntervalMs });
  const send = async (list: Json[]): Promise<void> => {
    for (const e of list) {
      if (!sink.write(`event: ${e.type as string}\ndata: ${JSON.stringify(e)}\n\n`)) await sink.ready();
    }
  };
  const run = async (): Promise<void> => {
    await send(builder.start());
    const outcome: Outcome = { done: undefined, error: undefined };
    try {
      for await (const e of events) {
        note(outcome, e);
        await send(builder.push(e));
      }
    } catch (e) {
      outcome.error ??= {
        type: 'error',
        kind: INTERNAL,
        message: e instanceof Error ? e.message : String(e),
      };
    }
    const last = builder.finish(outcome.done, failure(outcome, builder.meta.session_id)?.toBody().error);
    await job.finished(builder.response());
    await send(last);
  };
  // run() reports the turn's failures in the stream; the catch only keeps a bug from
  // becoming an unhandled rejection (the client then sees the stream end early).
  void tracked(ctx.stats, run)
    .catch(() => undefined)
    .finally(() => sink.end());
  return sink.response;
}
