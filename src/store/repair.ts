/**
 * `tea db repair`: a damaged database made sound again with as little lost as the
 * damage allows. The damaged file is first copied aside (`tea.db.damaged-<time>`,
 * with its -wal), then rebuilt into a new file from every row that can still be
 * read (salvage.ts), which replaces it once it passes its check.
 *
 * Why not REINDEX in place: REINDEX (and DROP INDEX, VACUUM, FTS5's 'rebuild') must
 * first walk the old b-tree to free its pages, and a page overwritten with noise
 * stops that walk with SQLITE_CORRUPT; worse, a damaged page may point at pages of
 * live tables, which freeing would hand out again. Rebuilding into a new file reads
 * the tables only and never writes the damaged one. When the damage was in indexes
 * only (or in memory's full-text and vector indexes), every row is read: nothing is lost.
 */
import { copyFileSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { damagedCopyPath, listBackups, quickCheck } from './backup.js';
import { type BackupComparison, compareWithBackup } from './census.js';
import { checkFile, type IntegrityReport } from './check.js';
import { StoreError } from './errors.js';
import { type Lease, leaseIsLive } from './leases.js';
import { PRIVATE_FILE, tighten } from './modes.js';
import { type RebuildDerived, type SalvageResult, salvageInto } from './salvage.js';
import { sqliteAddon } from './sqlite-addon.js';

export interface RepairOptions {
  /** Rebuilds what is derived from the data (memory's full-text and vector indexes) in the new file. */
  rebuild: RebuildDerived;
  now?: () => number;
}

export type RepairOutcome =
  | { status: 'sound' }
  | {
      status: 'repaired';
      /** What `tea db check` found before. */
      damage: IntegrityReport;
      /** The damaged file, kept. */
      keptAs: string;
      salvage: SalvageResult;
      /** The newest good backup against the repaired file; undefined when there is none. */
      backup: BackupComparison | undefined;
    };

/** Copies the database file (and a -wal with content) to `to`, for the user to keep. */
function keepCopy(dbPath: string, to: string): void {
  copyFileSync(dbPath, to);
  tighten(to, PRIVATE_FILE);
  const wal = `${dbPath}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0) {
    copyFileSync(wal, `${to}-wal`);
    tighten(`${to}-wal`, PRIVATE_FILE);
  }
}

/**
 * Repairs the database at `dbPath` when `tea db check` finds it damaged; `sound`
 * when it is not. No other tea process may have it open meanwhile (see
 * `workingPids`). Throws a StoreError (the file left as it was) when nothing can
 * be read or the rebuilt file does not pass its check.
 */
export function repairDatabase(dbPath: string, opts: RepairOptions): RepairOutcome {
  if (!existsSync(dbPath)) throw new StoreError(`${dbPath}: no database yet, nothing to repair`, 'not-found');
  const damage = checkFile(dbPath);
  if (damage.ok) return { status: 'sound' };
  const keptAs = damagedCopyPath(dbPath, (opts.now ?? Date.now)());
  keepCopy(dbPath, keptAs);
  const partial = `${dbPath}.repairing`;
  let salvage: SalvageResult;
  let source: Database.Database | undefined;
  try {
    // Read-write only so that a -wal left by a killed process is read too; nothing is written.
    source = new Database(dbPath, { fileMustExist: true, nativeBinding: sqliteAddon() as string });
    salvage = salvageInto(source, partial, opts.rebuild);
  } catch (err) {
    for (const f of [keptAs, `${keptAs}-wal`]) rmSync(f, { force: true });
    if (err instanceof StoreError) throw err;
    throw new StoreError(`cannot repair ${dbPath}: ${(err as Error).message}`, 'damaged', { cause: err });
  } finally {
    source?.close();
  }
  // A stale -wal beside the new file would be played into it: it goes first (the copy kept it).
  for (const side of ['-wal', '-shm']) rmSync(dbPath + side, { force: true });
  renameSync(partial, dbPath);
  const newest = listBackups(dbPath).find((b) => quickCheck(b.path).join() === 'ok');
  return {
    status: 'repaired',
    damage,
    keptAs,
    salvage,
    backup: newest ? compareWithBackup(dbPath, newest) : undefined,
  };
}

/**
 * The tea processes in the middle of a turn on the database at `dbPath`, from its
 * session leases, read without writing anything (none when they cannot be read).
 */
export function workingPids(dbPath: string): number[] {
  let db: Database.Database | undefined;
  try {
    db = new Database(dbPath, {
      readonly: true,
      fileMustExist: true,
      nativeBinding: sqliteAddon() as string,
    });
    const rows = db
      .prepare<
        [],
        {
          session_id: string;
          owner: string;
          pid: number;
          host: string;
          proc_start: string | null;
          expires_at: number;
        }
      >('SELECT session_id, owner, pid, host, proc_start, expires_at FROM session_leases NOT INDEXED')
      .all();
    const now = Date.now();
    return rows
      .map(
        (r): Lease => ({
          sessionId: r.session_id,
          owner: r.owner,
          pid: r.pid,
          host: r.host,
          procStart: r.proc_start,
          acquiredAt: 0,
          heartbeatAt: 0,
          expiresAt: r.expires_at,
        }),
      )
      .filter((l) => leaseIsLive(l, now))
      .map((l) => l.pid);
  } catch {
    return [];
  } finally {
    db?.close();
  }
}
