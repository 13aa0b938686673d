/**
 * Migration 12 (listed in migrations-evolve.ts, which keeps migrations.ts small): task
 * evaluations (the evolve layer's verdict on each prompt a person gave), and the memory
 * category `lesson` (what a failed task taught, recalled for similar tasks).
 *
 * SQLite cannot change a CHECK constraint in place, so `memories` is rebuilt. Foreign
 * keys are on and cannot be turned off inside the migration's transaction: dropping the
 * old table would cascade into `memory_sources` (its rows are kept aside and put back),
 * and the new table's self-reference names itself so the drop does not null it. Ids,
 * the AUTOINCREMENT counter and every index stay as they were; the full-text and vector
 * tables key on the id, so they need nothing.
 */
import type Database from 'better-sqlite3';

const MEMORY_COLUMNS = `
  id                INTEGER PRIMARY KEY AUTOINCREMENT,
  content           TEXT NOT NULL,
  priority          INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 3),
  importance        INTEGER NOT NULL DEFAULT 3 CHECK (importance BETWEEN 1 AND 5),
  category          TEXT NOT NULL
                    CHECK (category IN ('instruction', 'preference', 'fact', 'reminder', 'general', 'lesson')),
  tags              TEXT NOT NULL DEFAULT '[]',
  content_hash      TEXT NOT NULL,
  embedding         BLOB,
  embedder          TEXT,
  expires_at        INTEGER,
  pinned            INTEGER NOT NULL DEFAULT 0,
  created_at        INTEGER NOT NULL,
  accessed_at       INTEGER,
  access_count      INTEGER NOT NULL DEFAULT 0,
  valid_from        INTEGER NOT NULL,
  valid_to          INTEGER,
  superseded_by     INTEGER REFERENCES memories_v12 (id) ON DELETE SET NULL,
  subject           TEXT,
  attribute         TEXT,
  source_session_id TEXT,
  source_message_id INTEGER,
  scope             TEXT NOT NULL DEFAULT 'user',
  deleted_at        INTEGER`;

const MEMORY_INDEXES = `
  CREATE INDEX memories_active ON memories (scope, priority, created_at)
    WHERE deleted_at IS NULL AND valid_to IS NULL;
  CREATE INDEX memories_by_scope ON memories (scope);
  CREATE INDEX memories_by_priority ON memories (priority);
  CREATE INDEX memories_by_hash ON memories (content_hash);
  CREATE INDEX memories_by_subject ON memories (subject, attribute)
    WHERE subject IS NOT NULL AND deleted_at IS NULL AND valid_to IS NULL;
  CREATE INDEX memories_by_embedder ON memories (embedder);
  CREATE INDEX memories_by_successor ON memories (superseded_by) WHERE superseded_by IS NOT NULL;`;

/**
 * One row per prompt of a top-level session: seq is the prompt's first message (the
 * user's words) in the transcript, so (session_id, seq) names the prompt and orders a
 * session's evaluations. signals: a JSON object (stop reason, tests run and their
 * result, tool errors, the user's reaction…). revised_at: when the user's next message
 * changed the outcome. lesson_memory_id: the lesson memory written from a failure.
 */
const TASK_EVALUATIONS = `
  CREATE TABLE task_evaluations (
    id               INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id       TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq              INTEGER NOT NULL,
    input            TEXT NOT NULL,
    outcome          TEXT NOT NULL CHECK (outcome IN ('succeeded', 'failed', 'abandoned')),
    signals          TEXT NOT NULL DEFAULT '{}',
    lesson_memory_id INTEGER REFERENCES memories (id) ON DELETE SET NULL,
    revised_at       INTEGER,
    created_at       INTEGER NOT NULL,
    UNIQUE (session_id, seq)
  );
  CREATE INDEX task_evaluations_by_created ON task_evaluations (created_at);`;

function up(db: Database.Database): void {
  const counter = db
    .prepare<[], number>("SELECT seq FROM sqlite_sequence WHERE name = 'memories'")
    .pluck()
    .get();
  db.exec(`
    CREATE TEMP TABLE memory_sources_kept AS SELECT * FROM memory_sources;
    CREATE TABLE memories_v12 (${MEMORY_COLUMNS}
    );
    INSERT INTO memories_v12 SELECT * FROM memories;
    DROP TABLE memories;
    ALTER TABLE memories_v12 RENAME TO memories;
    INSERT INTO memory_sources SELECT * FROM temp.memory_sources_kept;
    DROP TABLE temp.memory_sources_kept;
    ${MEMORY_INDEXES}
    ${TASK_EVALUATIONS}
  `);
  if (counter === undefined) return;
  const kept = db
    .prepare("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'memories'")
    .run(counter);
  if (kept.changes === 0)
    db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('memories', ?)").run(counter);
}

/** Typed by shape (not `Migration`): importing the type from migrations.ts would make a cycle. */
export const TASK_EVALUATIONS_MIGRATION = {
  version: 12,
  name: "task evaluations; memory category 'lesson'",
  up,
};
