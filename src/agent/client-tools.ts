/**
 * Client tools: tools a face's client (an OpenAI-compatible caller, a Responses API
 * caller) offers the model beside Tea's own, but runs itself. When the model calls
 * one, the loop runs the turn's Tea calls and then stops with `client_tools`: the
 * assistant message with its calls is stored, and the calls wait in the session's
 * state (`client_calls`) for their results. `Session.prompt` with `toolResults`
 * continues the same turn with those results (no new user message); any other prompt
 * first answers the waiting calls with an error result, so the transcript stays a
 * consistent call/result sequence.
 */
import type { Part, ToolCallPart, ToolChoice, ToolResultPart } from '../llm/types.js';
import type { ToolCallRecord } from '../store/tool-record.js';
import { toolContent } from '../store/tool-record.js';
import type { AwaitingClientCalls, ClientToolResult, ClientTurn } from './client-turn.js';
import type { AgentEvent } from './events.js';
import type { TurnState } from './turn.js';

export type { AnswerCheck, AwaitingClientCalls, ClientToolResult, ClientTurn } from './client-turn.js';

export type AnswerVerdict =
  | { kind: 'ok'; text: string }
  | { kind: 'repair'; prompt: string }
  | { kind: 'failed'; message: string };

/**
 * The final answer against the client's response format: ok (as JSON text: an answer
 * in a code fence is unwrapped), one repair round, then a failure.
 */
export function checkAnswer(client: ClientTurn | undefined, text: string, repaired: boolean): AnswerVerdict {
  const answer = client?.answer;
  if (!answer) return { kind: 'ok', text };
  const r = answer.check(text);
  if (r.ok) return { kind: 'ok', text: isJson(text) ? text : JSON.stringify(r.value) };
  if (!repaired) return { kind: 'repair', prompt: answer.repairPrompt(r.error) };
  return {
    kind: 'failed',
    message: `The final answer does not match ${answer.param ?? 'the response format'} after one repair round: ${r.error}`,
  };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The first client tool whose name is one of Tea's tools' (`has`), if any. */
export function clientToolCollision(
  tools: readonly { name: string }[],
  has: (name: string) => boolean,
): string | undefined {
  return tools.find((t) => has(t.name))?.name;
}

/** The tool choice for the prompt's `call`-th model call (1-based). */
export function choiceFor(client: ClientTurn | undefined, call: number): ToolChoice | undefined {
  const choice = client?.toolChoice;
  if (choice === undefined || choice === 'auto' || choice === 'none') return choice;
  return call === 1 ? choice : 'auto';
}

/** Splits a model response's calls into Tea's and the client's. */
export function splitCalls(
  calls: readonly ToolCallPart[],
  client: ClientTurn | undefined,
): { tea: ToolCallPart[]; client: ToolCallPart[] } {
  if (!client || client.tools.length === 0) return { tea: [...calls], client: [] };
  const names = new Set(client.tools.map((t) => t.name));
  return {
    tea: calls.filter((c) => !names.has(c.name)),
    client: calls.filter((c) => names.has(c.name)),
  };
}

export const NO_CLIENT_RESULT =
  '[ERROR] The client sent no result for this call; it may not have run. Do not assume its effect.';

/**
 * Answers the calls that wait for the client: with its `results` (a continued turn),
 * missing ones and every call of another prompt with an error. Records each result
 * (the transcript and the call's row) and clears the waiting list.
 */
export async function* settleClientCalls(
  state: TurnState,
  results: readonly ClientToolResult[] | undefined,
): AsyncGenerator<AgentEvent> {
  const awaiting = state.clientCalls;
  if (!awaiting || awaiting.calls.length === 0) return;
  const byId = new Map((results ?? []).map((r) => [r.callId, r]));
  const parts: ToolResultPart[] = [];
  const now = Date.now();
  for (const call of awaiting.calls) {
    const r = byId.get(call.id);
    const output = r?.output ?? NO_CLIENT_RESULT;
    const record: ToolCallRecord = {
      callId: call.id,
      turnId: awaiting.turnId,
      name: call.name,
      args: call.args,
      state: r && r.isError !== true ? 'completed' : 'error',
      title: call.name,
      kind: 'other',
      content: toolContent(output),
      createdAt: now,
      finishedAt: now,
    };
    await state.recorder.record({ type: 'tool_update', record });
    yield { type: 'tool_update', record };
    parts.push({
      type: 'tool-result',
      callId: call.id,
      name: call.name,
      output,
      isError: record.state === 'error',
    });
  }
  // A transcript read back from the store gave the waiting calls placeholder results: replace them.
  const last = state.history.at(-1);
  const ids = new Set(parts.map((p) => p.callId));
  const held = (p: Part): boolean => p.type === 'tool-result' && ids.has(p.callId);
  if (last?.role === 'tool' && last.parts.some(held)) {
    const rest = last.parts.filter((p) => !held(p));
    state.history[state.history.length - 1] = { role: 'tool', parts: [...rest, ...parts] };
  } else state.history.push({ role: 'tool', parts });
  state.clientCalls = undefined;
  await state.recorder.record({ type: 'client_calls', awaiting: undefined });
}

/** Keeps the calls the turn stops for: they wait for the client's results. */
export async function awaitClientCalls(
  state: TurnState,
  turnId: string,
  calls: readonly ToolCallPart[],
): Promise<void> {
  const awaiting: AwaitingClientCalls = {
    turnId,
    calls: calls.map((c) => ({ id: c.id, name: c.name, args: c.args })),
  };
  state.clientCalls = awaiting;
  await state.recorder.record({ type: 'client_calls', awaiting });
}
