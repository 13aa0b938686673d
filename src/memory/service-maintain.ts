/**
 * Store maintenance, run by recall at most once an hour: age decay of priorities,
 * expired reminders and CRITICAL memories beyond the per-scope cap soft-deleted.
 * Also re-embedding, after a turn or when a search finds vectors stale.
 */
import { criticalOverflow, decayChanges, expiredReminders } from './decay.js';
import type { MemoryRepo } from './repo.js';
import { liveMemories } from './service-queries.js';
import type { Embedder, Memory } from './types.js';

/** One maintenance pass at `now`, in one transaction. */
export function maintainMemories(
  repo: MemoryRepo,
  now: number,
): { decayed: number; expired: number; evicted: number } {
  const run = repo.db.transaction(() => {
    const live = liveMemories(repo);
    const changes = decayChanges(live, now);
    for (const change of changes) repo.setPriority(change.id, change.priority);
    const expired = new Set(expiredReminders(live, now));
    for (const id of expired) repo.softDelete(id);

    const priorityOf = new Map(changes.map((c) => [c.id, c.priority]));
    const byScope = new Map<string, Memory[]>();
    for (const m of live) {
      if (expired.has(m.id)) continue;
      const current = { ...m, priority: priorityOf.get(m.id) ?? m.priority };
      byScope.set(m.scope, [...(byScope.get(m.scope) ?? []), current]);
    }
    let evicted = 0;
    for (const group of byScope.values()) {
      for (const id of criticalOverflow(group)) {
        repo.softDelete(id);
        evicted += 1;
      }
    }
    return { decayed: changes.length, expired: expired.size, evicted };
  });
  return run.immediate();
}

/** Re-embeds up to `limit` active memories whose vector is missing or from another embedder, `batch` per call. */
export async function reembedMissing(
  repo: MemoryRepo,
  embedder: Embedder,
  limit: number,
  batch: number,
): Promise<number> {
  let done = 0;
  while (done < limit) {
    const memories = repo.withoutEmbedding(embedder.id, Math.min(batch, limit - done));
    if (memories.length === 0) break;
    const vectors = await embedder.embed(memories.map((m) => m.content));
    if (vectors.length !== memories.length) {
      throw new Error(
        `embedder ${embedder.id} returned ${vectors.length} vectors for ${memories.length} texts`,
      );
    }
    repo.db.transaction(() => {
      memories.forEach((m, i) => {
        const vector = vectors[i];
        if (vector !== undefined) repo.setEmbedding(m.id, vector, embedder.id);
      });
    })();
    done += memories.length;
  }
  return done;
}
