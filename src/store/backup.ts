/**
 * Backups of the database file, kept in `<data home>/backups/`: a consistent copy
 * made with `VACUUM INTO` (it reads every table, so a damaged one fails the copy),
 * checked with `PRAGMA quick_check` before it replaces anything, the newest few
 * kept. Made when a database is opened and one is due (see `backupDue`: none yet,
 * a day old, or the database has doubled since), or on demand (`tea db backup`);
 * `tea db restore` puts one back.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { StoreError } from './errors.js';
import { PRIVATE_DIR, PRIVATE_FILE, tighten } from './modes.js';
import { sqliteAddon } from './sqlite-addon.js';

export interface BackupInfo {
  path: string;
  /** When it was made (epoch ms, from its name). */
  at: number;
  bytes: number;
}

export interface BackupPolicy {
  /** Make one when the newest is older than this (default one day). */
  everyMs?: number;
  /** How many to keep (default 3). */
  keep?: number;
  now?: () => number;
}

export const BACKUP_EVERY_MS = 24 * 60 * 60 * 1000;
export const BACKUPS_KEPT = 3;
/** A database that has grown to this many times its newest backup is backed up again… */
export const GROWTH = 2;
/** …once that backup is at least this old. */
export const GROWTH_AFTER_MS = 60 * 60 * 1000;
const NAME = /^tea-(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})(\d{3})\.db$/;

/** Where the backups of the database at `dbPath` live. */
export function backupDir(dbPath: string): string {
  return join(dirname(dbPath), 'backups');
}

function nameFor(ms: number): string {
  const d = new Date(ms).toISOString().replace(/[-:TZ.]/g, ''); // 20261201201500123
  return `tea-${d.slice(0, 8)}-${d.slice(8, 14)}${d.slice(14, 17)}.db`;
}

/** The backups of the database at `dbPath`, newest first. */
export function listBackups(dbPath: string): BackupInfo[] {
  const dir = backupDir(dbPath);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: BackupInfo[] = [];
  for (const name of names) {
    const m = NAME.exec(name);
    if (!m) continue;
    const [, y, mo, d, h, mi, s, ms] = m.map(Number) as number[];
    const path = join(dir, name);
    out.push({ path, at: Date.UTC(y!, mo! - 1, d!, h!, mi!, s!, ms!), bytes: statSync(path).size });
  }
  return out.sort((a, b) => b.at - a.at);
}

/** `PRAGMA quick_check` of the file at `path` (opened read-only): 'ok', or the problems found. */
export function quickCheck(path: string, thorough = false): string[] {
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, nativeBinding: sqliteAddon() as string });
    const rows = db.pragma(thorough ? 'integrity_check(20)' : 'quick_check(20)', { simple: false }) as Array<
      Record<string, string>
    >;
    return rows.map((r) => Object.values(r)[0] ?? '');
  } catch (err) {
    return [(err as Error).message];
  } finally {
    db?.close();
  }
}

/**
 * Copies the open database `db` (file `dbPath`) into a new backup, checks the copy
 * and drops the oldest beyond `keep`. Throws when the copy cannot be made: a
 * damaged database fails here (SQLITE_CORRUPT) and the older backups stay.
 */
export function makeBackup(db: Database.Database, dbPath: string, policy: BackupPolicy = {}): BackupInfo {
  const dir = backupDir(dbPath);
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR });
  const at = (policy.now ?? Date.now)();
  const final = join(dir, nameFor(at));
  const partial = `${final}.partial`;
  rmSync(partial, { force: true });
  try {
    db.prepare('VACUUM INTO ?').run(partial);
    // A copy of every conversation and memory: the user's alone, like the database.
    tighten(partial, PRIVATE_FILE);
    const problems = quickCheck(partial);
    if (problems.join() !== 'ok') {
      throw new StoreError(`the backup copy failed its check: ${problems.join('; ')}`, 'damaged');
    }
    renameSync(partial, final);
  } finally {
    rmSync(partial, { force: true });
  }
  for (const old of listBackups(dbPath).slice(policy.keep ?? BACKUPS_KEPT)) rmSync(old.path, { force: true });
  return { path: final, at, bytes: statSync(final).size };
}

