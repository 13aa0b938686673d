/**
 * Input checks and the small SQL reads MemoryService needs beyond the
 * repository (split from service.ts to keep files small).
 */
import { StoreError } from '../store/errors.js';
import type { ExtractedMemory } from './extract.js';
import { ACTIVE_SQL, type MemoryRepo } from './repo.js';
import { COLUMNS, type MemoryRow, toMemory, validate } from './repo-rows.js';
import { cached } from './statements.js';
import { CATEGORIES, type Memory, type NewMemory } from './types.js';

/** Stored memories compared with each new one by the ingest decision. */
export const INGEST_NEIGHBOURS = 25;
/** Close stored memories shown to the ingest judge at most. */
export const JUDGE_MAX_CANDIDATES = 12;

/** Content and category are required; the rest follows the repository's rules. */
export function checkNew(m: NewMemory): void {
  validate({ ...m, content: typeof m.content === 'string' ? m.content : '' });
  if (!CATEGORIES.includes(m.category)) {
    throw new StoreError(`a memory needs a category: one of ${CATEGORIES.join(', ')}`, 'invalid');
  }
}

/** An extracted memory as the service ingests it. */
export function fromExtracted(
  e: ExtractedMemory,
  ctx: { scope: string; sessionId?: string },
): NewMemory & { value?: string } {
  const out: NewMemory & { value?: string } = {
    content: e.content,
    category: e.category,
    subject: e.subject ?? null,
    attribute: e.attribute ?? null,
    scope: ctx.scope,
  };
  if (e.importance !== undefined) out.importance = e.importance;
  if (e.tags !== undefined) out.tags = e.tags;
  if (e.expiresAt !== undefined) out.expiresAt = e.expiresAt;
  if (e.value !== undefined) out.value = e.value;
  if (ctx.sessionId !== undefined) out.sourceSessionId = ctx.sessionId;
  return out;
}

/** Active memories of `scope` stating the same subject and attribute (case- and space-insensitive). */
export function sameKeyMemories(
  repo: MemoryRepo,
  subject: string,
  attribute: string,
  scope: string,
): Memory[] {
  return repo.db
    .prepare<Record<string, unknown>, MemoryRow>(
      `SELECT ${COLUMNS} FROM memories m WHERE ${ACTIVE_SQL} AND m.scope = @scope
         AND lower(trim(m.subject)) = @subject AND lower(trim(m.attribute)) = @attribute
         ORDER BY id DESC LIMIT ${INGEST_NEIGHBOURS}`,
    )
    .all({
      now: repo.now(),
      scope,
      subject: subject.trim().toLowerCase(),
      attribute: attribute.trim().toLowerCase(),
    })
    .map(toMemory);
}

/** Active CRITICAL and HIGH memories of the scopes: always candidates for a turn. */
export function activeImportant(repo: MemoryRepo, scopes: string[]): Memory[] {
  const rows = cached(
    repo.db,
    `SELECT ${COLUMNS} FROM memories m WHERE ${ACTIVE_SQL} AND m.priority <= 1
       AND m.scope IN (SELECT value FROM json_each(@scopes))`,
  ).all({ now: repo.now(), scopes: JSON.stringify(scopes) }) as MemoryRow[];
  return rows.map(toMemory);
}

/** Not deleted and not superseded (expired reminders included, so maintenance can clear them). */
export function liveMemories(repo: MemoryRepo): Memory[] {
  return repo.db
    .prepare<[], MemoryRow>(
      `SELECT ${COLUMNS} FROM memories WHERE deleted_at IS NULL AND valid_to IS NULL ORDER BY id`,
    )
    .all()
    .map(toMemory);
}
