/**
 * Reading memories to import from what people have: a JSON array (a `tea memory
 * export`, or any list of objects with `content`), an object holding such a list,
 * or JSON Lines. Field names are accepted in camelCase and snake_case; times as
 * ISO dates or epoch seconds/milliseconds; tags as a list or a comma-separated
 * string; the category defaults to `fact`. Every problem names its item.
 */
import { StoreError } from '../store/errors.js';
import type { ImportableMemory } from './service-import.js';
import { CATEGORIES, type Category, type Priority } from './types.js';

const LIST_KEYS = ['memories', 'items', 'data', 'facts', 'records'];
const TIME_KEYS = ['createdAt', 'created_at', 'created', 'date', 'time', 'timestamp', 'at'];

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The items of a file's text, before validation: one JSON document, or one per line. */
function rawItems(text: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed === '') return [];
  // A document that opens an array is one JSON document: its error is the document's, not a line's.
  if (trimmed.startsWith('[')) {
    try {
      const whole: unknown = JSON.parse(trimmed);
      if (Array.isArray(whole)) return whole;
    } catch (err) {
      throw new StoreError(`not valid JSON (${(err as Error).message})`);
    }
  }
  try {
    const whole: unknown = JSON.parse(trimmed);
    if (Array.isArray(whole)) return whole;
    if (isRecord(whole)) {
      for (const key of LIST_KEYS) if (Array.isArray(whole[key])) return whole[key] as unknown[];
      if (typeof whole.content === 'string') return [whole];
    }
    throw new StoreError(
      'expected a JSON array of memories, an object with a "memories" list, or JSON Lines',
    );
  } catch (err) {
    if (err instanceof StoreError) throw err;
  }
  const items: unknown[] = [];
  trimmed.split(/\r?\n/).forEach((line, index) => {
    if (line.trim() === '') return;
    try {
      items.push(JSON.parse(line));
    } catch (err) {
      throw new StoreError(
        `line ${index + 1} is not JSON (${(err as Error).message}); expected a JSON array or one JSON object per line`,
      );
    }
  });
  return items;
}

/** Epoch ms from an ISO date or epoch seconds / milliseconds; undefined when absent; throws when unreadable. */
export function readTime(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'number' && Number.isFinite(value)) return value < 1e11 ? value * 1000 : value;
  if (typeof value === 'string') {
    if (/^\d+(\.\d+)?$/.test(value.trim())) return readTime(Number(value));
    const ms = Date.parse(value);
    if (Number.isFinite(ms)) return ms;
  }
  throw new StoreError(
    `cannot read the time ${JSON.stringify(value)}: use an ISO date or epoch seconds/milliseconds`,
  );
}

function readTags(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string')
    return value
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
  if (Array.isArray(value) && value.every((t) => typeof t === 'string')) return value as string[];
  throw new StoreError('tags must be a list of strings or a comma-separated string');
}

function pick(item: Record<string, unknown>, keys: readonly string[]): unknown {
  for (const key of keys) if (item[key] !== undefined) return item[key];
  return undefined;
}

/** The item with a camelCase copy of each snake_case field (`tea memory export` writes `source_session_id`). */
function withCamelKeys(item: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...item };
  for (const [key, value] of Object.entries(item)) {
    const camel = key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    if (out[camel] === undefined) out[camel] = value;
  }
  return out;
}

function readItem(input: unknown): ImportableMemory {
  if (typeof input === 'string') return { content: input, category: 'fact' };
  if (!isRecord(input)) throw new StoreError('not an object with "content"');
  const raw = withCamelKeys(input);
  const content = pick(raw, ['content', 'text', 'memory', 'fact']);
  if (typeof content !== 'string' || content.trim() === '')
    throw new StoreError('"content" must be a non-empty string');
  const category = pick(raw, ['category', 'type', 'kind']) ?? 'fact';
  if (typeof category !== 'string' || !(CATEGORIES as readonly string[]).includes(category)) {
    throw new StoreError(`unknown category ${JSON.stringify(category)}: use one of ${CATEGORIES.join(', ')}`);
  }
  const out: ImportableMemory = {
    ...(raw as Partial<ImportableMemory>),
    content,
    category: category as Category,
  };
  const createdAt = readTime(pick(raw, TIME_KEYS));
  if (createdAt !== undefined) out.createdAt = createdAt;
  for (const [camel, snake] of [
    ['validFrom', 'valid_from'],
    ['validTo', 'valid_to'],
    ['expiresAt', 'expires_at'],
    ['deletedAt', 'deleted_at'],
    ['accessedAt', 'accessed_at'],
  ] as const) {
    const time = readTime(raw[camel] ?? raw[snake]);
    if (time !== undefined) out[camel] = time;
  }
  const supersededBy = raw.supersededBy ?? raw.superseded_by;
  if (typeof supersededBy === 'number') out.supersededBy = supersededBy;
  const tags = readTags(raw.tags);
  if (tags !== undefined) out.tags = tags;
  if (typeof raw.priority === 'number') out.priority = raw.priority as Priority;
  return out;
}

/**
 * The memories in a file's text; a StoreError names the item (1-based) that
 * cannot be read. A time more than a day after `now` is refused: nothing said
 * can date from the future.
 */
export function readMemoryFile(text: string, now: number = Date.now()): ImportableMemory[] {
  const items = rawItems(text);
  return items.map((raw, index) => {
    try {
      const item = readItem(raw);
      if (item.createdAt !== undefined && item.createdAt > now + 86_400_000) {
        throw new StoreError(`created_at ${new Date(item.createdAt).toISOString()} is in the future`);
      }
      return item;
    } catch (err) {
      throw new StoreError(`memory ${index + 1} of ${items.length}: ${(err as Error).message}`, 'invalid', {
        cause: err,
      });
    }
  });
}
