/**
 * `tea db check | backup | repair | restore`: the database file's health and its
 * backups. These read only TEA_HOME (or ~/.tea), never the config, so they work
 * when nothing else does.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { teaHome } from '../config/files.js';
import {
  checkFile,
  countsText,
  defaultDbPath,
  KINDS,
  listBackups,
  makeBackup,
  openDatabase,
  pickBackup,
  readableCounts,
  rebuildSearchIndexes,
  recoveryLines,
  repairDatabase,
  restoreBackup,
  workingPids,
} from '../runtime/database.js';
import { repairReport } from './db-report.js';
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
  for (const line of recoveryLines(file, report)) process.stderr.write(`tea: ${line}\n`);
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

/** Refuses when tea processes are in the middle of a turn on `file`. */
function refuseWhileWorking(file: string, what: string): void {
  const busy = existsSync(file) ? workingPids(file) : [];
  if (busy.length > 0) {
    throw new CliError(
      `tea processes are working on ${file} (pid ${busy.join(', ')}): let them finish or stop them, then ${what}`,
      EXIT.ERROR,
    );
  }
}

/**
 * `tea db repair`: a damaged database rebuilt from every row that can still be read
 * (nothing lost when only indexes are damaged), the damaged file kept beside it.
 */
export async function dbRepair(): Promise<number> {
  const file = dbFile();
  if (!existsSync(file)) {
    process.stdout.write(`${file}: no database yet, nothing to repair\n`);
    return EXIT.OK;
  }
  refuseWhileWorking(file, 'repair');
  let outcome: ReturnType<typeof repairDatabase>;
  try {
    outcome = repairDatabase(file, { rebuild: rebuildSearchIndexes });
  } catch (err) {
    const newest = listBackups(file)[0];
    throw new CliError(
      `cannot repair ${file}: ${(err as Error).message}; it is left as it was. ` +
        (newest
          ? `\`tea db restore\` puts back the last good backup (${path.basename(newest.path)}, from ${when(newest.at)}).`
          : 'There is no backup to restore.'),
      EXIT.ERROR,
    );
  }
  if (outcome.status === 'sound') {
    process.stdout.write(`${file}: ok, nothing to repair\n`);
    return EXIT.OK;
  }
  process.stdout.write(repairReport(file, outcome));
  return EXIT.OK;
}

/** Asks a yes/no question on the terminal; false on anything but yes (or a closed terminal). */
async function confirm(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline');
  // The question goes to stderr, so it is seen when stdout is piped to a file.
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await new Promise<string | undefined>((resolve) => {
      rl.once('close', () => resolve(undefined));
      rl.question(question, resolve);
    });
    return /^\s*y(es)?\s*$/i.test(answer ?? '');
  } finally {
    rl.close();
  }
}

/**
 * `tea db restore [backup] [--yes]`: the newest good backup (or the one named) back
 * in place. It first says what the backup holds against what can still be read in
 * the database; when the backup holds fewer sessions, messages or memories, it goes
 * on only with `--yes` or a "y" typed at a terminal (never on its own in a script).
 */
export async function dbRestore(from: string | undefined, opts: { yes?: boolean } = {}): Promise<number> {
  const file = dbFile();
  refuseWhileWorking(file, 'restore');
  const backup = pickBackup(file, from ? path.resolve(from) : undefined);
  const inBackup = readableCounts(backup.path);
  const now = existsSync(file) ? readableCounts(file) : undefined;
  process.stdout.write(
    `the backup ${path.basename(backup.path)} (from ${when(backup.at)}) holds ${inBackup ? countsText(inBackup) : 'what it holds cannot be counted'}\n`,
  );
  if (existsSync(file)) {
    process.stdout.write(
      now
        ? `the database holds ${countsText(now)} that can still be read\n`
        : 'nothing in the database can be read\n',
    );
  }
  const fewer = now && inBackup ? KINDS.filter((k) => inBackup[k] < now[k]) : [];
  if (fewer.length > 0 && !opts.yes) {
    const loses = `restoring it loses the ${fewer.join(', ')} the backup lacks (\`tea db repair\` keeps what can still be read)`;
    if (!process.stdin.isTTY) {
      throw new CliError(`not restored: ${loses}; to restore anyway, run tea db restore --yes`, EXIT.ERROR);
    }
    if (!(await confirm(`${loses[0]!.toUpperCase()}${loses.slice(1)}. Restore anyway? [y/N] `))) {
      process.stdout.write('not restored; nothing changed\n');
      return EXIT.ERROR;
    }
  }
  const done = restoreBackup(file, { from: backup });
  process.stdout.write(
    `restored ${file} from ${done.from.path} (${when(done.from.at)})\n` +
      (done.keptAs ? `the replaced database was kept as ${done.keptAs}\n` : ''),
  );
  return EXIT.OK;
}
