import { costUsd } from '../llm/cost.js';
import { LlmError } from '../llm/errors.js';
import type { FinishReason, ImagePart, Message, Part, ToolCallPart } from '../llm/types.js';
import type { ToolCallRecord } from '../store/tool-record.js';
import { activeToolNames, preloadBudget, toolsMentioned } from '../tools/loading.js';
import { headAndTail } from '../util/head-tail.js';
import { yieldToEventLoop } from '../util/yield.js';
import {
  awaitClientCalls,
  type ClientToolResult,
  checkAnswer,
  choiceFor,
  settleClientCalls,
  splitCalls,
} from './client-tools.js';
import { thresholdsFor } from './context.js';
import { DoomLoopDetector } from './doom.js';
import type { AgentEvent, StopReason } from './events.js';
import { loadTools } from './host.js';
import type { ModelUsage } from './record.js';
import { TurnStopped } from './stop.js';
import { executeToolCalls, pendingRecords } from './tool-exec.js';
import type { Turn, TurnState } from './turn.js';

export interface TurnInput {
  text: string;
  images?: ImagePart[];
  /** A retry: the message is the transcript's last user message already, not stored again. */
  stored?: boolean;
  /** The first call tries a model its circuit breaker paused at once (a retry the user asked for). */
  probe?: boolean;
  /** The client's results for the calls the turn stopped for: the turn goes on with them (no new message). */
  resume?: readonly ClientToolResult[];
}

export interface TurnResult {
  reason: StopReason;
  text: string;
  message?: string;
  iterations: number;
  /** With `client_tools`: the calls that wait for the client. */
  clientCalls?: ToolCallPart[];
}

interface StepResult {
  text: string;
  calls: ToolCallPart[];
  /** The calls' `pending` records, stored with the step's message. */
  pending: ToolCallRecord[];
  finish?: FinishReason;
  error?: LlmError;
  cancelled: boolean;
}

/**
 * One turn of the ReAct loop: the model streams, its tool calls run, results go
 * back, repeat until the model stops, the iteration cap is hit, the user cancels,
 * or a doom loop is detected. Every message is stored before the next step.
 */
export async function* runTurn(
  turn: Turn,
  input: TurnInput,
  startId: string,
): AsyncGenerator<AgentEvent, TurnResult> {
  const { services, settings, state } = turn;
  // A continued turn records under the id of the turn that stopped for the client.
  const turnId = (input.resume && state.clientCalls?.turnId) || startId;
  let iterations = 0;
  let clientCalls: ToolCallPart[] | undefined;
  let repaired = false;
  let text = '';
  let reason: StopReason = 'completed';
  let message: string | undefined;
  const doom = new DoomLoopDetector(3);
  // Calls waiting for the client get its results, or (any other prompt) an error result.
  yield* settleClientCalls(state, input.resume);
  const turnStart =
    input.stored || input.resume
      ? state.history.findLastIndex((m) => m.role === 'user')
      : state.history.length;
  if (!input.stored && !input.resume) await appendUser(state, turnId, input);
  yield {
    type: 'turn_start',
    sessionId: state.sessionId,
    turnId,
    input: input.text,
    ...(input.stored ? { retry: true } : {}),
  };
  if (settings.toolLoading === 'intent') {
    const active = activeToolNames(services.tools, state.host.loaded, settings.toolLoading, state.preload);
    // The skills block is part of the first request's system message: it counts too.
    const budgetTokens = preloadBudget(
      services.tools,
      state.systemPrompt + (state.context.skills ?? ''),
      active,
    );
    // The words of a pasted megabyte are mostly noise: its two ends say what is wanted.
    const added = loadTools(
      state.host,
      toolsMentioned(services.tools, headAndTail(input.text, 2000, 2000), { budgetTokens }),
    );
    if (added.length > 0) yield { type: 'tools_loaded', names: added, by: 'keywords' };
  }
  const activeTools = (): string[] =>
    activeToolNames(services.tools, state.host.loaded, settings.toolLoading, state.preload);

  for (;;) {
    if (state.stop.aborted) {
      reason = 'cancelled';
      break;
    }
    for (const steer of state.steering.splice(0)) {
      await appendUser(state, turnId, { text: steer });
      yield { type: 'steering', text: steer };
    }
    if (iterations >= settings.maxIterations) {
      reason = 'max_iterations';
      const calls = `${iterations} model call${iterations === 1 ? '' : 's'}`;
      message = `Stopped after ${calls} (the iteration cap); the task may not be complete. Send a message to continue, or raise agent.max_iterations (--max-turns).`;
      break;
    }
    const spent = state.usage.overBudget(settings.budget);
    if (spent) {
      reason = 'budget';
      message = spent;
      break;
    }
    iterations++;

    const probe = input.probe === true && iterations === 1;
    const step: StepResult = yield* streamStep(turn, turnId, activeTools(), { probe, call: iterations });
    if (step.cancelled) {
      reason = 'cancelled';
      break;
    }
    if (step.error) {
      reason = 'error';
      message = step.error.message;
      const { kind, status } = step.error;
      yield { type: 'error', kind, message: step.error.message, ...(status === undefined ? {} : { status }) };
      break;
    }
    text = step.text;
    if (step.calls.length === 0) {
      if (state.steering.length > 0) continue;
      const verdict = checkAnswer(state.client, step.text, repaired);
      if (verdict.kind === 'repair') {
        repaired = true;
        await appendUser(state, turnId, { text: verdict.prompt });
        continue;
      }
      if (verdict.kind === 'failed') {
        [reason, message] = ['error', verdict.message];
        yield { type: 'error', kind: 'response_format_unmet', message };
      } else text = verdict.text;
      break;
    }

    const calls = splitCalls(step.calls, state.client);
    // The client's calls wait for its results (stored first: a stop below leaves them waiting too).
    if (calls.client.length > 0) await awaitClientCalls(state, turnId, calls.client);
    const outcome = yield* executeToolCalls(turn, { turnId, doom, activeTools }, calls.tea, step.pending);
    if (calls.tea.length > 0) state.history.push({ role: 'tool', parts: outcome.results });
    if (outcome.stop) {
      reason = outcome.stop;
      message = outcome.stopMessage;
      break;
    }
    if (calls.client.length > 0) {
      [reason, clientCalls] = ['client_tools', calls.client];
      break;
    }
  }

  const stopped = reason === 'cancelled' ? state.signal.reason : undefined;
  if (stopped instanceof TurnStopped) {
    reason = 'error';
    message = `${stopped.message}; completed tool results were kept.`;
    yield { type: 'error', kind: stopped.kind, message };
  }
  if (reason === 'cancelled') message ??= 'Cancelled by the user; completed tool results were kept.';
  else state.context.finishTurn(turnId, state.history.slice(turnStart));
  yield { type: 'turn_end', turnId, reason, iterations };
  return { reason, text, message, iterations, ...(clientCalls ? { clientCalls } : {}) };
}

