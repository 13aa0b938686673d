/**
 * Running a prompt a rule answers: one turn with one tool call and no model call.
 * The call goes through the loop's own execution path (`pendingRecords`,
 * `executeToolCalls`: validation, the permission check, approval requests,
 * `tool_update` states, the recorder), and the transcript gets what the loop would
 * have stored had the model made the call: the user message, an assistant message
 * holding the tool call, the tool result. So every face shows it as a tool call, and
 * the model sees the call and its result in its next turn. The turn's text is the
 * tool's output; for a command, what it printed (a failing exit code is the message).
 */
import type { ToolCallPart } from '../../llm/types.js';
import { activeToolNames } from '../../tools/loading.js';
import { exitedCommand } from '../../tools/shell-status.js';
import { randomUUID } from '../../util/random-id.js';
import { DoomLoopDetector } from '../doom.js';
import type { AgentEvent, StopReason } from '../events.js';
import { appendUser, type TurnInput, type TurnResult } from '../loop.js';
import { executeToolCalls, pendingRecords } from '../tool-exec.js';
import type { Turn } from '../turn.js';
import { RULE_CALL_PREFIX, type ToolRuleMatch } from './grammar.js';

/** The turn of a prompt `match` answers; the turn's text is the tool's output. */
export async function* runRuleTurn(
  turn: Turn,
  input: TurnInput,
  match: ToolRuleMatch,
  turnId: string,
): AsyncGenerator<AgentEvent, TurnResult> {
  const { services, settings, state } = turn;
  const turnStart = state.history.length;
  await appendUser(state, turnId, input);
  yield { type: 'turn_start', sessionId: state.sessionId, turnId, input: input.text };
  let id = `${RULE_CALL_PREFIX}${randomUUID().replaceAll('-', '').slice(0, 16)}`;
  while (state.callIds.has(id)) id = `${id}~`;
  state.callIds.add(id);
  const call: ToolCallPart = { type: 'tool-call', id, name: match.tool, args: match.args };
  const pending = await pendingRecords(turn, turnId, [call]);
  await state.recorder.record({
    type: 'step',
    turnId,
    parts: [call],
    status: 'complete',
    usage: [],
    calls: pending,
  });
  state.history.push({ role: 'assistant', parts: [call] });
  const activeTools = (): string[] =>
    activeToolNames(services.tools, state.host.loaded, settings.toolLoading);
  const step = { turnId, doom: new DoomLoopDetector(3), activeTools };
  const outcome = yield* executeToolCalls(turn, step, [call], pending);
  state.history.push({ role: 'tool', parts: outcome.results });
  const reason: StopReason = outcome.stop === 'cancelled' ? 'cancelled' : 'completed';
  if (reason === 'completed') state.context.finishTurn(turnId, state.history.slice(turnStart));
  yield { type: 'turn_end', turnId, reason, iterations: 0 };
  const output = outcome.results[0]?.output ?? '';
  // A command's answer is what it printed: its status line stays the model's (the tool result).
  const exited = match.tool === 'bash' ? exitedCommand(output) : undefined;
  const failed =
    exited && exited.exitCode !== 0 ? `The command exited with code ${exited.exitCode}.` : undefined;
  const message = reason === 'cancelled' ? 'Cancelled by the user; the command was stopped.' : failed;
  return {
    reason,
    text: exited ? exited.output : output,
    iterations: 0,
    ...(message ? { message } : {}),
  };
}