/** Whether the database holds anything worth a backup: a session or a memory. */
function hasContent(db: Database.Database): boolean {
  for (const table of ['sessions', 'memories']) {
    try {
      if (db.prepare(`SELECT 1 FROM ${table} LIMIT 1`).get() !== undefined) return true;
    } catch {
      // no such table yet (an older schema)
    }
  }
  return false;
}

/** Bytes of the database's pages in use (what a backup of it now would about take). */
function usedBytes(db: Database.Database): number {
  const pages = db.pragma('page_count', { simple: true }) as number;
  const free = db.pragma('freelist_count', { simple: true }) as number;
  return (pages - free) * (db.pragma('page_size', { simple: true }) as number);
}

/**
 * Whether a backup is due at open: there is none yet and the database holds a
 * session or a memory; or the newest is older than `everyMs`; or the database has
 * grown to `GROWTH` times the newest backup's size and that backup is at least
 * `GROWTH_AFTER_MS` old (a young database's first backup would otherwise hold
 * its first few minutes for a whole day). Most opens read only the backup list.
 */
export function backupDue(db: Database.Database, dbPath: string, policy: BackupPolicy = {}): boolean {
  const newest = listBackups(dbPath)[0];
  if (!newest) return hasContent(db);
  const age = (policy.now ?? Date.now)() - newest.at;
  if (age >= (policy.everyMs ?? BACKUP_EVERY_MS)) return true;
  return age >= GROWTH_AFTER_MS && usedBytes(db) >= GROWTH * newest.bytes;
}

/** Makes a backup when one is due (see `backupDue`); returns it, or undefined when none was. */
export function backupIfDue(
  db: Database.Database,
  dbPath: string,
  policy: BackupPolicy = {},
): BackupInfo | undefined {
  return backupDue(db, dbPath, policy) ? makeBackup(db, dbPath, policy) : undefined;
}

export interface Restored {
  from: BackupInfo;
  /** Where the damaged (replaced) database was moved, when there was one. */
  keptAs: string | undefined;
}

/**
 * The backup `tea db restore` would put back: `from`, or the newest that passes its
 * check. Throws when there is none.
 */
export function pickBackup(dbPath: string, from?: string): BackupInfo {
  const candidates = from
    ? [{ path: from, at: statSync(from).mtimeMs, bytes: statSync(from).size }]
    : listBackups(dbPath);
  if (candidates.length === 0) {
    throw new StoreError(`there is no backup of ${dbPath} in ${backupDir(dbPath)}`, 'not-found');
  }
  const found = candidates.find((b) => quickCheck(b.path).join() === 'ok');
  if (!found) {
    throw new StoreError(
      `no backup passes its check: ${candidates.map((b) => basename(b.path)).join(', ')}`,
      'damaged',
    );
  }
  return found;
}

/** Where a damaged database set aside at `now` is kept: `tea.db.damaged-20261201-201500123`. */
export function damagedCopyPath(dbPath: string, now: number): string {
  return `${dbPath}.damaged-${nameFor(now).slice(4, -3)}`;
}

/**
 * Puts a backup back in place of the database at `dbPath`: `from`, or the newest
 * that passes its check. The current file (and its -wal/-shm) is moved aside, not
 * deleted. No other tea process may have the database open meanwhile.
 */
export function restoreBackup(
  dbPath: string,
  opts: { from?: string | BackupInfo; now?: () => number } = {},
): Restored {
  const from = typeof opts.from === 'object' ? opts.from : pickBackup(dbPath, opts.from);
  const keptAs = existsSync(dbPath) ? damagedCopyPath(dbPath, (opts.now ?? Date.now)()) : undefined;
  if (keptAs) {
    renameSync(dbPath, keptAs);
    for (const side of ['-wal', '-shm']) {
      if (existsSync(dbPath + side)) renameSync(dbPath + side, keptAs + side);
    }
  }
  const partial = `${dbPath}.restoring`;
  copyFileSync(from.path, partial);
  tighten(partial, PRIVATE_FILE);
  renameSync(partial, dbPath);
  return { from, keptAs };
}
