/**
 * Priority tuning on the cheap model: the prompt and a tolerant reader of the
 * model's answer. (Reflection lives in reflect.ts.)
 */
import { jsonrepair } from 'jsonrepair';
import { PRIORITY_NAMES } from './format.js';
import type { Memory, Priority } from './types.js';

export { REFLECTION_TAG } from './reflect.js';

export const TUNING_TOPICS_MAX_CHARS = 2_000;
export const TUNING_MAX_MEMORIES = 100;
export const TUNING_PREVIEW_CHARS = 80;
export const TUNING_MAX_CHANGES = 3;

export interface PriorityTuning {
  id: number;
  priority: Priority;
  /** True when the memory became more important: restart its age decay. */
  resetAge: boolean;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function preview(text: string, max: number): string {
  const line = oneLine(text);
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function isLive(memory: Memory): boolean {
  return memory.deletedAt === null && memory.supersededBy === null && memory.validTo === null;
}

/** The prompt asking the cheap model which priorities to nudge, given recent topics. */
export function tuningPrompt(topics: string, memories: Memory[]): { system: string; user: string } {
  const system = [
    'You maintain the long-term memory of an AI assistant.',
    'Given the recent conversation topics and the active memories, decide which memory priorities',
    'should change so that what matters now is remembered first.',
    'Priorities: 0 = CRITICAL, 1 = HIGH, 2 = MEDIUM, 3 = LOW (a lower number is more important).',
    'Rules:',
    '- Move a priority by exactly one level up or down; never skip a level.',
    `- Change at most ${TUNING_MAX_CHANGES} memories; change none if nothing needs it.`,
    '- Use only ids from the list.',
    '- Never lower a pinned memory: the user pinned it.',
    'Answer with a JSON array only, no other text, e.g. [{"id": 12, "priority": 1}]. No changes: [].',
  ].join('\n');
  const shown = memories.filter(isLive).slice(0, TUNING_MAX_MEMORIES);
  const list = shown
    .map(
      (m) =>
        `[id=${m.id} ${PRIORITY_NAMES[m.priority]}(${m.priority})${m.pinned ? ' pinned' : ''}] ${preview(m.content, TUNING_PREVIEW_CHARS)}`,
    )
    .join('\n');
  // Only the start is shown: a pasted megabyte is not flattened whole for it.
  const topicText = oneLine(topics.slice(0, TUNING_TOPICS_MAX_CHARS * 4)).slice(0, TUNING_TOPICS_MAX_CHARS);
  const user = `Recent topics:\n${topicText || '(none)'}\n\nActive memories:\n${list || '(none)'}`;
  return { system, user };
}

function parseStrict(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function parseRepaired(text: string): unknown {
  try {
    return JSON.parse(jsonrepair(text));
  } catch {
    return undefined;
  }
}

/**
 * Candidate JSON texts in a model answer, most specific first: fenced blocks,
 * the outermost [...] span, the whole text. Repair is only tried on texts that
 * look like JSON, since `jsonrepair` happily turns prose into an array of strings.
 */
function candidates(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/```(?:json|JSON)?[ \t]*\n?([\s\S]*?)```/g)) {
    if (match[1] !== undefined) found.push(match[1].trim());
  }
  const start = text.indexOf('[');
  const end = text.lastIndexOf(']');
  if (start !== -1 && end > start) found.push(text.slice(start, end + 1));
  found.push(text.trim());
  return found.filter((c) => c !== '');
}

/** An array of entries, also from `{ "changes": [...] }`-style objects. */
function asEntries(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (value !== null && typeof value === 'object') {
    for (const key of ['changes', 'adjustments', 'items', 'results', 'data']) {
      const inner = (value as Record<string, unknown>)[key];
      if (Array.isArray(inner)) return inner;
    }
  }
  return undefined;
}

function readEntries(text: string): unknown[] {
  const texts = candidates(text);
  for (const candidate of texts) {
    const entries = asEntries(parseStrict(candidate));
    if (entries !== undefined) return entries;
  }
  for (const candidate of texts.filter((t) => /^[[{]/.test(t))) {
    const entries = asEntries(parseRepaired(candidate));
    if (entries !== undefined) return entries;
  }
  return [];
}

function readInt(value: unknown): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined;
}

const PRIORITY_BY_NAME: Record<string, Priority> = { critical: 0, high: 1, medium: 2, low: 3 };

function readPriority(value: unknown): number | undefined {
  if (typeof value === 'string') {
    const named = PRIORITY_BY_NAME[value.trim().toLowerCase()];
    if (named !== undefined) return named;
  }
  return readInt(value);
}

/**
 * Reads the model's answer to `tuningPrompt`. Never throws: unreadable text,
 * unknown or inactive ids, no-op changes and any lowering of a pinned memory
 * are dropped; jumps are clamped to one level; the first change per id wins; at
 * most three are kept.
 */
export function parseTuning(text: string, memories: Memory[]): PriorityTuning[] {
  const byId = new Map(memories.filter(isLive).map((m) => [m.id, m]));
  const out: PriorityTuning[] = [];
  const seen = new Set<number>();
  for (const entry of readEntries(text)) {
    if (out.length >= TUNING_MAX_CHANGES) break;
    if (entry === null || typeof entry !== 'object') continue;
    const record = entry as Record<string, unknown>;
    const id = readInt(record.id);
    const wanted = readPriority(record.priority);
    if (id === undefined || wanted === undefined || seen.has(id)) continue;
    const memory = byId.get(id);
    if (memory === undefined) continue;
    const current = memory.priority;
    const next = Math.min(3, Math.max(0, Math.min(current + 1, Math.max(current - 1, wanted)))) as Priority;
    if (next === current || (memory.pinned && next > current)) continue;
    seen.add(id);
    out.push({ id, priority: next, resetAge: next < current });
  }
  return out;
}
