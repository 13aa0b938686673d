/**
 * Memory extraction: the prompt that asks a cheap model for durable memories in
 * a conversation, and a tolerant reader of whatever JSON-ish text comes back.
 */
import { jsonrepair } from 'jsonrepair';
import { ask } from '../llm/collect.js';
import type { Provider, Usage } from '../llm/types.js';
import { CATEGORIES, CATEGORY_PRIORITY, type Category, type NewMemory, type Scope } from './types.js';

/** One memory as the model proposed it, cleaned up. */
export interface ExtractedMemory {
  content: string;
  category: Category;
  /** 1 … 5, when the model gave a usable number. */
  importance?: number;
  tags?: string[];
  /** Epoch ms; `null` when the model said explicitly that it never expires. */
  expiresAt?: number | null;
  /** What the memory is about, which attribute it states, and the value (e.g. user / home city / Berlin). */
  subject?: string;
  attribute?: string;
  value?: string;
  /** `project` when it only matters in the current project; absent or `user` otherwise. */
  about?: 'user' | 'project';
}

export interface ConversationTurn {
  role: 'user' | 'assistant';
  text: string;
}

// ---------------------------------------------------------------- parsing

/** Keys under which models like to nest the list. */
const LIST_KEYS = ['memories', 'items', 'results', 'data', 'facts', 'memory'];
const CONTENT_KEYS = ['content', 'memory', 'text', 'fact', 'note', 'description', 'summary'];

const CATEGORY_ALIASES: Record<string, Category> = {
  instructions: 'instruction',
  rule: 'instruction',
  rules: 'instruction',
  directive: 'instruction',
  preferences: 'preference',
  pref: 'preference',
  like: 'preference',
  facts: 'fact',
  knowledge: 'fact',
  reminders: 'reminder',
  todo: 'reminder',
  task: 'reminder',
  deadline: 'reminder',
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function toCategory(raw: unknown): Category {
  if (typeof raw !== 'string') return 'general';
  const key = raw.trim().toLowerCase();
  if ((CATEGORIES as readonly string[]).includes(key)) return key as Category;
  return CATEGORY_ALIASES[key] ?? 'general';
}

function toImportance(raw: unknown): number | undefined {
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' ? Number(raw.trim()) : Number.NaN;
  if (!Number.isFinite(n)) return undefined;
  return Math.min(5, Math.max(1, Math.round(n)));
}

function toTags(raw: unknown): string[] | undefined {
  const list = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(/[,，;]/) : undefined;
  if (!list) return undefined;
  const tags = list
    .filter((t): t is string | number => typeof t === 'string' || typeof t === 'number')
    .map((t) => String(t).trim())
    .filter((t) => t !== '');
  return tags.length > 0 ? [...new Set(tags)] : undefined;
}

/** Epoch seconds or ms, or a date string; `null` kept; anything else dropped. */
function toExpiry(raw: unknown): number | null | undefined {
  if (raw === null) return null;
  if (typeof raw === 'number' && Number.isFinite(raw) && raw > 0) return raw < 1e11 ? raw * 1000 : raw;
  if (typeof raw === 'string') {
    const text = raw.trim();
    if (text === '' || /^(null|none|never|n\/a)$/i.test(text)) return null;
    if (/^\d+$/.test(text)) return toExpiry(Number(text));
    const ms = Date.parse(text);
    return Number.isFinite(ms) ? ms : undefined;
  }
  return undefined;
}

function toText(raw: unknown): string | undefined {
  if (typeof raw === 'number' || typeof raw === 'boolean') return String(raw);
  if (typeof raw !== 'string') return undefined;
  const text = raw.trim();
  return text === '' ? undefined : text;
}

function pick(obj: Record<string, unknown>, keys: string[]): unknown {
  for (const key of keys) {
    if (obj[key] !== undefined) return obj[key];
  }
  return undefined;
}

/** One item of the model's list, or undefined when it holds no memory. */
function toExtracted(item: unknown): ExtractedMemory | undefined {
  if (typeof item === 'string') {
    const content = item.trim();
    return content ? { content, category: 'general' } : undefined;
  }
  if (!isRecord(item)) return undefined;
  const subject = toText(item.subject);
  const attribute = toText(item.attribute ?? item.predicate);
  const value = toText(item.value ?? item.object);
  let content = toText(pick(item, CONTENT_KEYS));
  if (!content && subject && attribute && value) content = `${subject} ${attribute}: ${value}`;
  if (!content) return undefined;
  const out: ExtractedMemory = { content, category: toCategory(item.category ?? item.type ?? item.kind) };
  const importance = toImportance(item.importance);
  if (importance !== undefined) out.importance = importance;
  const tags = toTags(item.tags ?? item.keywords);
  if (tags) out.tags = tags;
  const expiresAt = toExpiry(pick(item, ['expiresAt', 'expires_at', 'expires', 'due', 'dueAt', 'due_at']));
  if (expiresAt !== undefined) out.expiresAt = expiresAt;
  if (subject) out.subject = subject;
  if (attribute) out.attribute = attribute;
  if (value) out.value = value;
  const about = toText(item.scope ?? item.about)?.toLowerCase();
  if (about === 'project' || about === 'user') out.about = about;
  return out;
}

/** The list inside a parsed value: an array, a list under a usual key, or one memory object. */
function listOf(value: unknown, depth = 0): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (typeof value === 'string' && depth === 0) {
    // A model that JSON-encoded its JSON once more.
    const inner = tryParse(value.trim(), false);
    return inner === undefined ? undefined : listOf(inner, depth + 1);
  }
  if (!isRecord(value)) return undefined;
  const lowered = new Map(Object.entries(value).map(([k, v]) => [k.toLowerCase(), v]));
  for (const key of LIST_KEYS) {
    const inner = lowered.get(key);
    if (Array.isArray(inner)) return inner;
    if (isRecord(inner) && depth < 2) return listOf(inner, depth + 1);
  }
  if (pick(value, CONTENT_KEYS) !== undefined || (value.subject && value.value)) return [value];
  const arrays = Object.values(value).filter(Array.isArray);
  return arrays.length === 1 ? arrays[0] : undefined;
}

