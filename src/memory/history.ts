/**
 * Version history of memories: the chain of versions linked by `superseded_by`
 * (an update keeps the old version with its validity dates), read both ways.
 */
import { StoreError } from '../store/errors.js';
import type { MemoryRepo } from './repo.js';
import { COLUMNS, type MemoryRow, toMemory } from './repo-rows.js';
import { cached } from './statements.js';
import type { Memory } from './types.js';

/** Longest chain followed forward; a cycle (never written by the store) cannot loop forever. */
const MAX_CHAIN = 1000;

/**
 * For each id, every memory it replaced, directly or through earlier updates,
 * newest first. Ids that replaced nothing are absent from the map.
 */
export function predecessorsOf(repo: MemoryRepo, ids: readonly number[]): Map<number, Memory[]> {
  const out = new Map<number, Memory[]>();
  if (ids.length === 0) return out;
  const rows = cached(
    repo.db,
    `WITH RECURSIVE back(id, root, depth) AS (
       SELECT id, superseded_by, 1 FROM memories WHERE superseded_by IN (SELECT value FROM json_each(@ids))
       UNION
       SELECT m.id, back.root, back.depth + 1 FROM memories m JOIN back ON m.superseded_by = back.id
         WHERE back.depth < ${MAX_CHAIN}
     )
     SELECT back.root AS root, ${COLUMNS.split(', ')
       .map((c) => `m.${c}`)
       .join(', ')}
       FROM back JOIN memories m ON m.id = back.id`,
  ).all({ ids: JSON.stringify(ids) }) as Array<MemoryRow & { root: number }>;
  for (const row of rows) {
    const list = out.get(row.root) ?? [];
    list.push(toMemory(row));
    out.set(row.root, list);
  }
  for (const list of out.values()) list.sort(newestFirst);
  return out;
}

export function newestFirst(a: Memory, b: Memory): number {
  return b.validFrom - a.validFrom || b.id - a.id;
}

/**
 * Every version of the fact `id` belongs to, newest first: follows the updates
 * forward to the latest version, then gathers everything that one replaced.
 * Undefined when there is no such memory.
 */
export function chainOf(repo: MemoryRepo, id: number): Memory[] | undefined {
  let head = repo.get(id);
  if (head === undefined) return undefined;
  for (let steps = 0; head.supersededBy !== null && steps < MAX_CHAIN; steps++) {
    const next = repo.get(head.supersededBy);
    if (next === undefined) break;
    head = next;
  }
  return [head, ...(predecessorsOf(repo, [head.id]).get(head.id) ?? [])];
}

/**
 * Brings an old version back. Plainly, the superseded or forgotten row is active
 * again beside the version that replaced it (an update that should not have
 * happened: the two are separate facts, the link between them is cut). With
 * `replace`, its statement becomes the current version from now on: a new row
 * that supersedes the latest version of the chain, so the history stays a
 * sequence of periods that never overlap. A version already active beside a newer
 * one (restored plainly earlier, or never linked to it) has no chain to follow:
 * `newerVersions` names the newer versions search folds it under, and the newest
 * of them is replaced (the restored row ends too, so the new row is the one current).
 */
export function restoreMemory(
  repo: MemoryRepo,
  id: number,
  opts: { replace?: boolean; newerVersions?: (m: Memory) => Memory[] } = {},
): { memory: Memory; replaced?: Memory } {
  const before = repo.get(id);
  if (before === undefined) throw new StoreError(`no memory with id ${id}`, 'not-found');
  const active = (m: Memory) => m.deletedAt === null && m.validTo === null;
  if (opts.replace !== true) {
    if (active(before))
      throw new StoreError(`memory ${id} is already active; nothing to restore`, 'conflict');
    return { memory: repo.reactivate(id) };
  }
  let latest = (chainOf(repo, id) ?? [before])[0] as Memory;
  const beside = latest.id === id && active(before);
  if (beside) {
    const newer = (opts.newerVersions?.(before) ?? []).filter((m) => m.id !== id && active(m));
    if (newer.length === 0) {
      throw new StoreError(`memory ${id} is already the current version; nothing to restore`, 'conflict');
    }
    latest = newer.sort(newestFirst)[0] as Memory;
  }
  return repo.db.transaction(() => {
    const memory = repo.add({
      content: before.content,
      category: before.category,
      priority: before.priority,
      importance: before.importance,
      tags: before.tags,
      pinned: before.pinned,
      subject: before.subject,
      attribute: before.attribute,
      scope: before.scope,
    });
    if (beside) repo.supersede(before.id, memory.id, memory.validFrom);
    if (!active(latest)) return { memory };
    const replaced = repo.supersede(latest.id, memory.id, memory.validFrom);
    return { memory, replaced };
  })();
}

/**
 * A stored version with this content hash that was valid at `at` (current or
 * superseded, not deleted): re-importing dated statements finds them and adds
 * nothing.
 */
export function versionAt(repo: MemoryRepo, hash: string, scope: string, at: number): Memory | undefined {
  const row = cached(
    repo.db,
    `SELECT ${COLUMNS} FROM memories WHERE content_hash = @hash AND scope = @scope AND deleted_at IS NULL
       AND valid_from <= @at AND (valid_to IS NULL OR valid_to > @at) ORDER BY valid_from DESC LIMIT 1`,
  ).get({ hash, scope, at }) as MemoryRow | undefined;
  return row === undefined ? undefined : toMemory(row);
}
