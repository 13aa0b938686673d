/**
 * `tea db check | backup | restore`: the database file's health and its backups.
 * These read only TEA_HOME (or ~/.tea), never the config, so they work when
 * nothing else does.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { teaHome } from '../config/files.js';
import { checkFile } from '../store/check.js';
import {
  defaultDbPath,
  listBackups,
  makeBackup,
  openDatabase,
  recoveryLine,
  restoreBackup,
  Store,
} from '../store/index.js';
import { CliError, EXIT } from './exit.js';

function dbFile(): string {
  return defaultDbPath(teaHome());
}

function when(ms: number): string {
  return `${new Date(ms).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
}

function size(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function backupLines(file: string): string {
  const backups = listBackups(file);
  if (backups.length === 0) return 'backups: none yet (tea makes one a day; `tea db backup` makes one now)\n';
  return `backups (newest first, in ${path.dirname(backups[0]!.path)}):\n${backups
    .map((b) => `  ${path.basename(b.path)}  ${when(b.at)}  ${size(b.bytes)}\n`)
    .join('')}`;
}

/** `tea db check`: SQLite's integrity check of the whole file, and the backups there are. */
export async function dbCheck(): Promise<number> {
  const file = dbFile();
  if (!existsSync(file)) {
    process.stdout.write(`${file}: no database yet (tea creates it on first use)\n`);
    return EXIT.OK;
  }
  const report = checkFile(file);
  if (report.ok) {
    process.stdout.write(`${file}: ok\n${backupLines(file)}`);
    return EXIT.OK;
  }
  const more = report.more > 0 ? `  … and more (SQLite's \`PRAGMA integrity_check\` lists them all)\n` : '';
  process.stdout.write(
    `${file}: damaged\n${report.findings.map((p) => `  ${p}\n`).join('')}${more}${backupLines(file)}`,
  );
  process.stderr.write(`tea: ${recoveryLine(file)}\n`);
  return EXIT.ERROR;
}

/** `tea db backup`: a checked copy now (the oldest beyond three are dropped). */
export async function dbBackup(): Promise<number> {
  const file = dbFile();
  if (!existsSync(file)) throw new CliError(`${file}: no database yet, nothing to back up`);
  const db = openDatabase(file);
  try {
    const made = makeBackup(db, file);
    process.stdout.write(`backed up ${file} to ${made.path} (${size(made.bytes)})\n`);
    return EXIT.OK;
  } finally {
    db.close();
  }
}

/** Tea processes in the middle of a turn on this database (none when it cannot be read). */
function busyPids(file: string): number[] {
  try {
    const store = Store.open(file);
    try {
      return store.leases
        .all()
        .filter((l) => store.leases.isLive(l))
        .map((l) => l.pid);
    } finally {
      store.close();
    }
  } catch {
    return [];
  }
}

/** `tea db restore [backup]`: the newest good backup (or the one named) back in place. */
export async function dbRestore(from?: string): Promise<number> {
  const file = dbFile();
  const busy = existsSync(file) ? busyPids(file) : [];
  if (busy.length > 0) {
    throw new CliError(
      `tea processes are working on ${file} (pid ${busy.join(', ')}): let them finish or stop them, then restore`,
      EXIT.ERROR,
    );
  }
  const done = restoreBackup(file, from ? { from: path.resolve(from) } : {});
  process.stdout.write(
    `restored ${file} from ${done.from.path} (${when(done.from.at)})\n` +
      (done.keptAs ? `the replaced database was kept as ${done.keptAs}\n` : ''),
  );
  return EXIT.OK;
}