function tryParse(text: string, repair: boolean): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(repair ? jsonrepair(text) : text);
  } catch {
    return undefined;
  }
}

/**
 * Places in a reply where the JSON may sit, in two tiers: fenced blocks, the
 * whole text and the outermost `[...]` first; an outermost `{...}` only after
 * those failed even with repair (it may be one item of a cut-off array).
 */
function candidates(text: string): [string[], string[]] {
  const primary: string[] = [];
  for (const m of text.matchAll(/```[a-zA-Z0-9_-]*[ \t]*\r?\n?([\s\S]*?)(?:```|$)/g)) {
    if (m[1]?.trim()) primary.push(m[1].trim());
  }
  primary.push(text);
  const open = text.indexOf('[');
  const close = text.lastIndexOf(']');
  if (open >= 0) primary.push(close > open ? text.slice(open, close + 1) : text.slice(open));
  const secondary: string[] = [];
  const brace = text.indexOf('{');
  const braceEnd = text.lastIndexOf('}');
  if (brace >= 0) secondary.push(braceEnd > brace ? text.slice(brace, braceEnd + 1) : text.slice(brace));
  if (open >= 0) secondary.push(text.slice(open));
  return [[...new Set(primary)], [...new Set(secondary)]];
}

/**
 * Reads the memories out of a model's reply, whatever its shape: a JSON array, a
 * fenced block, an array inside prose, an object holding the list, a single
 * object, or broken JSON (via jsonrepair). Unknown categories become `general`,
 * bare strings become general memories; nothing usable gives `[]`. Never throws.
 */
export function parseExtraction(text: string): ExtractedMemory[] {
  const cleaned = text.replace(/<think>[\s\S]*?(?:<\/think>|$)/gi, '').trim();
  if (!cleaned) return [];
  const [primary, secondary] = candidates(cleaned);
  const attempts: Array<[string[], boolean]> = [
    [primary, false],
    [primary, true],
    [secondary, false],
    [secondary, true],
  ];
  for (const [places, repair] of attempts) {
    for (const place of places) {
      const list = listOf(tryParse(place, repair));
      if (!list) continue;
      const seen = new Set<string>();
      const out: ExtractedMemory[] = [];
      for (const item of list) {
        const memory = toExtracted(item);
        if (!memory || seen.has(memory.content)) continue;
        seen.add(memory.content);
        out.push(memory);
      }
      return out;
    }
  }
  return [];
}

