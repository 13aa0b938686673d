/**
 * Row mapping, validation and sqlite-vec helpers for the memory repository
 * (split from repo.ts to keep files small).
 */
import { createRequire } from 'node:module';
import type Database from 'better-sqlite3';
import type * as SqliteVec from 'sqlite-vec';
import { StoreError } from '../store/errors.js';
import { packageFile } from '../store/package-file.js';
import { nodeCrypto } from '../util/node-crypto.js';
import { CATEGORIES, type Category, type Memory, type Priority } from './types.js';

/** Fields `update` may change; a content change clears the stored embedding. */
export type MemoryPatch = Partial<
  Pick<
    Memory,
    | 'content'
    | 'priority'
    | 'importance'
    | 'category'
    | 'tags'
    | 'expiresAt'
    | 'pinned'
    | 'subject'
    | 'attribute'
    | 'scope'
  >
>;

export interface MemoryRow {
  id: number;
  content: string;
  priority: number;
  importance: number;
  category: string;
  tags: string;
  content_hash: string;
  expires_at: number | null;
  pinned: number;
  created_at: number;
  accessed_at: number | null;
  access_count: number;
  valid_from: number;
  valid_to: number | null;
  superseded_by: number | null;
  subject: string | null;
  attribute: string | null;
  source_session_id: string | null;
  source_message_id: number | null;
  scope: string;
  deleted_at: number | null;
}

export const COLUMNS =
  'id, content, priority, importance, category, tags, content_hash, expires_at, pinned, created_at, ' +
  'accessed_at, access_count, valid_from, valid_to, superseded_by, subject, attribute, ' +
  'source_session_id, source_message_id, scope, deleted_at';

/** SQL condition (on alias `m`) for "active": not deleted, not superseded, not expired at `@now`. */
export const ACTIVE_SQL =
  'm.deleted_at IS NULL AND m.valid_to IS NULL AND (m.expires_at IS NULL OR m.expires_at > @now)';

/** First 16 hex chars of SHA-256 of the trimmed, whitespace-collapsed, lower-cased content. */
export function contentHash(content: string): string {
  const normalised = content.trim().replace(/\s+/g, ' ').toLowerCase();
  return nodeCrypto().createHash('sha256').update(normalised).digest('hex').slice(0, 16);
}

const vectorReady = new WeakSet<Database.Database>();

/**
 * The sqlite-vec extension in this platform's package, found by its path (faster
 * than the module resolution `sqliteVec.load` runs; see package-file.ts), else
 * where sqlite-vec itself says (which also explains an unsupported platform).
 */
function vectorExtension(): string {
  const os = process.platform === 'win32' ? 'windows' : process.platform;
  const suffix = process.platform === 'win32' ? 'dll' : process.platform === 'darwin' ? 'dylib' : 'so';
  const found = packageFile(`sqlite-vec-${os}-${process.arch}`, `vec0.${suffix}`);
  if (found !== undefined) return found;
  return (createRequire(import.meta.url)('sqlite-vec') as typeof SqliteVec).getLoadablePath();
}

/** Loads sqlite-vec into this connection once. */
export function ensureVectorSupport(db: Database.Database): void {
  if (vectorReady.has(db)) return;
  try {
    db.loadExtension(vectorExtension());
  } catch (err) {
    throw new StoreError(`cannot load the sqlite-vec extension: ${(err as Error).message}`, 'open-failed', {
      cause: err,
    });
  }
  vectorReady.add(db);
}

export function checkVector(vector: Float32Array, embedder: string | undefined): asserts embedder is string {
  if (!(vector instanceof Float32Array) || vector.length === 0 || vector.length > 8192) {
    throw new StoreError('a memory embedding must be a Float32Array of 1 to 8192 numbers', 'invalid');
  }
  if (!vector.every(Number.isFinite))
    throw new StoreError('a memory embedding has a NaN or infinite value', 'invalid');
  if (typeof embedder !== 'string' || embedder.trim() === '') {
    throw new StoreError('a memory embedding needs the id of the embedder that produced it', 'invalid');
  }
}

export function toMemory(row: MemoryRow): Memory {
  return {
    id: row.id,
    content: row.content,
    priority: row.priority as Priority,
    importance: row.importance,
    category: row.category as Category,
    tags: JSON.parse(row.tags) as string[],
    contentHash: row.content_hash,
    expiresAt: row.expires_at,
    pinned: row.pinned === 1,
    createdAt: row.created_at,
    accessedAt: row.accessed_at,
    accessCount: row.access_count,
    validFrom: row.valid_from,
    validTo: row.valid_to,
    supersededBy: row.superseded_by,
    subject: row.subject,
    attribute: row.attribute,
    sourceSessionId: row.source_session_id,
    sourceMessageId: row.source_message_id,
    scope: row.scope,
    deletedAt: row.deleted_at,
  };
}

export function validate(m: MemoryPatch): void {
  if (m.content !== undefined && (typeof m.content !== 'string' || m.content.trim() === '')) {
    throw new StoreError('memory content must be a non-empty string', 'invalid');
  }
  if (m.category !== undefined && !CATEGORIES.includes(m.category)) {
    throw new StoreError(
      `unknown memory category "${String(m.category)}"; use one of ${CATEGORIES.join(', ')}`,
    );
  }
  if (m.priority !== undefined && ![0, 1, 2, 3].includes(m.priority)) {
    throw new StoreError(`memory priority must be 0, 1, 2 or 3, got ${String(m.priority)}`);
  }
  if (
    m.importance !== undefined &&
    !(Number.isInteger(m.importance) && m.importance >= 1 && m.importance <= 5)
  ) {
    throw new StoreError(`memory importance must be an integer from 1 to 5, got ${String(m.importance)}`);
  }
  if (m.tags !== undefined && !(Array.isArray(m.tags) && m.tags.every((t) => typeof t === 'string'))) {
    throw new StoreError('memory tags must be an array of strings');
  }
  if (m.scope !== undefined && (typeof m.scope !== 'string' || m.scope.trim() === '')) {
    throw new StoreError('memory scope must be a non-empty string ("user", "global" or "project:<path>")');
  }
}

export function cleanTags(tags: readonly string[]): string[] {
  return [...new Set(tags.map((t) => t.trim()).filter((t) => t !== ''))];
}
