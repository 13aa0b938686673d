import type { ImagePart, Message, Part, Role, ToolCallPart, ToolResultPart } from '../llm/types.js';
import { INTERRUPTED_OUTPUT } from '../store/recovery.js';
import type { AgentEvent } from './events.js';
import { RULE_CALL_PREFIX } from './rules/grammar.js';

/** The part of a stored message the history needs (the store's row has more). */
export interface HistoryRow {
  role: Role;
  parts: Part[];
  status: 'complete' | 'partial';
}

/** The result of a call whose run stopped before it finished (recovery stores the same text). */
export const INTERRUPTED_RESULT = INTERRUPTED_OUTPUT;

/**
 * Turns the stored transcript into a message list every provider accepts:
 * - tool results stored one row each are gathered after their assistant message,
 *   in the order the model made the calls;
 * - a call with no recorded result (the process was killed mid-tool) gets an
 *   explicit "interrupted" error result, so call/result pairs stay consistent;
 * - results whose call is unknown are dropped;
 * - a partial assistant draft keeps its text and thinking but not tool calls.
 */
export function toModelMessages(rows: readonly HistoryRow[]): Message[] {
  const out: Message[] = [];
  let i = 0;
  while (i < rows.length) {
    const row = rows[i]!;
    i += 1;
    if (row.role === 'tool') continue; // orphan results (their call is not in the transcript)
    if (row.role !== 'assistant') {
      out.push({ role: row.role, parts: row.parts });
      continue;
    }
    const parts =
      row.status === 'partial'
        ? row.parts.filter((p) => p.type === 'text' || p.type === 'thinking')
        : row.parts;
    const calls = parts.filter((p): p is ToolCallPart => p.type === 'tool-call');
    if (parts.length > 0) out.push({ role: 'assistant', parts });
    if (calls.length === 0) continue;

    const results = new Map<string, ToolResultPart>();
    while (i < rows.length && rows[i]!.role === 'tool') {
      for (const p of rows[i]!.parts) if (p.type === 'tool-result') results.set(p.callId, p);
      i += 1;
    }
    out.push({
      role: 'tool',
      parts: calls.map(
        (c): ToolResultPart =>
          results.get(c.id) ?? {
            type: 'tool-result',
            callId: c.id,
            name: c.name,
            output: INTERRUPTED_RESULT,
            isError: true,
          },
      ),
    });
  }
  return out;
}

/** Joins the text parts of a message. */
export function textOf(parts: readonly Part[]): string {
  let s = '';
  for (const p of parts) if (p.type === 'text') s += p.text;
  return s;
}

/**
 * What a retry runs again: the last user message, when the transcript ends with it
 * (its turn failed before any answer was stored) or with tool results after it (the
 * model call after the tools failed). Undefined when the last turn has an answer.
 */
export function retryInput(history: readonly Message[]): { text: string; images: ImagePart[] } | undefined {
  const last = history.at(-1);
  if (last?.role !== 'user' && last?.role !== 'tool') return undefined;
  // A rule's turn ends with its tool's result, and that result is its answer.
  if (
    last.role === 'tool' &&
    last.parts.every((p) => p.type === 'tool-result' && p.callId.startsWith(RULE_CALL_PREFIX))
  )
    return undefined;
  const user = history.findLast((m) => m.role === 'user');
  if (!user) return undefined;
  return { text: textOf(user.parts), images: user.parts.filter((p): p is ImagePart => p.type === 'image') };
}

/** A retry with no unanswered message: the turn ends at once, saying so. */
export function* nothingToRetry(sessionId: string): Generator<AgentEvent> {
  const message = 'Nothing to retry: the last turn was answered. Send a new message instead.';
  const usage = { inputTokens: 0, outputTokens: 0 };
  yield { type: 'error', kind: 'nothing_to_retry', message };
  yield { type: 'done', sessionId, reason: 'error', text: '', message, usage, costUsd: 0 };
}
