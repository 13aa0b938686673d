/**
 * What opening a database leaves for later, off the first request's path: the daily
 * backup, and at the exit of a short-lived process, the checkpoint of the log.
 *
 * The backup (a `VACUUM INTO` of the whole file and a check of the copy: ~6 ms on a
 * new home, ~0.2 s at 50 MB) is taken when the database is closed, or earlier when the
 * owner asks (`takeBackupIfDue`; the runtime does, once a long-running process has
 * been up a while). Only a pending migration takes it at open, before it runs.
 *
 * Closing the last connection to a WAL database makes SQLite checkpoint the log into
 * the main file and delete it: an fsync of each, and the next process re-creates the
 * log (an fsync of it and of its directory), ~5–15 ms per `tea -p` on this machine.
 * A process about to exit may leave a small log instead (`closeDatabase` with
 * `exiting`): every commit in it is already in the file system, exactly as when the
 * process is killed; the next connection reads it, appends to it, and it is
 * checkpointed once it grows past LEAVE_LOG_BYTES, by the process that finds it so at
 * exit, or by SQLite itself at 1,000 pages. A power cut in the seconds before the
 * kernel writes the log back may lose those last commits (never the file's
 * consistency: the log's frames are checksummed), which `synchronous = NORMAL`
 * already allows for any commit (db.ts).
 */
import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { type BackupInfo, type BackupPolicy, backupIfDue } from './backup.js';
import { corruptionMessage, corruptionReason, isCorruption } from './corrupt.js';
import { StoreError } from './errors.js';

/** A log up to this size is left for the next process at exit; a bigger one is checkpointed. */
export const LEAVE_LOG_BYTES = 1024 * 1024;

const pending = new WeakMap<Database.Database, { file: string; policy: BackupPolicy }>();

/** Notes that `db` (the file `file`) is to be backed up under `policy` when one is due. */
export function laterBackup(db: Database.Database, file: string, policy: BackupPolicy): void {
  pending.set(db, { file, policy });
}

/**
 * Takes the backup `openDatabase` left for later, when one is due (once per open: a
 * failed one is not tried again until the next). Throws a StoreError: `damaged`
 * (with the way back) when the copy met a damaged page, `backup-failed` otherwise.
 */
export function takeBackupIfDue(db: Database.Database): BackupInfo | undefined {
  const later = pending.get(db);
  if (!later || !db.open) return undefined;
  pending.delete(db);
  try {
    return backupIfDue(db, later.file, later.policy);
  } catch (err) {
    if (isCorruption(err) && !(err instanceof StoreError)) {
      throw new StoreError(corruptionMessage(later.file, corruptionReason(err)), 'damaged', { cause: err });
    }
    if (err instanceof StoreError) throw err;
    throw new StoreError(
      `cannot back up the database ${later.file}: ${(err as Error).message}`,
      'backup-failed',
      { cause: err },
    );
  }
}

function logBytes(db: Database.Database): number {
  try {
    return statSync(`${db.name}-wal`).size;
  } catch {
    return 0;
  }
}

/**
 * Closes a database from `openDatabase`, after the backup it left for later when one
 * is due. With `exiting` (the process ends next, with `process.exit`: Node's own
 * teardown would close it), a log of up to LEAVE_LOG_BYTES is left as it is and the
 * connection open; returns true then. The database is closed or left even when the
 * backup fails (which then throws).
 */
export function closeDatabase(db: Database.Database, opts: { exiting?: boolean } = {}): boolean {
  if (!db.open) return false;
  let failure: unknown;
  try {
    takeBackupIfDue(db);
  } catch (err) {
    failure = err;
  }
  const leave =
    opts.exiting === true && failure === undefined && !db.memory && logBytes(db) <= LEAVE_LOG_BYTES;
  if (!leave) db.close();
  if (failure !== undefined) throw failure;
  return leave;
}
