/**
 * What a database file holds, in the user's terms: sessions, messages, memories.
 * `tea db restore` says what the backup holds against what can still be read in
 * the current file before it replaces it; `tea db repair` says what the newest
 * backup holds that the repaired file does not (and the other way round).
 */
import Database from 'better-sqlite3';
import type { BackupInfo } from './backup.js';
import { isCorruption } from './corrupt.js';
import { columnsOf, scanTable } from './scan.js';
import { quoteName, readSchema } from './schema.js';
import { sqliteAddon } from './sqlite-addon.js';

export const KINDS = ['sessions', 'messages', 'memories'] as const;
export type Kind = (typeof KINDS)[number];
export type Counts = Record<Kind, number>;

const none = (): Counts => ({ sessions: 0, messages: 0, memories: 0 });

function open(path: string): Database.Database {
  return new Database(path, { readonly: true, fileMustExist: true, nativeBinding: sqliteAddon() as string });
}

/**
 * How many sessions, messages and memories can be read in the file at `path`,
 * damaged or not (a table is counted row by row past damaged pages when a plain
 * count fails). Undefined when the file cannot be read at all (not a database,
 * or its list of tables is damaged).
 */
export function readableCounts(path: string): Counts | undefined {
  let db: Database.Database | undefined;
  try {
    db = open(path);
    const schema = readSchema(db);
    const counts = none();
    for (const kind of KINDS) {
      const entry = schema.find((e) => e.type === 'table' && e.name === kind);
      if (!entry) continue;
      try {
        counts[kind] = db
          .prepare(`SELECT count(*) FROM ${quoteName(kind)} NOT INDEXED`)
          .pluck()
          .get() as number;
      } catch (err) {
        if (!isCorruption(err)) throw err;
        const columns = columnsOf(db, kind);
        counts[kind] = scanTable(db, kind, entry.sql, columns, () => {}).read;
      }
    }
    return counts;
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

export interface BackupComparison {
  backup: BackupInfo;
  /** What the backup holds. */
  holds: Counts;
  /** Its rows (by id) that the database does not have. */
  missing: Counts;
  /** The database's rows (by id) that the backup does not have. */
  newer: Counts;
}

/** The backup at `backup` against the (sound) database at `dbPath`, row by row. */
export function compareWithBackup(dbPath: string, backup: BackupInfo): BackupComparison | undefined {
  let db: Database.Database | undefined;
  try {
    db = open(dbPath);
    db.prepare('ATTACH DATABASE ? AS bk').run(backup.path);
    const tables = (schema: string) =>
      new Set(
        db!
          .prepare(`SELECT name FROM ${schema}.sqlite_schema WHERE type = 'table'`)
          .pluck()
          .all() as string[],
      );
    const mine = tables('main');
    const theirs = tables('bk');
    const out: BackupComparison = { backup, holds: none(), missing: none(), newer: none() };
    for (const kind of KINDS) {
      const t = quoteName(kind);
      if (theirs.has(kind))
        out.holds[kind] = db.prepare(`SELECT count(*) FROM bk.${t}`).pluck().get() as number;
      if (!mine.has(kind)) {
        out.missing[kind] = out.holds[kind];
        continue;
      }
      if (!theirs.has(kind)) {
        out.newer[kind] = db.prepare(`SELECT count(*) FROM main.${t}`).pluck().get() as number;
        continue;
      }
      const notIn = (a: string, b: string) =>
        db!
          .prepare(`SELECT count(*) FROM ${a}.${t} WHERE id NOT IN (SELECT id FROM ${b}.${t})`)
          .pluck()
          .get() as number;
      out.missing[kind] = notIn('bk', 'main');
      out.newer[kind] = notIn('main', 'bk');
    }
    return out;
  } catch {
    return undefined;
  } finally {
    db?.close();
  }
}

/** "3 sessions, 41 messages, 1 memory". */
export function countsText(c: Counts): string {
  const one: Record<Kind, string> = { sessions: 'session', messages: 'message', memories: 'memory' };
  return KINDS.map((k) => `${c[k]} ${c[k] === 1 ? one[k] : k}`).join(', ');
}
