/**
 * OpenAI-compatible `POST /v1/chat/completions` and `GET /v1/models`. Each request
 * runs its own session (no global lock); the agent runs its own ReAct loop with
 * its tools, under the server's permission mode with approvals denied (nobody
 * can answer them here). A client that disconnects cancels its turn.
 */

import type { Context } from 'hono';
import type { AgentEvent, StopReason } from '../agent/events.js';
import type { Usage } from '../llm/types.js';
import { randomUUID } from '../util/random-id.js';
import { whileAborted } from './abort.js';
import { openSession, requestAgent, turnEvents } from './api-session.js';
import {
  type AnswerMessage,
  continuedConversation,
  conversationHash,
  noteConversation,
  notingFailure,
  retryAt,
} from './chat-conversation.js';
import { IdleSessions } from './idle-sessions.js';
import { modelRoutes } from './models.js';
import { chatRequest, toChatInput } from './openai-request.js';
import { checkParams, clientTurn, resolveResults, toolCallDeltas, wireToolCalls } from './openai-tools.js';
import { progressOf } from './progress.js';
import { type AppContext, doc, type ServerStats } from './routes.js';
import { openSse, type SseSink } from './sse.js';
import { answered, INTERNAL, turnFailure } from './turn-errors.js';
import { readJson } from './validate.js';

type Json = Record<string, unknown>;

const FINISH: Record<StopReason, string> = {
  completed: 'stop',
  max_iterations: 'length',
  doom_loop: 'stop',
  budget: 'length',
  cancelled: 'stop',
  error: 'stop',
  client_tools: 'tool_calls',
};

/** The turn's usage, its sub-agents' included; `subagents` (a Tea field): their share. */
function usageJson(done: Extract<AgentEvent, { type: 'done' }>): Json {
  const u: Usage = done.usage;
  const sub = done.subagents;
  return {
    prompt_tokens: u.inputTokens,
    completion_tokens: u.outputTokens,
    total_tokens: u.inputTokens + u.outputTokens,
    ...(sub
      ? {
          subagents: {
            count: sub.count,
            prompt_tokens: sub.usage.inputTokens,
            completion_tokens: sub.usage.outputTokens,
            total_tokens: sub.usage.inputTokens + sub.usage.outputTokens,
            cost_usd: sub.costUsd,
          },
        }
      : {}),
  };
}

export function openaiRoutes(ctx: AppContext): void {
  const { app, deps } = ctx;
  const field = deps.reasoningField ?? 'reasoning_content';
  const idle = new IdleSessions();

  modelRoutes(ctx);

  doc(ctx, {
    method: 'post',
    path: '/v1/chat/completions',
    summary: 'OpenAI-compatible chat completions (the agent runs its tools)',
    tag: 'openai',
    body: chatRequest,
  });
  app.post('/v1/chat/completions', async (c) => {
    const read = await readJson(c, chatRequest);
    checkParams(read);
    const chat = toChatInput(read.messages);
    const results = chat.toolResults?.map((r) => ({ ...r, param: `messages.${r.index}.tool_call_id` }));
    // Tool results continue the turn that stopped for them: its session, named or found by the calls.
    const body = results
      ? { ...read, session_id: resolveResults(deps.sessions, results, read.session_id) }
      : read;
    // Everything the request says is checked before a session is opened: a 400 leaves none behind.
    const agent = await requestAgent(ctx, body);
    const client = await clientTurn(body, agent);
    // A conversation resent whole (no session_id) continues the session it was answered in;
    // the same request again after its turn failed runs that turn again there.
    const resent = !body.session_id && !results;
    const sent = resent ? await conversationHash(body.messages) : '';
    const where = { ifBusy: body.if_busy, signal: c.req.raw.signal, param: 'messages' };
    const retried = resent ? await retryAt(ctx, idle, agent, sent, where) : undefined;
    const continued =
      retried ??
      (resent
        ? await continuedConversation(
            ctx,
            idle,
            agent,
            body.messages.slice(0, -1),
            body.if_busy,
            where.signal,
          )
        : undefined);
    const opened = continued ?? (await openSession(ctx, idle, agent, body, chat, c.req.raw.signal));
    const { session } = opened;
    const note = (answer: AnswerMessage): Promise<void> =>
      noteConversation(ctx, session.id, body.messages, answer);
    c.header('x-tea-session-id', session.id);
    const meta = {
      id: `chatcmpl-${randomUUID()}`,
      created: Math.floor(Date.now() / 1000),
      model: body.model ?? 'tea',
    };
    const abort = new AbortController();
    const opts = {
      signal: abort.signal,
      ...(client ? { client } : {}),
      ...(results ? { toolResults: results.map(({ callId, output }) => ({ callId, output })) } : {}),
    };
    // A resend is no user asking again: a model paused by its circuit breaker stays paused.
    const turn = retried
      ? session.retry({ ...opts, probe: false })
      : session.prompt(chat.input, { ...opts, ...(chat.images.length ? { images: chat.images } : {}) });
    const ran = turnEvents(ctx, idle, opened, turn, abort);
    const events = resent ? notingFailure(ctx, session, ran, sent) : ran;
    if (body.stream) {
      const includeUsage = body.stream_options?.include_usage === true;
      // Every chunk names the session (as `session_id` does on a whole response): official
      // clients keep unknown fields of a chunk, but hide the x-tea-session-id header.
      const chunkMeta = { ...meta, session_id: session.id };
      // A checked answer streams once checked: a refused first answer and its repair never reach the client.
      const holdText = client?.responseFormat !== undefined;
      return streamChat(c, {
        events,
        abort,
        meta: chunkMeta,
        field,
        includeUsage,
        progress: body.tea_progress === true,
        keepAliveMs: deps.pingIntervalMs,
        holdText,
        stats: ctx.stats,
        note,
      });
    }
    // A streamed response notices a disconnect through its body; a whole one through the request.
    // The listener goes when the turn ends: the request's signal outlives the request (the
    // fetch Request's finalizer holds it), and a listener on it would keep the turn and its
    // session, history included, for good.
    return whileAborted(
      c.req.raw.signal,
      () => abort.abort(),
      () =>
        tracked(ctx.stats, () =>
          completeChat(c, events, meta, field, session.id, client?.responseFormat !== undefined, note),
        ),
    );
  });
}

