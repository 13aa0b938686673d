/**
 * The self-evolution layer's schema steps (src/evolve/), kept apart from migrations.ts
 * so that file stays small. Typed by shape (not `Migration`): importing the type from
 * migrations.ts would make the two files import each other.
 */
import { TASK_EVALUATIONS_MIGRATION } from './migration-12.js';
import { JOURNAL_MIGRATION } from './migration-14.js';

export const PROMPT_VERSIONS_MIGRATION = {
  version: 13,
  name: 'prompt versions (the instructions of the default system prompt); the evolve layer’s small state',
  up: `
    -- One row per version of the instruction part of the default system prompt.
    -- Version 1 is the built-in text; it is stored only once another version is made, so
    -- a fresh home has no rows. source: who wrote it; status: 'active' (at most one,
    -- the index below), 'candidate' (proposed by evolve, unused until a person sets it),
    -- 'retired'. parent_version: the version active when this one was made (rollback
    -- goes back along it). activated_at: when it last became active.
    CREATE TABLE prompt_versions (
      id             INTEGER PRIMARY KEY AUTOINCREMENT,
      version        INTEGER NOT NULL UNIQUE CHECK (version >= 1),
      content        TEXT NOT NULL,
      source         TEXT NOT NULL CHECK (source IN ('builtin', 'user', 'evolve')),
      status         TEXT NOT NULL CHECK (status IN ('active', 'candidate', 'retired')),
      note           TEXT,
      parent_version INTEGER,
      created_at     INTEGER NOT NULL,
      activated_at   INTEGER
    );
    CREATE UNIQUE INDEX prompt_versions_one_active ON prompt_versions (status) WHERE status = 'active';

    -- Small JSON values of the evolve layer by key (the last upkeep and its tool statistics).
    CREATE TABLE evolve_state (
      key        TEXT PRIMARY KEY NOT NULL,
      value      TEXT NOT NULL,
      updated_at INTEGER NOT NULL
    );
  `,
};

/** Appended to the built-in list, in order. */
export const EVOLVE_MIGRATIONS = [
  TASK_EVALUATIONS_MIGRATION,
  PROMPT_VERSIONS_MIGRATION,
  JOURNAL_MIGRATION,
] as const;
