import type Database from 'better-sqlite3';

/**
 * One schema step. `version` numbers run 1, 2, 3, … with no gaps; each migration
 * runs in its own transaction and the database records the last one applied in
 * `PRAGMA user_version`. To change the schema, append a new entry; never edit one
 * that has shipped.
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
];