/** Counts the turn as running while `run` reads its events. */
export async function tracked<T>(stats: ServerStats, run: () => Promise<T>): Promise<T> {
  stats.chatsRunning += 1;
  stats.chatsTotal += 1;
  try {
    return await run();
  } finally {
    stats.chatsRunning -= 1;
  }
}

interface Meta {
  id: string;
  created: number;
  model: string;
  session_id?: string;
}

async function completeChat(
  c: Context,
  events: AsyncGenerator<AgentEvent>,
  meta: Meta,
  field: string,
  sessionId: string,
  checked: boolean,
  note: (answer: AnswerMessage) => Promise<void>,
): Promise<Response> {
  let thinking = '';
  let error: Extract<AgentEvent, { type: 'error' }> | undefined;
  let done: Extract<AgentEvent, { type: 'done' }> | undefined;
  for await (const e of events) {
    if (e.type === 'thinking_delta') thinking += e.text;
    else if (e.type === 'error') error = e;
    else if (e.type === 'done') done = e;
  }
  if (!answered(done)) throw turnFailure(error, done, sessionId, 'response_format');
  const message: Json = { role: 'assistant', content: done.text };
  if (done.clientCalls) {
    // Under a response format, text beside the calls is not the answer (parse() would read it).
    message.content = (!checked && done.text) || null;
    message.tool_calls = wireToolCalls(done.clientCalls);
  }
  if (thinking) message[field] = thinking;
  await note({
    content: message.content as string | null,
    ...(done.clientCalls ? { tool_calls: wireToolCalls(done.clientCalls) } : {}),
  });
  return c.json({
    ...meta,
    object: 'chat.completion',
    choices: [{ index: 0, message, finish_reason: FINISH[done.reason], logprobs: null }],
    usage: usageJson(done),
    session_id: sessionId,
  });
}

interface StreamJob {
  events: AsyncGenerator<AgentEvent>;
  abort: AbortController;
  meta: Meta;
  field: string;
  includeUsage: boolean;
  /** Tea: tool starts and ends as `delta.tea_progress` (the request asked with `tea_progress: true`). */
  progress: boolean;
  keepAliveMs: number | undefined;
  /** Send the answer whole at the end instead of its deltas (a response format checks it first). */
  holdText: boolean;
  stats: ServerStats;
  /** Notes the conversation as the client holds it after the answer. */
  note: (answer: AnswerMessage) => Promise<void>;
}

