/**
 * Background upkeep on the cheap model and without it: priority tuning (the
 * prompt and a tolerant reader of the model's answer) and reflection (a
 * keyword-frequency summary per category of recent memories).
 */
import { jsonrepair } from 'jsonrepair';
import { PRIORITY_NAMES } from './format.js';
import { DAY_MS } from './select.js';
import type { Category, Memory, NewMemory, Priority } from './types.js';

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
    'Answer with a JSON array only, no other text, e.g. [{"id": 12, "priority": 1}]. No changes: [].',
  ].join('\n');
  const shown = memories.filter(isLive).slice(0, TUNING_MAX_MEMORIES);
  const list = shown
    .map(
      (m) =>
        `[id=${m.id} ${PRIORITY_NAMES[m.priority]}(${m.priority})] ${preview(m.content, TUNING_PREVIEW_CHARS)}`,
    )
    .join('\n');
  const topicText = oneLine(topics).slice(0, TUNING_TOPICS_MAX_CHARS);
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
 * unknown or inactive ids and no-op changes are dropped; jumps are clamped to
 * one level; the first change per id wins; at most three are kept.
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
    if (next === current) continue;
    seen.add(id);
    out.push({ id, priority: next, resetAge: next < current });
  }
  return out;
}

// ---- reflection ----

export const REFLECT_WINDOW_MS = 30 * DAY_MS;
export const REFLECT_MIN_GROUP = 2;
export const REFLECTION_MAX_CHARS = 400;
/** Tag on summary memories, so reflection never summarises its own summaries. */
export const REFLECTION_TAG = 'reflection';

const STOPWORDS = new Set(
  (
    'the and for are but not you your with this that from have has had was were will would should could ' +
    'can its into about than then them they their there what when where which who whom why how all any ' +
    'each use uses used using always never also just like prefers prefer user users please remember'
  ).split(' '),
);

/** Lower-cased keywords: Latin-like words of ≥ 3 letters minus stopwords; Han runs as bigrams. */
export function keywords(text: string): string[] {
  const out: string[] = [];
  for (const match of text.toLowerCase().matchAll(/[\p{L}\p{N}_-]+/gu)) {
    for (const part of match[0].split(/(\p{Script=Han}+)/u)) {
      if (part === '') continue;
      if (/^\p{Script=Han}+$/u.test(part)) {
        const chars = Array.from(part);
        if (chars.length === 1) out.push(part);
        for (let i = 0; i + 1 < chars.length; i++) out.push(`${chars[i]}${chars[i + 1]}`);
      } else {
        const word = part.replace(/^[-_]+|[-_]+$/g, '');
        if (word.length >= 3 && !STOPWORDS.has(word) && !/^\d+$/.test(word)) out.push(word);
      }
    }
  }
  return out;
}

function topKeywords(group: Memory[], limit: number): string[] {
  const counts = new Map<string, number>();
  const firstSeen = new Map<string, number>();
  for (const memory of group) {
    for (const word of new Set(keywords(memory.content))) {
      counts.set(word, (counts.get(word) ?? 0) + 1);
      if (!firstSeen.has(word)) firstSeen.set(word, firstSeen.size);
    }
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (firstSeen.get(a[0]) ?? 0) - (firstSeen.get(b[0]) ?? 0))
    .slice(0, limit)
    .map(([word]) => word);
}

const CATEGORY_LABEL: Record<Category, string> = {
  instruction: 'instructions',
  preference: 'preferences',
  fact: 'facts',
  reminder: 'reminders',
  general: 'notes',
};

function summaryContent(category: Category, group: Memory[], words: string[]): string {
  const items = [...group]
    .sort((a, b) => b.importance - a.importance || b.createdAt - a.createdAt || a.id - b.id)
    .map((m) => preview(m.content, 80));
  const head = `Summary of ${group.length} recent ${CATEGORY_LABEL[category]} (key topics: ${words.join(', ')}):`;
  const text = `${head} ${items.join('; ')}`;
  return text.length > REFLECTION_MAX_CHARS ? `${text.slice(0, REFLECTION_MAX_CHARS - 1)}…` : text;
}

export interface Reflection {
  category: Category;
  summary: NewMemory;
  /** Originals whose importance should drop by one (only those above 1). */
  demote: number[];
}

/**
 * Groups live, unexpired, non-CRITICAL memories created in the last 30 days by
 * scope and category; each group of ≥ 2 yields a HIGH, importance-5 summary in
 * the same scope. Groups are per scope so a project's facts never leak into
 * the user-wide scope. Deterministic order: category order, then scope.
 */
export function reflect(memories: Memory[], now: number): Reflection[] {
  const groups = new Map<string, Memory[]>();
  for (const memory of memories) {
    if (!isLive(memory) || memory.priority === 0) continue;
    if (memory.expiresAt !== null && memory.expiresAt <= now) continue;
    if (now - memory.createdAt > REFLECT_WINDOW_MS || memory.tags.includes(REFLECTION_TAG)) continue;
    const key = JSON.stringify([memory.category, memory.scope]);
    const group = groups.get(key);
    if (group) group.push(memory);
    else groups.set(key, [memory]);
  }
  const order: Category[] = ['instruction', 'preference', 'fact', 'reminder', 'general'];
  const entries = [...groups.values()]
    .filter((g) => g.length >= REFLECT_MIN_GROUP)
    .sort((a, b) => {
      const ca = a[0]!;
      const cb = b[0]!;
      return order.indexOf(ca.category) - order.indexOf(cb.category) || ca.scope.localeCompare(cb.scope);
    });
  return entries.map((group) => {
    const { category, scope } = group[0]!;
    const words = topKeywords(group, 8);
    const dues = group.map((m) => m.expiresAt);
    const expiresAt = dues.every((d): d is number => d !== null) ? Math.max(...dues) : null;
    const summary: NewMemory = {
      content: summaryContent(category, group, words),
      category,
      priority: 1,
      importance: 5,
      tags: [REFLECTION_TAG, ...words.slice(0, 5)],
      expiresAt,
      scope,
    };
    const demote = group
      .filter((m) => m.importance > 1)
      .map((m) => m.id)
      .sort((a, b) => a - b);
    return { category, summary, demote };
  });
}