/** Stores a user message and appends it to the transcript. */
export async function appendUser(state: TurnState, turnId: string, input: TurnInput): Promise<void> {
  const parts: Part[] = [{ type: 'text', text: input.text }, ...(input.images ?? [])];
  await state.recorder.record({ type: 'message', turnId, role: 'user', parts });
  state.history.push({ role: 'user', parts });
}

/** One model call: streams deltas out as events and records the assistant message with the call's usage. */
async function* streamStep(
  turn: Turn,
  turnId: string,
  toolNames: string[],
  { probe, call }: { probe: boolean; call: number },
): AsyncGenerator<AgentEvent, StepResult> {
  const { services, state } = turn;
  let text = '';
  let thinking = '';
  let signature: string | undefined;
  let calls: ToolCallPart[] = [];
  let finish: FinishReason | undefined;
  let error: LlmError | undefined;
  // The call's usage, one entry per model (a fallback mid-call adds one), recorded with its message.
  const usage: ModelUsage[] = [];
  let recorded = false;
  const record = (final: Part[], status: 'complete' | 'partial', pending: ToolCallRecord[] = []): void => {
    recorded = true;
    state.usage.add(usage);
    state.recorder.record({ type: 'step', turnId, parts: final, status, usage, calls: pending });
  };
  const draft = (): void => {
    state.recorder.record({ type: 'draft', turnId, parts });
  };
  const parts = (): Part[] => {
    const out: Part[] = [];
    if (thinking)
      out.push(
        signature ? { type: 'thinking', text: thinking, signature } : { type: 'thinking', text: thinking },
      );
    if (text) out.push({ type: 'text', text });
    out.push(...calls);
    return out;
  };

  const reset = (): void => {
    text = '';
    thinking = '';
    signature = undefined;
    calls = [];
  };

  const info = services.provider.info;
  await yieldToEventLoop(); // each of building and sending a huge context is a long synchronous stretch
  const built = state.context.build(state.history, info);
  for (const s of state.context.takeLanded()) {
    yield { type: 'compaction', ...s, limit: built.limit, steps: ['summarize-history'] };
  }
  if (built.trimmed.length > 0) {
    yield {
      type: 'compaction',
      tokensBefore: built.tokensBefore,
      tokensAfter: built.tokens,
      limit: built.limit,
      steps: built.trimmed,
      ...(built.cut ? { cut: built.cut } : {}),
    };
  }
  state.context.failedCompactions = built.tokens > built.limit ? state.context.failedCompactions + 1 : 0;
  const { briefAt, finalAt } = thresholdsFor(info);
  const wrapUp = built.tokens > finalAt * info.contextWindow || state.context.failedCompactions >= 3;
  // The built list is this request's own: a note goes on a copy (`built` is observed as built).
  const closing = wrapUp ? FINAL_NOTE : built.tokens > briefAt * info.contextWindow ? BRIEF_NOTE : undefined;
  const messages: Message[] = closing ? [...built.messages, note(closing)] : built.messages;
  const client = state.client;
  const specs = wrapUp ? [] : [...services.tools.specs(toolNames), ...(client?.tools ?? [])];
  const choice = specs.length > 0 ? choiceFor(client, call) : undefined;
  const format = client?.responseFormat;
  await yieldToEventLoop();
  const chat = state.trace.chat(info);
  try {
    try {
      for await (const d of services.provider.stream(
        {
          messages,
          tools: specs,
          ...(choice ? { toolChoice: choice } : {}),
          ...(format ? { responseFormat: format } : {}),
          ...client?.sampling,
          ...(probe ? { probe } : {}),
        },
        state.signal,
      )) {
        if (state.stop.aborted) break;
        switch (d.type) {
          case 'text':
            text += d.text;
            draft();
            yield { type: 'text_delta', text: d.text };
            break;
          case 'thinking':
            thinking += d.text;
            if (d.signature) signature = d.signature;
            if (!d.text) break; // a signature arriving on its own
            draft();
            yield { type: 'thinking_delta', text: d.text };
            break;
          case 'tool-call':
            calls.push(uniqueId(state.callIds, d.call));
            break;
          case 'usage': {
            if (d.usage.inputTokens > 0) state.context.observe(d.model ?? info, built, d.usage.inputTokens);
            const model = d.model ?? services.provider.info;
            const usd = costUsd(model, d.usage);
            addUsage(usage, { model, usage: d.usage, costUsd: usd });
            yield { type: 'usage', model: model.model, usage: d.usage, costUsd: usd };
            break;
          }
          case 'finish':
            finish = d.reason;
            break;
          case 'retry':
            if (d.discard) reset();
            chat.event('retry', { attempt: d.attempt, 'error.type': d.kind, reason: d.reason });
            yield {
              type: 'retry',
              attempt: d.attempt,
              maxRetries: d.maxRetries,
              delayMs: d.delayMs,
              kind: d.kind,
              reason: d.reason,
              profile: d.profile,
              discard: d.discard,
            };
            break;
          case 'fallback':
            // A fallback starts the request over on another profile.
            reset();
            chat.event('fallback', { from: d.from, to: d.to, reason: d.reason });
            yield { type: 'fallback', from: d.from, to: d.to, reason: d.reason };
            break;
        }
      }
    } catch (e) {
      if (!state.stop.aborted) {
        error = e instanceof LlmError ? e : new LlmError('invalid-response', String(e), { cause: e });
      }
    }
    const cancelled = state.stop.aborted;
    const complete = !cancelled && !error;
    chat.end({ usage, ...(finish ? { finish } : {}), ...(error ? { error } : {}), cancelled });
    // An interrupted stream keeps its text but not half-received tool calls.
    if (!complete) calls = [];
    const final = parts();
    const pending = await pendingRecords(turn, turnId, splitCalls(calls, client).tea);
    record(final, complete ? 'complete' : 'partial', pending);
    if (final.length > 0) state.history.push({ role: 'assistant', parts: final });
    return { text, calls, pending, finish, error, cancelled };
  } finally {
    // The consumer stopped reading mid-step: still keep what was streamed and what it cost.
    if (!recorded) record(parts(), 'partial');
    chat.end({ usage, cancelled: true });
  }
}

