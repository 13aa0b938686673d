/**
 * Importing memories (e.g. an earlier `exportAll`) as new rows: history fields
 * are kept, `supersededBy` links inside the batch are remapped to the new ids,
 * and exact duplicates (same hash and scope) are skipped.
 */
import { StoreError } from '../store/errors.js';
import { contentHash, type MemoryRepo } from './repo.js';
import { validate } from './repo-rows.js';
import type { IngestInput, IngestOutcome, RememberResult } from './service-ingest.js';
import { checkNew } from './service-queries.js';
import { CATEGORIES, type Category, type Memory, type NewMemory } from './types.js';

export type ImportableMemory = Partial<Memory> & { content: string; category: Category };

function isInactive(m: ImportableMemory): boolean {
  return m.deletedAt != null || m.validTo != null || m.supersededBy != null;
}

/** Checks every item before anything is written; the error names the item. */
function checkAll(items: readonly ImportableMemory[]): void {
  if (!Array.isArray(items)) throw new StoreError('memories to import must be an array');
  items.forEach((item, index) => {
    try {
      if (item === null || typeof item !== 'object') throw new StoreError('not an object');
      validate({
        ...item,
        content: typeof item.content === 'string' ? item.content : '',
      });
      if (!CATEGORIES.includes(item.category)) {
        throw new StoreError(`a memory needs a category: one of ${CATEGORIES.join(', ')}`);
      }
    } catch (err) {
      throw new StoreError(
        `memory ${index + 1} of ${items.length} to import: ${(err as Error).message}`,
        'invalid',
        {
          cause: err,
        },
      );
    }
  });
}

function toNew(item: ImportableMemory): NewMemory {
  return {
    content: item.content,
    category: item.category,
    ...(item.priority === undefined ? {} : { priority: item.priority }),
    ...(item.importance === undefined ? {} : { importance: item.importance }),
    ...(item.tags === undefined ? {} : { tags: item.tags }),
    ...(item.expiresAt === undefined ? {} : { expiresAt: item.expiresAt }),
    ...(item.pinned === undefined ? {} : { pinned: item.pinned }),
    ...(item.subject === undefined ? {} : { subject: item.subject }),
    ...(item.attribute === undefined ? {} : { attribute: item.attribute }),
    ...(item.sourceSessionId === undefined ? {} : { sourceSessionId: item.sourceSessionId }),
    ...(item.sourceMessageId === undefined ? {} : { sourceMessageId: item.sourceMessageId }),
    scope: item.scope ?? 'user',
  };
}

/** An existing row the item would duplicate: an active one with its hash, or for history the same creation. */
function existing(repo: MemoryRepo, item: ImportableMemory, hash: string, scope: string): number | undefined {
  if (!isInactive(item)) return repo.findByHash(hash, scope)?.id;
  if (item.createdAt === undefined) return undefined;
  return repo.db
    .prepare<[string, string, number], number>(
      'SELECT id FROM memories WHERE content_hash = ? AND scope = ? AND created_at = ? LIMIT 1',
    )
    .pluck()
    .get(hash, scope, item.createdAt);
}

/** Adds the items in one transaction and returns the rows added (in input order). */
export function importMemories(repo: MemoryRepo, items: readonly ImportableMemory[]): Memory[] {
  checkAll(items);
  const db = repo.db;
  const run = db.transaction((): Memory[] => {
    const newId = new Map<number, number>();
    const added: Array<{ item: ImportableMemory; id: number }> = [];
    for (const item of items) {
      const scope = item.scope ?? 'user';
      const dup = existing(repo, item, contentHash(item.content), scope);
      if (dup !== undefined) {
        if (item.id !== undefined) newId.set(item.id, dup);
        continue;
      }
      const row = repo.add(toNew(item));
      if (item.id !== undefined) newId.set(item.id, row.id);
      const now = repo.now();
      db.prepare(
        `UPDATE memories SET created_at = @createdAt, valid_from = @validFrom, accessed_at = @accessedAt,
           access_count = @accessCount, valid_to = @validTo, deleted_at = @deletedAt WHERE id = @id`,
      ).run({
        id: row.id,
        createdAt: item.createdAt ?? row.createdAt,
        validFrom: item.validFrom ?? item.createdAt ?? row.validFrom,
        accessedAt: item.accessedAt ?? null,
        accessCount: item.accessCount ?? 0,
        validTo: item.validTo ?? (item.supersededBy != null ? now : null),
        deletedAt: item.deletedAt ?? null,
      });
      added.push({ item, id: row.id });
    }
    const link = db.prepare('UPDATE memories SET superseded_by = ? WHERE id = ?');
    for (const { item, id } of added) {
      const target = item.supersededBy == null ? undefined : newId.get(item.supersededBy);
      if (target !== undefined) link.run(target, id);
    }
    return repo.getMany(added.map((a) => a.id));
  });
  return run.immediate();
}

/** The fields of an imported item that a new statement carries (history fields are the ingest's to set). */
export function statementOf(item: ImportableMemory): IngestInput {
  const out: IngestInput = { content: item.content, category: item.category };
  if (item.priority !== undefined) out.priority = item.priority;
  if (item.importance !== undefined) out.importance = item.importance;
  if (item.tags !== undefined) out.tags = item.tags;
  if (item.expiresAt !== undefined) out.expiresAt = item.expiresAt;
  if (item.pinned !== undefined) out.pinned = item.pinned;
  if (item.subject) out.subject = item.subject;
  if (item.attribute) out.attribute = item.attribute;
  if (item.scope !== undefined) out.scope = item.scope;
  return out;
}

/**
 * Ingests statements one at a time in time order (oldest first; items without a
 * time last, as said now) through `remember`; all are checked before any is added.
 */
export async function ingestInTimeOrder(
  items: ImportableMemory[],
  remember: (statement: IngestInput, at: number | undefined) => Promise<RememberResult>,
  onProgress?: (done: number, total: number) => void,
): Promise<Record<IngestOutcome, number>> {
  items.forEach((item, index) => {
    try {
      checkNew(item);
    } catch (err) {
      throw new StoreError(`memory ${index + 1} of ${items.length}: ${(err as Error).message}`, 'invalid');
    }
  });
  const counts: Record<IngestOutcome, number> = { new: 0, update: 0, duplicate: 0, history: 0 };
  const ordered = [...items].sort(
    (a, b) => (a.createdAt ?? Number.POSITIVE_INFINITY) - (b.createdAt ?? Number.POSITIVE_INFINITY),
  );
  for (const [i, item] of ordered.entries()) {
    counts[(await remember(statementOf(item), item.createdAt)).outcome] += 1;
    onProgress?.(i + 1, ordered.length);
  }
  return counts;
}
