/**
 * Builders for context-builder tests: messages, history pairs, whole turns, and a
 * simple deterministic estimator (`ceil(chars / 4) + 4`) so expectations are exact.
 */
import { expect } from 'vitest';
import type { Budget, ContextInput, HistoryPair } from '../../src/context/types.js';
import type { Message, Part, ToolCallPart, ToolResultPart } from '../../src/llm/types.js';

export const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });

export function assistant(text: string, opts: { thinking?: string; calls?: ToolCallPart[] } = {}): Message {
  const parts: Part[] = [];
  if (opts.thinking !== undefined) parts.push({ type: 'thinking', text: opts.thinking });
  if (text !== '') parts.push({ type: 'text', text });
  parts.push(...(opts.calls ?? []));
  return { role: 'assistant', parts };
}

export const call = (
  id: string,
  name = 'read_file',
  args: Record<string, unknown> = { path: 'a.ts' },
): ToolCallPart => ({
  type: 'tool-call',
  id,
  name,
  args,
});

export const result = (
  callId: string,
  output: string,
  isError = false,
  name = 'read_file',
): ToolResultPart => ({
  type: 'tool-result',
  callId,
  name,
  output,
  isError,
});

export const tool = (...results: ToolResultPart[]): Message => ({ role: 'tool', parts: results });

export function pair(
  turnId: string,
  userText: string,
  answer: string,
  extra: Partial<HistoryPair> = {},
): HistoryPair {
  return { turnId, user: userText, assistant: answer, reasoning: '', files: [], ...extra };
}

/**
 * One complete turn `n`: the question, an assistant call `c<n>`, its result
 * (`output`), and the final answer.
 */
export function turn(n: number, output = `output of call ${n}`, opts: { thinking?: string } = {}): Message[] {
  return [
    user(`question ${n}`),
    assistant('', { calls: [call(`c${n}`)], ...opts }),
    tool(result(`c${n}`, output)),
    assistant(`answer ${n}`),
  ];
}

export function input(over: Partial<ContextInput> = {}): ContextInput {
  return { system: 'You are Tea.', instructions: [], summaries: {}, pairs: [], recent: [], ...over };
}

/** A budget whose limit is exactly `limit` tokens. */
export const exactBudget = (limit: number): Budget => ({ contextWindow: limit, maxOutput: 0, trimAt: 1 });
export const hugeBudget: Budget = exactBudget(100_000_000);

function partChars(p: Part): number {
  switch (p.type) {
    case 'text':
    case 'thinking':
      return p.text.length;
    case 'image':
      return 340;
    case 'tool-call':
      return p.name.length + JSON.stringify(p.args).length;
    case 'tool-result':
      return p.output.length;
  }
}

/** `ceil(chars / 4) + 4` per message; images count 340 chars (85 tokens). */
export function est(m: Message): number {
  let chars = 0;
  for (const p of m.parts) chars += partChars(p);
  return Math.ceil(chars / 4) + 4;
}

export const sum = (messages: readonly Message[]): number => messages.reduce((n, m) => n + est(m), 0);

export function textOf(m: Message | undefined): string {
  expect(m).toBeDefined();
  return (m?.parts ?? [])
    .filter((p) => p.type === 'text')
    .map((p) => p.text)
    .join('\n');
}

/** Every tool call has exactly one later result, every result an earlier call; no empty messages. */
export function assertConsistent(messages: readonly Message[]): void {
  const calls = new Set<string>();
  const answered = new Set<string>();
  for (const m of messages) {
    expect(m.parts.length, `empty ${m.role} message`).toBeGreaterThan(0);
    for (const p of m.parts) {
      if (p.type === 'tool-call') {
        expect(calls.has(p.id), `duplicate call ${p.id}`).toBe(false);
        expect(m.role).toBe('assistant');
        calls.add(p.id);
      } else if (p.type === 'tool-result') {
        expect(calls.has(p.callId), `result ${p.callId} without an earlier call`).toBe(true);
        expect(answered.has(p.callId), `second result for ${p.callId}`).toBe(false);
        expect(m.role).toBe('tool');
        answered.add(p.callId);
      }
    }
  }
  for (const id of calls) expect(answered.has(id), `call ${id} without a result`).toBe(true);
}

/** All tool results in `messages`, in order. */
export function results(messages: readonly Message[]): ToolResultPart[] {
  return messages.flatMap((m) => m.parts.filter((p): p is ToolResultPart => p.type === 'tool-result'));
}
