/**
 * Rebuilds a damaged database into a new file: the damaged file's own schema, every
 * row of every table that can still be read (row by row, past damaged pages; see
 * scan.ts), then every index built afresh from those rows, and the virtual tables'
 * indexes (memory's full-text and vector search) rebuilt by the caller from the
 * data. When every row was read, nothing is lost: damage in indexes only is
 * repaired completely. The new file passes `PRAGMA integrity_check` or is not kept.
 */
import { rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { StoreError } from './errors.js';
import { PRIVATE_FILE, tighten } from './modes.js';
import { columnsOf, type LostRange, type Row, type ScanResult, scanTable } from './scan.js';
import { dataTables, quoteName, readSchema, type SchemaEntry, virtualTables } from './schema.js';
import { sqliteAddon } from './sqlite-addon.js';

/** Fills the virtual tables (and anything else derived from the data) of the new file; returns what it rebuilt. */
export type RebuildDerived = (db: Database.Database) => string[];

export interface TableOutcome {
  table: string;
  /** Rows copied into the new file. */
  copied: number;
  /** Rows known to be there whose content could not be read. */
  badRows: number;
  /** Rowid stretches that could not be read. */
  lost: LostRange[];
  /** Some rows of a table without rowids could not be read (how many is unknown). */
  lostUnknown: boolean;
  /** Rows read but refused by the new file (a constraint): how many, and the first reason. */
  refused: number;
  refusedReason?: string;
}

export interface SalvageResult {
  tables: TableOutcome[];
  /** Indexes built afresh. */
  indexes: number;
  /** What `rebuild` rebuilt (e.g. memory's full-text and vector indexes). */
  rebuilt: string[];
  /** Indexes, triggers or views of the old schema the new file could not take, with SQLite's reason. */
  notRecreated: string[];
  /** Sessions whose own row was lost but whose messages were read: recreated so they can be listed. */
  recreatedSessions: number;
  /** Every row of every table was read and copied: nothing is lost. */
  lossless: boolean;
}

/** The title of a session recreated for messages whose session row could not be read. */
export const RECOVERED_TITLE = '(recovered: its session record could not be read)';

function lossOf(t: TableOutcome): boolean {
  return t.badRows > 0 || t.lost.length > 0 || t.lostUnknown || t.refused > 0;
}

function copyTable(source: Database.Database, dest: Database.Database, entry: SchemaEntry): TableOutcome {
  const columns = columnsOf(source, entry.name);
  const outcome: TableOutcome = {
    table: entry.name,
    copied: 0,
    badRows: 0,
    lost: [],
    lostUnknown: false,
    refused: 0,
  };
  const insert = dest.prepare(
    `INSERT INTO ${quoteName(entry.name)} (${columns.map(quoteName).join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`,
  );
  dest.exec('BEGIN');
  let scan: ScanResult;
  try {
    scan = scanTable(source, entry.name, entry.sql, columns, (row: Row) => {
      try {
        insert.run(...row);
        outcome.copied++;
      } catch (err) {
        outcome.refused++;
        outcome.refusedReason ??= (err as Error).message;
      }
    });
    dest.exec('COMMIT');
  } catch (err) {
    dest.exec('ROLLBACK');
    throw err;
  }
  outcome.badRows = scan.badRows;
  outcome.lost = scan.lost;
  outcome.lostUnknown = scan.lostUnknown;
  return outcome;
}

/** AUTOINCREMENT counters: never lower than they were, so ids of deleted rows are not handed out again. */
function copySequence(source: Database.Database, dest: Database.Database): void {
  let rows: Array<{ name: string; seq: number }>;
  try {
    rows = source.prepare<[], { name: string; seq: number }>('SELECT name, seq FROM sqlite_sequence').all();
  } catch {
    return; // unreadable or absent: AUTOINCREMENT goes on from the largest id copied
  }
  const exists = dest
    .prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'sqlite_sequence'")
    .get();
  if (!exists) return;
  const update = dest.prepare('UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?');
  const insert = dest.prepare('INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)');
  for (const r of rows) {
    if (update.run(r.seq, r.name).changes === 0) insert.run(r.name, r.seq);
  }
}

/**
 * Tea's own tables: a session whose row was on a damaged page, but whose messages
 * (or tool calls, usage) were read, gets a row again, so `tea sessions` lists it and
 * its transcript can be read. Its workspace is unknown.
 */
function recreateSessions(dest: Database.Database): number {
  const has = (name: string) =>
    dest.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(name) !== undefined;
  if (!has('sessions')) return 0;
  // Tool calls have had a created_at since migration 8 (started_at before: null now for a call that never ran).
  const callsAt = dest
    .prepare<[], { name: string }>("SELECT name FROM pragma_table_info('tool_calls')")
    .all()
    .some((c) => c.name === 'created_at')
    ? 'created_at'
    : 'started_at';
  const sources = [
    ['messages', 'created_at'],
    ['tool_calls', callsAt],
    ['usage', 'created_at'],
  ].filter(([table]) => has(table!));
  if (sources.length === 0) return 0;
  const union = sources
    .map(([table, at]) => `SELECT session_id, ${at} AS at FROM ${table}`)
    .join(' UNION ALL ');
  return dest
    .prepare(
      `INSERT INTO sessions (id, title, cwd, created_at, updated_at)
         SELECT session_id, ?, '(unknown)', min(at), max(at) FROM (${union})
          WHERE session_id NOT IN (SELECT id FROM sessions) GROUP BY session_id`,
    )
    .run(RECOVERED_TITLE).changes;
}

/**
 * Builds `destPath` (replaced if there) from the readable rows of `source`. Throws a
 * StoreError when the source's schema cannot be read or the new file fails its check
 * (`destPath` is then removed).
 */
export function salvageInto(
  source: Database.Database,
  destPath: string,
  rebuild: RebuildDerived,
): SalvageResult {
  let schema: SchemaEntry[];
  try {
    schema = readSchema(source);
  } catch (err) {
    throw new StoreError(
      `the list of tables itself cannot be read (${(err as Error).message}), so no row can be found`,
      'damaged',
      { cause: err },
    );
  }
  const userVersion = source.pragma('user_version', { simple: true }) as number;
  for (const side of ['', '-journal', '-wal', '-shm']) rmSync(destPath + side, { force: true });
  const dest = new Database(destPath, { nativeBinding: sqliteAddon() as string });
  try {
    tighten(destPath, PRIVATE_FILE);
    // Rows are copied as they were read: a message whose session row was lost is kept too.
    dest.pragma('foreign_keys = OFF');
    const result = build(source, dest, schema);
    dest.pragma(`user_version = ${userVersion}`);
    result.rebuilt = rebuild(dest);
    const check = (dest.pragma('integrity_check', { simple: false }) as Array<Record<string, string>>).map(
      (r) => Object.values(r)[0] ?? '',
    );
    if (check.join() !== 'ok') {
      throw new StoreError(`the rebuilt file failed its check: ${check.slice(0, 3).join('; ')}`, 'damaged');
    }
    dest.close();
    return result;
  } catch (err) {
    if (dest.open) dest.close();
    for (const side of ['', '-journal', '-wal', '-shm']) rmSync(destPath + side, { force: true });
    throw err;
  }
}

function build(source: Database.Database, dest: Database.Database, schema: SchemaEntry[]): SalvageResult {
  const notRecreated: string[] = [];
  const tables = dataTables(schema);
  for (const t of tables) dest.exec(t.sql ?? '');
  for (const v of virtualTables(schema)) {
    try {
      dest.exec(v.sql ?? '');
    } catch {
      // A module this connection does not have (sqlite-vec): `rebuild` makes that table itself.
    }
  }
  const outcomes = tables.map((t) => copyTable(source, dest, t));
  copySequence(source, dest);
  const recreatedSessions = recreateSessions(dest);
  let indexes = 0;
  const data = new Set(tables.map((t) => t.name));
  for (const e of schema) {
    const own = e.type === 'index' ? data.has(e.tbl_name) : e.type === 'trigger' || e.type === 'view';
    if (!own || e.sql === null) continue;
    try {
      dest.exec(e.sql);
      if (e.type === 'index') indexes++;
    } catch (err) {
      notRecreated.push(`${e.type} ${e.name}: ${(err as Error).message}`);
    }
  }
  // Indexes SQLite makes for UNIQUE and PRIMARY KEY constraints count too.
  indexes += schema.filter((e) => e.type === 'index' && e.sql === null && data.has(e.tbl_name)).length;
  return {
    tables: outcomes,
    indexes,
    rebuilt: [],
    notRecreated,
    recreatedSessions,
    lossless: outcomes.every((t) => !lossOf(t)) && notRecreated.length === 0,
  };
}