/**
 * Streams the turn as chat-completion chunks. Every chunk shares its `id`,
 * `created`, `model` and `object`, so that JSON is rendered once and each frame
 * only adds its delta.
 */
function streamChat(c: Context, job: StreamJob): Response {
  const { events, abort, meta, field, includeUsage } = job;
  const sink: SseSink = openSse(c, () => abort.abort(), { keepAliveMs: job.keepAliveMs });
  const common = JSON.stringify({ ...meta, object: 'chat.completion.chunk' }).slice(0, -1);
  const head = `data: ${common},"choices":[{"index":0,"delta":`;
  const frame = (delta: string, finish: string | null = null): string =>
    `${head}${delta},"finish_reason":${finish === null ? 'null' : JSON.stringify(finish)},"logprobs":null}]}\n\n`;
  const data = (json: Json | string): string =>
    `data: ${typeof json === 'string' ? json : JSON.stringify(json)}\n\n`;
  const send = async (text: string): Promise<void> => {
    if (!sink.write(text)) await sink.ready();
  };

  const run = async (): Promise<void> => {
    await send(frame('{"role":"assistant","content":""}'));
    let wroteText = false;
    let sentText = '';
    let toolSinceText = false;
    let error: Extract<AgentEvent, { type: 'error' }> | undefined;
    let done: Extract<AgentEvent, { type: 'done' }> | undefined;
    // Text of the current model call sent; the reason that call broke off after sending some.
    let callSent = false;
    let broken: string | undefined;
    try {
      for await (const e of events) {
        if (e.type === 'usage') callSent = false;
        else if ((e.type === 'fallback' || (e.type === 'retry' && e.discard)) && callSent && !broken) {
          // Tea would try the call again, but sent text cannot be taken back: the turn stops.
          broken = e.reason;
          abort.abort();
        }
        if (e.type === 'text_delta' && !job.holdText) {
          callSent = true;
          // Text after tool activity is a new paragraph of the same answer.
          const text = wroteText && toolSinceText ? `\n\n${e.text}` : e.text;
          toolSinceText = false;
          wroteText = true;
          sentText += text;
          await send(frame(`{"content":${JSON.stringify(text)}}`));
        } else if (e.type === 'thinking_delta') await send(frame(JSON.stringify({ [field]: e.text })));
        else if (e.type === 'tool_update') {
          toolSinceText = true;
          callSent = false;
          const progress = job.progress ? progressOf(e) : undefined;
          if (progress) await send(frame(JSON.stringify({ tea_progress: progress })));
        } else if (e.type === 'error') error ??= e;
        else if (e.type === 'done') done = e;
      }
    } catch (e) {
      error ??= { type: 'error', kind: INTERNAL, message: e instanceof Error ? e.message : String(e) };
    }
    if (broken) {
      const message = `the model's stream broke off after part of the answer was sent (${broken}); Tea would try again, but sent text cannot be taken back, so the turn stopped: send the request again`;
      await send(data({ error: { message, type: 'server_error', param: null, code: 'model_error' } }));
    } else if (!answered(done)) {
      // The SDKs throw on an error chunk: a failed or cancelled turn is not a finished answer.
      const failure = turnFailure(error, done, String(job.meta.session_id), 'response_format');
      await send(data({ ...failure.toBody() }));
    } else {
      // A prompt a rule answered streams no text: its tool's output is the answer.
      // Under a response format, text beside client calls is not the answer: only the calls go.
      const callsOnly = job.holdText && done.clientCalls !== undefined;
      if (!wroteText && done.text && !callsOnly) {
        sentText = done.text;
        await send(frame(`{"content":${JSON.stringify(done.text)}}`));
      }
      await job.note({
        content: sentText,
        ...(done.clientCalls ? { tool_calls: wireToolCalls(done.clientCalls) } : {}),
      });
      for (const delta of toolCallDeltas(done.clientCalls ?? [])) await send(frame(delta));
      await send(frame('{}', FINISH[done.reason]));
      if (includeUsage)
        await send(data({ ...meta, object: 'chat.completion.chunk', choices: [], usage: usageJson(done) }));
    }
    await send(data('[DONE]'));
  };
  // run() reports the turn's failures in the stream; the catch only keeps a bug from
  // becoming an unhandled rejection (the client then sees the stream end without [DONE]).
  void tracked(job.stats, run)
    .catch(() => undefined)
    .finally(() => sink.end());
  return sink.response;
}