// ---------------------------------------------------------------- prompting

const SYSTEM_PROMPT = `You extract long-term memories from a conversation between a user and an AI assistant.
Keep only durable things worth remembering in future sessions:
- instruction: rules the user wants followed from now on ("always…", "never…", "remember to…")
- preference: the user's habits, tastes and ways of working
- fact: facts about the user, their environment or their projects (names, places, versions, ports, decisions)
- reminder: things to remind the user of, with a date or time when one was given
- general: other useful reference information
Only record what the user said or confirmed. Skip greetings, one-off requests, the assistant's own suggestions the user did not accept, and anything transient.
Do not repeat a known memory unless it has changed; when a value changed, output the new value.

Answer with a JSON array and nothing else. Each item:
{"content": "one short self-contained sentence that names what it is about", "category": "instruction|preference|fact|reminder|general", "importance": 1-5, "tags": ["..."], "subject": "...", "attribute": "...", "value": "...", "expires_at": "ISO date or null", "scope": "user|project"}
- importance: 5 = ignoring it causes serious problems, 1 = trivial.
- subject/attribute/value: when the memory states an attribute of something, e.g. {"subject": "user", "attribute": "home city", "value": "Berlin"}; use the same subject and attribute wording for the same thing, so a changed value replaces the old one. Leave them out otherwise.
- expires_at: only for reminders and other time-bound memories, as an absolute date.
- scope: "project" when it only matters for the project being worked on (its build command, layout, conventions); "user" for everything about the user.
- Write content in the language the user used, and name the subject in it (the person, project, service or ticket), never "it" or "they": "The staging API of Heron runs on port 9191", not "It now runs on 9191".
If there is nothing worth remembering, answer [].`;

const MAX_TURN_CHARS = 4000;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The system and user prompt for the extraction call. `now` dates relative reminders. */
export function extractionPrompt(
  conversation: ConversationTurn[],
  existing: string[] = [],
  now: number = Date.now(),
): { system: string; user: string } {
  const lines = conversation.map(
    (t) => `${t.role === 'user' ? 'User' : 'Assistant'}: ${clip(t.text, MAX_TURN_CHARS)}`,
  );
  const parts = [`Today is ${new Date(now).toISOString().slice(0, 10)}.`];
  if (existing.length > 0) {
    parts.push(
      `Memories already known (do not repeat them unless changed):\n${existing.map((m) => `- ${m}`).join('\n')}`,
    );
  }
  parts.push(`Conversation:\n${lines.join('\n')}`);
  parts.push('Extract the durable memories as a JSON array.');
  return { system: SYSTEM_PROMPT, user: parts.join('\n\n') };
}

/** Asks `provider` (best a cheap model) for the memories in `conversation`. Errors propagate. */
export async function extractMemories(
  provider: Provider,
  conversation: ConversationTurn[],
  opts: { existing?: string[]; signal?: AbortSignal; now?: number } = {},
): Promise<{ memories: ExtractedMemory[]; usage: Usage }> {
  if (!conversation.some((t) => t.role === 'user' && t.text.trim() !== '')) {
    return { memories: [], usage: { inputTokens: 0, outputTokens: 0 } };
  }
  const prompt = extractionPrompt(conversation, opts.existing, opts.now);
  const completion = await ask(provider, prompt, { temperature: 0.2, signal: opts.signal });
  return { memories: parseExtraction(completion.text), usage: completion.usage };
}

/** Turns an extracted memory into what the store adds; priority follows the category. */
export function toNewMemory(
  e: ExtractedMemory,
  where: { scope?: Scope; sessionId?: string | null } = {},
): NewMemory {
  const out: NewMemory = {
    content: e.content,
    category: e.category,
    priority: CATEGORY_PRIORITY[e.category],
    subject: e.subject ?? null,
    attribute: e.attribute ?? null,
  };
  if (e.importance !== undefined) out.importance = e.importance;
  if (e.tags) out.tags = e.tags;
  if (e.expiresAt !== undefined) out.expiresAt = e.expiresAt;
  if (where.scope !== undefined) out.scope = where.scope;
  if (where.sessionId !== undefined) out.sourceSessionId = where.sessionId;
  return out;
}
