/**
 * Which memories a reflection summary was made from (the `memory_sources`
 * table), and the rule that keeps a prompt from showing a summary next to the
 * very facts it summarises.
 */
import type Database from 'better-sqlite3';
import { cached } from './statements.js';
import type { Memory } from './types.js';

/** Links `summaryId` to each of `sourceIds` (links that already exist are kept). */
export function recordSources(db: Database.Database, summaryId: number, sourceIds: readonly number[]): void {
  const insert = cached(db, 'INSERT OR IGNORE INTO memory_sources (summary_id, source_id) VALUES (?, ?)');
  db.transaction(() => {
    for (const sourceId of new Set(sourceIds)) {
      if (sourceId !== summaryId) insert.run(summaryId, sourceId);
    }
  })();
}

/**
 * The recorded sources of each of `summaryIds`, ascending. Memories with no
 * recorded sources (not summaries, or summaries from before the links) are absent.
 */
export function sourcesOf(db: Database.Database, summaryIds: readonly number[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  if (summaryIds.length === 0) return out;
  const rows = cached(
    db,
    `SELECT summary_id AS summaryId, source_id AS sourceId FROM memory_sources
       WHERE summary_id IN (SELECT value FROM json_each(?)) ORDER BY summary_id, source_id`,
  ).all(JSON.stringify([...new Set(summaryIds)])) as Array<{ summaryId: number; sourceId: number }>;
  for (const { summaryId, sourceId } of rows) {
    const list = out.get(summaryId);
    if (list) list.push(sourceId);
    else out.set(summaryId, [sourceId]);
  }
  return out;
}

/**
 * `selected` without the summaries that have one of their sources selected too
 * (the facts themselves say it better), in the original order. `sources` maps a
 * summary's id to its sources' ids, as `sourcesOf` returns it.
 */
export function dropCoveredSummaries(selected: Memory[], sources: Map<number, number[]>): Memory[] {
  const ids = new Set(selected.map((m) => m.id));
  return selected.filter((m) => !(sources.get(m.id) ?? []).some((id) => id !== m.id && ids.has(id)));
}
