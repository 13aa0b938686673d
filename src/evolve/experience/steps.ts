/**
 * What the cheap model reads about a task: the user's words, the steps (each tool call
 * with its arguments and the start of its result), and the final answer, shortened
 * head+tail so a long transcript costs a bounded prompt. And a tolerant reader of the
 * JSON object it answers with.
 */
import { jsonrepair } from 'jsonrepair';
import type { Message, ToolCallPart } from '../../llm/types.js';

/** Characters of the steps shown, at most (the latest steps are kept). */
export const STEPS_MAX_CHARS = 6000;
const ARGS_CHARS = 240;
const RESULT_CHARS = 300;
const TEXT_CHARS = 1500;

/** `text` cut to about `max` characters, head and tail kept around a marker. */
export function clip(text: string, max: number): string {
  const t = text.trim();
  if (t.length <= max) return t;
  const head = Math.ceil((max * 2) / 3);
  return `${t.slice(0, head)} […] ${t.slice(t.length - (max - head))}`;
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** One line per tool call: `bash {"command":"npm test"} → exit code: 1 …` (the latest kept). */
export function renderSteps(messages: readonly Message[]): string {
  const calls = new Map<string, ToolCallPart>();
  const lines: string[] = [];
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type === 'tool-call') calls.set(p.id, p);
      if (p.type !== 'tool-result') continue;
      const call = calls.get(p.callId);
      const args = call ? clip(oneLine(JSON.stringify(call.args)), ARGS_CHARS) : '';
      const mark = p.isError || p.output.startsWith('[ERROR]') ? '✗' : '✓';
      lines.push(`${mark} ${p.name} ${args} → ${clip(oneLine(p.output), RESULT_CHARS)}`);
    }
  }
  const kept: string[] = [];
  let total = 0;
  for (const line of lines.reverse()) {
    total += line.length + 1;
    if (total > STEPS_MAX_CHARS && kept.length > 0) {
      kept.push(`(${lines.length - kept.length} earlier steps left out)`);
      break;
    }
    kept.push(line);
  }
  return kept.length === 0 ? '(no tool calls)' : kept.reverse().join('\n');
}

/** The task as the cheap model reads it. */
export function renderTask(t: { input: string; messages: readonly Message[]; finalText: string }): string {
  return [
    `Task (the user's words):\n${clip(t.input, TEXT_CHARS)}`,
    `Steps (✓ ok, ✗ error):\n${renderSteps(t.messages)}`,
    `Final answer:\n${clip(t.finalText, TEXT_CHARS) || '(none)'}`,
  ].join('\n\n');
}

/** The first JSON object in a model's answer (fences, prose and small syntax slips tolerated). */
export function readJsonObject(text: string): Record<string, unknown> | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  if (start < 0 || end <= start) return undefined;
  const raw = text.slice(start, end + 1);
  for (const attempt of [() => JSON.parse(raw), () => JSON.parse(jsonrepair(raw))]) {
    try {
      const value: unknown = attempt();
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        return value as Record<string, unknown>;
      }
    } catch {
      // try the next reading
    }
  }
  return undefined;
}
