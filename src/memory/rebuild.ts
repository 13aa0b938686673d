/**
 * Memory's search indexes rebuilt from the `memories` table alone: both full-text
 * tables, and a vector index for each size of stored vector among the active
 * memories. `tea db repair` runs it on the new file it builds from a damaged one
 * (which has every table's rows, and these indexes empty or absent).
 */
import type Database from 'better-sqlite3';
import { writeTextIndex } from './text-index.js';
import { ensureVectorIndex } from './vector-index.js';

function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare('SELECT 1 FROM sqlite_schema WHERE name = ?').get(name) !== undefined;
}

function tagsOf(json: string): string[] {
  try {
    const tags: unknown = JSON.parse(json);
    return Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Fills memory's full-text tables (emptied first) from `memories`, and creates the
 * vector index of each dimension in use (filled from the stored vectors) where it
 * does not exist. Returns the tables it rebuilt.
 */
export function rebuildSearchIndexes(db: Database.Database): string[] {
  if (!hasTable(db, 'memories')) return [];
  const rebuilt: string[] = [];
  if (hasTable(db, 'memories_fts_trigram') && hasTable(db, 'memories_fts_words')) {
    db.transaction(() => {
      db.exec('DELETE FROM memories_fts_trigram; DELETE FROM memories_fts_words;');
      const rows = db
        .prepare<[], { id: number; content: string; tags: string }>('SELECT id, content, tags FROM memories')
        .all();
      for (const r of rows) writeTextIndex(db, r.id, r.content, tagsOf(r.tags));
    }).immediate();
    rebuilt.push('memories_fts_trigram', 'memories_fts_words');
  }
  const dims = db
    .prepare(
      `SELECT DISTINCT length(embedding) / 4 FROM memories
         WHERE embedding IS NOT NULL AND deleted_at IS NULL AND valid_to IS NULL ORDER BY 1`,
    )
    .pluck()
    .all() as number[];
  for (const d of dims) rebuilt.push(ensureVectorIndex(db, d));
  return rebuilt;
}