/** Adds one usage report to the call's entry for its model (one entry per model). */
function addUsage(into: ModelUsage[], add: ModelUsage): void {
  const same = into.find((u) => u.model.profile === add.model.profile && u.model.model === add.model.model);
  if (!same) {
    into.push({ ...add, usage: { ...add.usage } });
    return;
  }
  const u = same.usage;
  u.inputTokens += add.usage.inputTokens;
  u.outputTokens += add.usage.outputTokens;
  const cached = (u.cachedInputTokens ?? 0) + (add.usage.cachedInputTokens ?? 0);
  const reasoning = (u.reasoningTokens ?? 0) + (add.usage.reasoningTokens ?? 0);
  if (cached > 0) u.cachedInputTokens = cached;
  if (reasoning > 0) u.reasoningTokens = reasoning;
  same.costUsd += add.costUsd;
}

/** Gives a call a session-unique id when the model reused one (the store keys results by it). */
function uniqueId(seen: Set<string>, call: ToolCallPart): ToolCallPart {
  let id = call.id;
  for (let n = 2; seen.has(id); n++) id = `${call.id}~${n}`;
  seen.add(id);
  return id === call.id ? call : { ...call, id };
}

const BRIEF_NOTE =
  '[Context note] The conversation is close to the model’s context limit: answer briefly and avoid large tool outputs.';
const FINAL_NOTE =
  '[Context note] The context window is full. Do not call tools: summarise what was done, what remains, and finish now.';

function note(text: string): Message {
  return { role: 'user', parts: [{ type: 'text', text }] };
}
