import type Database from 'better-sqlite3';
import { EVOLVE_MIGRATIONS } from './migrations-evolve.js';

/**
 * One schema step. `version` numbers run 1, 2, 3, … with no gaps; each runs in its own
 * transaction and the database records the last applied in `PRAGMA user_version`. To
 * change the schema, append a new entry (12 on: migrations-evolve.ts); never edit a shipped one.
 */
export interface Migration {
  version: number;
  name: string;
  up: string | ((db: Database.Database) => void);
}

export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'sessions, messages, tool calls, usage',
    up: `
      CREATE TABLE sessions (
        id         TEXT PRIMARY KEY NOT NULL,
        title      TEXT,
        cwd        TEXT NOT NULL,
        model      TEXT,
        profile    TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE INDEX sessions_by_updated ON sessions (updated_at);
      CREATE INDEX sessions_by_cwd_updated ON sessions (cwd, updated_at);

      CREATE TABLE messages (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,
        turn_id    TEXT NOT NULL,
        role       TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
        parts      TEXT NOT NULL,
        status     TEXT NOT NULL DEFAULT 'complete' CHECK (status IN ('complete', 'partial')),
        created_at INTEGER NOT NULL,
        UNIQUE (session_id, seq)
      );
      CREATE INDEX messages_by_turn ON messages (session_id, turn_id);

      -- call_id comes from the model and is only unique within a session, so rows get a
      -- surrogate key and (session_id, call_id) is the unique pair.
      CREATE TABLE tool_calls (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        call_id     TEXT NOT NULL,
        turn_id     TEXT NOT NULL,
        name        TEXT NOT NULL,
        args        TEXT NOT NULL,
        status      TEXT NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'ok', 'error', 'cancelled', 'skipped')),
        output      TEXT,
        started_at  INTEGER NOT NULL,
        finished_at INTEGER,
        duration_ms REAL,
        UNIQUE (session_id, call_id)
      );
      CREATE INDEX tool_calls_by_call_id ON tool_calls (call_id);
      CREATE INDEX tool_calls_running ON tool_calls (session_id) WHERE finished_at IS NULL;

      CREATE TABLE usage (
        id                  INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id          TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        turn_id             TEXT NOT NULL,
        profile             TEXT NOT NULL,
        model               TEXT NOT NULL,
        input_tokens        INTEGER NOT NULL DEFAULT 0,
        output_tokens       INTEGER NOT NULL DEFAULT 0,
        cached_input_tokens INTEGER NOT NULL DEFAULT 0,
        reasoning_tokens    INTEGER NOT NULL DEFAULT 0,
        cost_usd            REAL NOT NULL DEFAULT 0,
        created_at          INTEGER NOT NULL
      );
      CREATE INDEX usage_by_session ON usage (session_id);
    `,
  },
  {
    version: 2,
    name: "tool call status 'denied'; per-session state",
    // SQLite cannot change a CHECK constraint in place: rebuild tool_calls.
    up: `
      CREATE TABLE tool_calls_v2 (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        call_id     TEXT NOT NULL,
        turn_id     TEXT NOT NULL,
        name        TEXT NOT NULL,
        args        TEXT NOT NULL,
        status      TEXT NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'ok', 'error', 'cancelled', 'skipped', 'denied')),
        output      TEXT,
        started_at  INTEGER NOT NULL,
        finished_at INTEGER,
        duration_ms REAL,
        UNIQUE (session_id, call_id)
      );
      INSERT INTO tool_calls_v2 SELECT * FROM tool_calls;
      DROP TABLE tool_calls;
      ALTER TABLE tool_calls_v2 RENAME TO tool_calls;
      CREATE INDEX tool_calls_by_call_id ON tool_calls (call_id);
      CREATE INDEX tool_calls_running ON tool_calls (session_id) WHERE finished_at IS NULL;

      -- Small JSON values a session keeps between turns and runs: the todo list,
      -- the tools whose schemas the model has loaded, permission grants.
      CREATE TABLE session_state (
        session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        key        TEXT NOT NULL,
        value      TEXT NOT NULL,
        updated_at INTEGER NOT NULL,
        PRIMARY KEY (session_id, key)
      );
    `,
  },
  {
    version: 3,
    name: 'long-term memories with trigram and word full-text indexes',
    // The two FTS tables are kept in sync by src/memory/repo.ts (word segmentation
    // runs in JS), in the same transaction as each row write; rowid = memories.id.
    // Vector tables (sqlite-vec vec0, one per dimension) are created on demand.
    up: `
      CREATE TABLE memories (
        id                INTEGER PRIMARY KEY AUTOINCREMENT,
        content           TEXT NOT NULL,
        priority          INTEGER NOT NULL CHECK (priority BETWEEN 0 AND 3),
        importance        INTEGER NOT NULL DEFAULT 3 CHECK (importance BETWEEN 1 AND 5),
        category          TEXT NOT NULL
                          CHECK (category IN ('instruction', 'preference', 'fact', 'reminder', 'general')),
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
        superseded_by     INTEGER REFERENCES memories (id) ON DELETE SET NULL,
        subject           TEXT,
        attribute         TEXT,
        source_session_id TEXT,
        source_message_id INTEGER,
        scope             TEXT NOT NULL DEFAULT 'user',
        deleted_at        INTEGER
      );
      CREATE INDEX memories_active ON memories (scope, priority, created_at)
        WHERE deleted_at IS NULL AND valid_to IS NULL;
      CREATE INDEX memories_by_scope ON memories (scope);
      CREATE INDEX memories_by_priority ON memories (priority);
      CREATE INDEX memories_by_hash ON memories (content_hash);
      CREATE INDEX memories_by_subject ON memories (subject, attribute)
        WHERE subject IS NOT NULL AND deleted_at IS NULL AND valid_to IS NULL;
      CREATE INDEX memories_by_embedder ON memories (embedder);

      CREATE VIRTUAL TABLE memories_fts_trigram USING fts5 (content, tags, tokenize = 'trigram');
      CREATE VIRTUAL TABLE memories_fts_words USING fts5 (words, tokenize = 'unicode61 remove_diacritics 2');
    `,
  },
  {
    version: 4,
    name: 'memory profile (a short free-text block per scope)',
    up: `
      CREATE TABLE memory_profile (
        scope      TEXT PRIMARY KEY NOT NULL,
        text       TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 5,
    name: 'reflection summaries linked to their source memories; keyword summaries retired; update chains indexed',
    up: (db) => {
      db.exec(`
        CREATE TABLE memory_sources (
          summary_id INTEGER NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
          source_id  INTEGER NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
          PRIMARY KEY (summary_id, source_id)
        ) WITHOUT ROWID;
        CREATE INDEX memory_sources_by_source ON memory_sources (source_id);
        -- Version history reads update chains backwards (which memories did this one replace?).
        CREATE INDEX memories_by_successor ON memories (superseded_by) WHERE superseded_by IS NOT NULL;
      `);
      // The keyword-frequency summaries of earlier versions concatenated unrelated
      // memories and outranked them; they are soft-deleted (kept for history).
      db.prepare(
        `UPDATE memories SET deleted_at = ?
           WHERE deleted_at IS NULL AND tags LIKE '%"reflection"%'
             AND content LIKE 'Summary of % recent % (key topics: %'`,
      ).run(Date.now());
    },
  },
  {
    version: 6,
    name: "session leases (one runner per session across processes); tool call status 'interrupted'",
    up: `
      -- The runner that holds a session: a row per leased session, removed on release.
      -- owner is one Session object's random id; pid, host and proc_start tell whether
      -- that process still runs; expires_at (renewed by a heartbeat) covers other hosts.
      CREATE TABLE session_leases (
        session_id   TEXT PRIMARY KEY NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        owner        TEXT NOT NULL,
        pid          INTEGER NOT NULL,
        host         TEXT NOT NULL,
        proc_start   TEXT,
        acquired_at  INTEGER NOT NULL,
        heartbeat_at INTEGER NOT NULL,
        expires_at   INTEGER NOT NULL
      );

      -- A call whose process died before it finished is answered as 'interrupted'.
      CREATE TABLE tool_calls_v6 (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        call_id     TEXT NOT NULL,
        turn_id     TEXT NOT NULL,
        name        TEXT NOT NULL,
        args        TEXT NOT NULL,
        status      TEXT NOT NULL DEFAULT 'running'
                    CHECK (status IN ('running', 'ok', 'error', 'cancelled', 'skipped', 'denied', 'interrupted')),
        output      TEXT,
        started_at  INTEGER NOT NULL,
        finished_at INTEGER,
        duration_ms REAL,
        UNIQUE (session_id, call_id)
      );
      INSERT INTO tool_calls_v6 SELECT * FROM tool_calls;
      DROP TABLE tool_calls;
      ALTER TABLE tool_calls_v6 RENAME TO tool_calls;
      CREATE INDEX tool_calls_by_call_id ON tool_calls (call_id);
      CREATE INDEX tool_calls_running ON tool_calls (session_id) WHERE finished_at IS NULL;
    `,
  },
  {
    version: 7,
    name: 'long message texts stored in pieces (written a piece at a time, so a pasted megabyte never holds the process)',
    up: `
      -- A text written in pieces belongs to its message once the message is stored: the
      -- owner row is inserted in the same transaction (the pieces themselves are never
      -- rewritten). Pieces without an owner are from a write that never finished.
      CREATE TABLE message_text_pieces (
        id         INTEGER PRIMARY KEY,
        spill_id   TEXT NOT NULL,
        idx        INTEGER NOT NULL,
        created_at INTEGER NOT NULL,
        text       TEXT NOT NULL,
        UNIQUE (spill_id, idx)
      );
      CREATE TABLE message_text_owners (
        spill_id   TEXT PRIMARY KEY NOT NULL,
        message_id INTEGER NOT NULL REFERENCES messages (id) ON DELETE CASCADE
      );
      CREATE INDEX message_text_owners_by_message ON message_text_owners (message_id);
      CREATE TRIGGER message_text_owners_gone AFTER DELETE ON message_text_owners BEGIN
        DELETE FROM message_text_pieces WHERE spill_id = old.spill_id;
      END;
    `,
  },
  {
    version: 8,
    name: "tool call states (pending, awaiting_approval, running, completed…); a call's creation and start times apart",
    // The states of the one tool-call record (store/tool-record.ts): 'ok' is now 'completed'.
    // A row is written when the call is received, so created_at is when; started_at is
    // when it began running (null: it never ran).
    up: `
      CREATE TABLE tool_calls_v8 (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id  TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
        call_id     TEXT NOT NULL,
        turn_id     TEXT NOT NULL,
        name        TEXT NOT NULL,
        args        TEXT NOT NULL,
        status      TEXT NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'awaiting_approval', 'running', 'completed', 'error',
                                      'denied', 'cancelled', 'skipped', 'interrupted')),
        output      TEXT,
        created_at  INTEGER NOT NULL,
        started_at  INTEGER,
        finished_at INTEGER,
        duration_ms REAL,
        UNIQUE (session_id, call_id)
      );
      INSERT INTO tool_calls_v8
        (id, session_id, call_id, turn_id, name, args, status, output, created_at, started_at, finished_at, duration_ms)
        SELECT id, session_id, call_id, turn_id, name, args,
               CASE status WHEN 'ok' THEN 'completed' ELSE status END,
               output, started_at, started_at, finished_at, duration_ms
        FROM tool_calls;
      DROP TABLE tool_calls;
      ALTER TABLE tool_calls_v8 RENAME TO tool_calls;
      CREATE INDEX tool_calls_by_call_id ON tool_calls (call_id);
      CREATE INDEX tool_calls_running ON tool_calls (session_id) WHERE finished_at IS NULL;
    `,
  },
  {
    version: 9,
    name: 'sub-agent sessions: a child session names its parent session, the tool call that started it, its role and depth',
    // A child session is deleted with its parent. Top-level sessions have depth 0 and no parent.
    up: `
      ALTER TABLE sessions ADD COLUMN parent_id TEXT REFERENCES sessions (id) ON DELETE CASCADE;
      ALTER TABLE sessions ADD COLUMN parent_call_id TEXT;
      ALTER TABLE sessions ADD COLUMN role TEXT;
      ALTER TABLE sessions ADD COLUMN depth INTEGER NOT NULL DEFAULT 0;
      CREATE INDEX sessions_by_parent ON sessions (parent_id, created_at) WHERE parent_id IS NOT NULL;
    `,
  },
  {
    version: 10,
    name: 'workflow runs and their checkpoints (durable workflows: resume, history, fork)',
    up: `
      -- One run of a workflow. definition: the YAML text it started from (null for a
      -- TypeScript module, read again from source on resume; def_hash tells a change).
      -- state: the run's state after its last checkpoint. owner…heartbeat_at: the process
      -- running it now (null when none), as session leases name theirs.
      CREATE TABLE workflow_runs (
        id               TEXT PRIMARY KEY NOT NULL,
        workflow         TEXT NOT NULL,
        source           TEXT NOT NULL,
        definition       TEXT,
        def_hash         TEXT NOT NULL,
        cwd              TEXT NOT NULL,
        input            TEXT NOT NULL,
        state            TEXT NOT NULL,
        output           TEXT,
        status           TEXT NOT NULL
                         CHECK (status IN ('pending', 'running', 'waiting', 'completed', 'failed', 'cancelled')),
        error            TEXT,
        parent_run_id    TEXT REFERENCES workflow_runs (id) ON DELETE CASCADE,
        parent_node      TEXT,
        forked_from      TEXT,
        forked_seq       INTEGER,
        cancel_requested INTEGER NOT NULL DEFAULT 0,
        owner            TEXT,
        pid              INTEGER,
        host             TEXT,
        proc_start       TEXT,
        heartbeat_at     INTEGER,
        expires_at       INTEGER,
        created_at       INTEGER NOT NULL,
        updated_at       INTEGER NOT NULL,
        finished_at      INTEGER
      );
      CREATE INDEX workflow_runs_by_updated ON workflow_runs (updated_at);
      CREATE INDEX workflow_runs_by_parent ON workflow_runs (parent_run_id, parent_node)
        WHERE parent_run_id IS NOT NULL;

      -- Every node's start and result, in the order they were committed (seq per run).
      -- node_key names one execution of a node: its id under its branch and loop
      -- iteration (checks[1]/lint, fix#2/verify). A node that re-ran after a crash
      -- has a second start; only a completed result is reused on resume.
      CREATE TABLE workflow_checkpoints (
        run_id     TEXT NOT NULL REFERENCES workflow_runs (id) ON DELETE CASCADE,
        seq        INTEGER NOT NULL,
        node_key   TEXT NOT NULL,
        node_id    TEXT NOT NULL,
        kind       TEXT NOT NULL,
        event      TEXT NOT NULL CHECK (event IN ('start', 'result')),
        status     TEXT,
        data       TEXT NOT NULL,
        state      TEXT,
        created_at INTEGER NOT NULL,
        PRIMARY KEY (run_id, seq)
      ) WITHOUT ROWID;
      CREATE INDEX workflow_checkpoints_by_node ON workflow_checkpoints (run_id, node_key);
    `,
  },
  {
    version: 11,
    name: 'trace spans kept per run (tea trace show): the OpenTelemetry spans of sessions and workflows',
    // run_id: the top-level session's id, or a workflow run's id; no foreign key, so a
    // trace outlives a deleted session until retention removes it. Times in epoch ms.
    // status: OpenTelemetry's codes (0 unset, 1 ok, 2 error). attributes: a JSON object;
    // events: a JSON array of {name, at_ms, attributes} or null. One index only (rows are
    // written a few per prompt; retention goes by rowid, which follows time).
    up: `
      CREATE TABLE trace_spans (
        trace_id       TEXT NOT NULL,
        span_id        TEXT NOT NULL,
        parent_id      TEXT,
        run_id         TEXT NOT NULL,
        name           TEXT NOT NULL,
        kind           INTEGER NOT NULL,
        start_ms       REAL NOT NULL,
        duration_ms    REAL NOT NULL,
        status         INTEGER NOT NULL DEFAULT 0,
        status_message TEXT,
        attributes     TEXT NOT NULL DEFAULT '{}',
        events         TEXT
      );
      CREATE INDEX trace_spans_by_run ON trace_spans (run_id, start_ms);
    `,
  },
  ...EVOLVE_MIGRATIONS,
];
