import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { type BackupPolicy, backupDir } from './backup.js';
import { fileStamp, keepProbed, probedAsIs } from './checked.js';
import { corruptionMessage, corruptionReason, isCorruption } from './corrupt.js';
import { StoreError } from './errors.js';
import { laterBackup, takeBackupIfDue } from './later.js';
import { migrate, pendingMigrations } from './migrate.js';
import { PRIVATE_DIR, tightenDataFiles } from './modes.js';
import { probeTrees } from './probe.js';
import { sqliteAddon } from './sqlite-addon.js';

/** Bytes of the database file mapped into memory (pages are shared with the OS cache). */
const MMAP_BYTES = 512 * 1024 * 1024;
/** Page cache per connection, KiB. */
const CACHE_KIB = 32 * 1024;

import type { Migration } from './migrations.js';

/** How long a writer waits for another process's lock before failing. */
export const BUSY_TIMEOUT_MS = 5000;

export function isMemoryPath(path: string): boolean {
  return path === ':memory:' || path === '';
}

/** The database file this process opened last: where a damaged page found later lives. */
let lastFile: string | undefined;

/**
 * What to tell the user when `err` says the database is damaged: the file, the reason,
 * the newest backup and the commands that recover; undefined for any other error.
 */
export function damageReport(err: unknown): string | undefined {
  if (err instanceof StoreError && err.code === 'damaged') return err.message;
  if (!isCorruption(err)) return undefined;
  const reason = corruptionReason(err);
  return lastFile ? corruptionMessage(lastFile, reason) : `the database is damaged (${reason}).`;
}

/**
 * Opens (creating if needed) the SQLite file at `path`, sets the pragmas and runs
 * pending migrations. `':memory:'` gives a private in-memory database.
 *
 * Durability: WAL with `synchronous = NORMAL` commits by appending to the WAL file
 * before the call returns, so a killed process (even SIGKILL) loses no committed
 * transaction; only a power loss or OS crash can drop the last few commits. FULL
 * would add an fsync per commit on the agent's hot path for that rarer case. A
 * short-lived process may leave the log at exit instead of checkpointing it (later.ts).
 */
export function openDatabase(
  path: string,
  options: {
    migrations?: readonly Migration[];
    /**
     * Back an existing file up when a backup is due (see `backupDue`): before a pending
     * migration at once, otherwise when `closeDatabase` closes it (off the first
     * request's path; see later.ts).
     */
    backup?: BackupPolicy;
    /** Wall clock in epoch ms (default `Date.now`): how long ago the file last changed. */
    now?: () => number;
  } = {},
): Database.Database {
  const memory = isMemoryPath(path);
  const file = memory ? path : resolve(path);
  const existed = !memory && existsSync(file);
  if (!memory) lastFile = file;
  if (!memory) {
    try {
      // The data home is the user's alone (as are the files in it, below).
      mkdirSync(dirname(file), { recursive: true, mode: PRIVATE_DIR });
    } catch (err) {
      throw new StoreError(
        `cannot create the directory for database ${file}: ${(err as Error).message}`,
        'open-failed',
        { cause: err },
      );
    }
  }
  let db: Database.Database;
  try {
    // The addon located once (sqlite-addon.ts); better-sqlite3 also takes the loaded
    // addon object there, though its types name only a path.
    db = new Database(file, { nativeBinding: sqliteAddon() as string });
  } catch (err) {
    throw new StoreError(`cannot open database ${file}: ${(err as Error).message}`, 'open-failed', {
      cause: err,
    });
  }
  // The file's status before anything reads it: when a probe found it sound as it is
  // now, neither the probe nor the tightening is repeated (checked.ts).
  let stamp = existed ? fileStamp(file) : undefined;
  const known = stamp !== undefined && probedAsIs(file, stamp);
  // Before the -wal and -shm files are made: SQLite gives them the database file's mode.
  if (!memory && !known) {
    tightenDataFiles(file, backupDir(file));
    if (stamp !== undefined) stamp = fileStamp(file); // a chmod changes the change time
  }
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // Memory search scans the vector tables: reading them through a memory map
    // (and a larger page cache) instead of copying pages on every query.
    db.pragma(`mmap_size = ${MMAP_BYTES}`);
    db.pragma(`cache_size = -${CACHE_KIB}`);
    // Statement journals and temporary indexes stay in memory: a write that changes many
    // pages (one memory with its FTS and vector rows) would otherwise spill a file to /var/tmp.
    db.pragma('temp_store = MEMORY');
    // Damage where any command would first step on it (the first pages of every table
    // and index) is found before this command reads or writes anything; a file as a
    // probe last found it is not read again (checked.ts).
    if (existed && !known) {
      probeTrees(db);
      if (stamp !== undefined) keepProbed(file, stamp, (options.now ?? Date.now)());
    }
    if (options.backup && existed) {
      // Before migrating: a migration that goes wrong can be undone from the backup.
      // Otherwise it waits for the close, so the first request does not wait for it.
      laterBackup(db, file, options.backup);
      if (pendingMigrations(db, options.migrations) > 0) takeBackupIfDue(db);
    }
    migrate(db, options.migrations);
    return db;
  } catch (err) {
    db.close();
    if (isCorruption(err)) {
      throw new StoreError(corruptionMessage(file, corruptionReason(err)), 'damaged', { cause: err });
    }
    if (err instanceof StoreError) throw err;
    throw new StoreError(`cannot open database ${file}: ${(err as Error).message}`, 'open-failed', {
      cause: err,
    });
  }
}
