/**
 * A memory's two full-text rows (trigram over content and tags; words, segmented
 * here in JavaScript), rowid = the memory's id. Written with every change to a
 * memory's text, and all at once when `tea db repair` rebuilds the index.
 */
import type Database from 'better-sqlite3';
import { segmentWords } from './segment.js';
import { cached } from './statements.js';

/** Rewrites both full-text rows of memory `id`. */
export function writeTextIndex(
  db: Database.Database,
  id: number,
  content: string,
  tags: readonly string[],
): void {
  const tagText = tags.join(' ');
  cached(db, 'DELETE FROM memories_fts_trigram WHERE rowid = ?').run(id);
  cached(db, 'DELETE FROM memories_fts_words WHERE rowid = ?').run(id);
  cached(db, 'INSERT INTO memories_fts_trigram (rowid, content, tags) VALUES (?, ?, ?)').run(
    id,
    content,
    tagText,
  );
  cached(db, 'INSERT INTO memories_fts_words (rowid, words) VALUES (?, ?)').run(
    id,
    segmentWords(`${content} ${tagText}`),
  );
}
