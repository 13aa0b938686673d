/**
 * L1, the recent turns: placeholders for old tool output and call/result
 * consistency. Input messages are never mutated; a message that changes is
 * replaced by a new object and unchanged ones keep their identity (so cached
 * token estimates stay valid).
 */
import type { Message, Part, ToolResultPart } from '../llm/types.js';

/** Tool results older than this many user turns become placeholders. */
export const KEEP_TOOL_OUTPUT_TURNS = 3;

const PLACEHOLDER_RE = /^\[tool result omitted: \d+ chars(?:, \d+ images?)? — [^\]]*\]$/;

export function placeholderText(part: ToolResultPart): string {
  const n = part.images?.length ?? 0;
  const images = n === 0 ? '' : n === 1 ? ', 1 image' : `, ${n} images`;
  return `[tool result omitted: ${part.output.length} chars${images} — ${part.callId}]`;
}

export function isPlaceholder(output: string): boolean {
  return PLACEHOLDER_RE.test(output);
}

/**
 * `message` with every tool-result output (and its images) replaced by a placeholder,
 * or the same object when there was nothing to replace.
 */
export function placeholderResults(message: Message): Message {
  let changed = false;
  const parts = message.parts.map((part): Part => {
    if (part.type !== 'tool-result' || (isPlaceholder(part.output) && !part.images)) return part;
    changed = true;
    const { images: _, ...rest } = part;
    return { ...rest, output: isPlaceholder(part.output) ? part.output : placeholderText(part) };
  });
  return changed ? { ...message, parts } : message;
}

/**
 * `message` with the images of its tool results left out, each result saying so, or
 * the same object when it has none.
 */
export function dropResultImages(message: Message): Message {
  if (!message.parts.some((p) => p.type === 'tool-result' && p.images)) return message;
  const parts = message.parts.map((part): Part => {
    if (part.type !== 'tool-result' || !part.images) return part;
    const { images, ...rest } = part;
    const count = images.length === 1 ? '1 image' : `${images.length} images`;
    return { ...rest, output: `${part.output}\n[${count} omitted to fit the context window]` };
  });
  return { ...message, parts };
}

/** Indices of the user messages, oldest first: each starts one turn. */
export function userIndices(messages: readonly Message[]): number[] {
  const out: number[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'user') out.push(i);
  });
  return out;
}

/**
 * The index of the `n`-th user message counted from the end (n = 1 is the last),
 * or 0 when there are fewer than `n` (everything counts as recent).
 */
export function startOfLastTurns(messages: readonly Message[], n: number): number {
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user' && ++seen === n) return i;
  }
  return 0;
}

/**
 * Prepare L1: tool output older than the last `keepTurns` user turns becomes a
 * placeholder, then orphaned calls and results are removed.
 */
export function prepareRecent(recent: readonly Message[], keepTurns = KEEP_TOOL_OUTPUT_TURNS): Message[] {
  const cutoff = startOfLastTurns(recent, keepTurns);
  const placed = recent.map((m, i) => (i < cutoff ? placeholderResults(m) : m));
  return repairPairs(placed);
}

/**
 * Make every tool call have exactly one result after it and every result a call
 * before it: results without an earlier call (or repeated ones) are removed, calls
 * without a later result are removed from their assistant message, and messages
 * left with nothing to say (no parts; an assistant left with only thinking) go.
 */
export function repairPairs(messages: readonly Message[]): Message[] {
  const called = new Set<string>();
  const answered = new Set<string>();
  const afterResults = messages.map((m): Message | null => {
    let dropped = false;
    const parts = m.parts.filter((p) => {
      if (p.type === 'tool-call') called.add(p.id);
      if (p.type !== 'tool-result') return true;
      if (called.has(p.callId) && !answered.has(p.callId)) {
        answered.add(p.callId);
        return true;
      }
      dropped = true;
      return false;
    });
    if (!dropped) return m;
    return parts.length === 0 ? null : { ...m, parts };
  });
  const out: Message[] = [];
  for (const m of afterResults) {
    if (m === null) continue;
    if (!m.parts.some((p) => p.type === 'tool-call' && !answered.has(p.id))) {
      out.push(m);
      continue;
    }
    const parts = m.parts.filter((p) => p.type !== 'tool-call' || answered.has(p.id));
    if (parts.some((p) => p.type === 'text' || p.type === 'tool-call' || p.type === 'image')) {
      out.push({ ...m, parts });
    }
  }
  return out;
}

/** The joined text parts of a message. */
export function messageText(message: Message): string {
  let out = '';
  for (const p of message.parts) {
    if (p.type === 'text') out = out === '' ? p.text : `${out}\n${p.text}`;
  }
  return out;
}
