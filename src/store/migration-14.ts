/**
 * Migration 14: the operation journal (agent/journal/). One row per round (one turn of
 * a session that changed files), with the shadow repository's trees before and after
 * it, and one row per file it changed: the blobs on each side (null: absent) and their
 * git modes (100644, 100755, 120000). state: 'applied' (as the turn left it), 'undone'
 * (reverted; redo re-applies), 'dropped' (undone, then a new round ended the redo stack).
 */
export const JOURNAL_MIGRATION = {
  version: 14,
  name: 'operation journal: rounds and the files each changed (undo/redo)',
  up: `
    CREATE TABLE journal_rounds (
      id          INTEGER PRIMARY KEY AUTOINCREMENT,
      session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
      turn_id     TEXT NOT NULL,
      workspace   TEXT NOT NULL,
      before_tree TEXT NOT NULL,
      after_tree  TEXT NOT NULL,
      state       TEXT NOT NULL DEFAULT 'applied' CHECK (state IN ('applied', 'undone', 'dropped')),
      created_at  INTEGER NOT NULL,
      changed_at  INTEGER NOT NULL
    );
    CREATE INDEX journal_rounds_by_session ON journal_rounds (session_id, id);

    CREATE TABLE journal_files (
      round_id    INTEGER NOT NULL REFERENCES journal_rounds (id) ON DELETE CASCADE,
      path        TEXT NOT NULL,
      before_blob TEXT,
      after_blob  TEXT,
      before_mode TEXT,
      after_mode  TEXT,
      PRIMARY KEY (round_id, path)
    );
  `,
};
