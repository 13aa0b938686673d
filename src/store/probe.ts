/**
 * A quick look for damage when a database is opened: the first row of every table
 * and index is read through its b-tree, which makes SQLite load (and check) the
 * root page of each and the pages down to its first leaf. A file with a page
 * overwritten there fails here with SQLITE_CORRUPT, before any command reads or
 * writes it, whichever tables that command uses. About a millisecond for Tea's
 * fifty b-trees, where `PRAGMA quick_check` reads every page (~100 ms at 10k
 * memories). Damage deeper inside a large table is found by the query that reads
 * it, and by `tea db check`.
 */
import type Database from 'better-sqlite3';
import { corruptionReason, isCorruption } from './corrupt.js';

interface TreeRow {
  type: 'table' | 'index';
  name: string;
  tbl_name: string;
  sql: string | null;
}

/** A b-tree that could not be read, and SQLite's reason. */
export interface DamagedTree {
  type: 'table' | 'index';
  name: string;
  reason: string;
}

const quote = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** A partial index is only usable under its own WHERE clause: the text after the column list. */
function partialWhere(sql: string | null): string {
  const m = sql ? /\)\s*WHERE\s+([\s\S]+)$/i.exec(sql) : null;
  return m ? ` WHERE ${m[1]}` : '';
}

/** Reads the first row of the b-tree, or (`whole`) every page of it down to the leaves. */
function firstRowQuery(row: TreeRow, whole = false): string {
  const what = whole ? 'count(*)' : '1';
  const limit = whole ? '' : ' LIMIT 1';
  return row.type === 'table'
    ? `SELECT ${what} FROM ${quote(row.name)} NOT INDEXED${limit}`
    : `SELECT ${what} FROM ${quote(row.tbl_name)} INDEXED BY ${quote(row.name)}${partialWhere(row.sql)}${limit}`;
}

function trees(db: Database.Database): TreeRow[] {
  return db
    .prepare<[], TreeRow>(
      "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE type IN ('table', 'index') AND rootpage > 0",
    )
    .all();
}

/**
 * Reads the first row of every b-tree in `db`; throws SQLite's own error (SQLITE_CORRUPT)
 * at the first one that is damaged. A query SQLite cannot plan is skipped.
 */
export function probeTrees(db: Database.Database): void {
  for (const row of trees(db)) {
    try {
      db.prepare(firstRowQuery(row)).get();
    } catch (err) {
      if (isCorruption(err)) throw err;
    }
  }
}

/**
 * Every b-tree whose first row (or, `whole`, any of whose pages) cannot be read for
 * damage (all of them are tried).
 */
export function damagedTrees(db: Database.Database, whole = false): DamagedTree[] {
  const out: DamagedTree[] = [];
  for (const row of trees(db)) {
    try {
      db.prepare(firstRowQuery(row, whole)).get();
    } catch (err) {
      if (isCorruption(err)) out.push({ type: row.type, name: row.name, reason: corruptionReason(err) });
    }
  }
  return out;
}
