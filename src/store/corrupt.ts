/**
 * A damaged database file: how to recognise one, and what to tell the user. Any
 * query may be the first to touch a damaged page, so the CLI checks every error
 * it reports; the message names the file, the newest backup and the commands.
 */
import { homedir } from 'node:os';
import { basename } from 'node:path';
import { type BackupInfo, listBackups } from './backup.js';
import { sqliteCode } from './errors.js';

/** SQLite's own verdict that the file is not a sound database (at open, or on any page it reads). */
export function isCorruption(err: unknown): boolean {
  for (let e = err; e instanceof Error; e = e.cause) {
    const code = sqliteCode(e);
    if (code?.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB') return true;
    if (e.name === 'StoreError' && 'code' in e && e.code === 'damaged') return true;
  }
  return false;
}

/** The reason SQLite gave, e.g. `database disk image is malformed`. */
export function corruptionReason(err: unknown): string {
  for (let e = err; e instanceof Error; e = e.cause) if (sqliteCode(e)) return e.message;
  return err instanceof Error ? err.message : String(err);
}

function shown(path: string): string {
  const home = homedir();
  return home && home !== '/' && path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

function when(ms: number): string {
  return new Date(ms).toISOString().replace('T', ' ').slice(0, 16);
}

/** What to tell the user about the damaged database at `file`: the reason and the way back. */
export function corruptionMessage(
  file: string,
  reason: string,
  backups: BackupInfo[] = listBackups(file),
): string {
  const name = shown(file);
  const head = `the database ${name} is damaged (${reason}).`;
  const newest = backups[0];
  if (newest) {
    return (
      `${head} To recover, run \`tea db restore\`: it puts back the last good backup ` +
      `(${basename(newest.path)}, from ${when(newest.at)} UTC; later changes are not in it) and keeps ` +
      `the damaged file beside it as ${basename(file)}.damaged-<time>. \`tea db check\` shows what is damaged.`
    );
  }
  return (
    `${head} There is no backup of it yet. To start afresh, move it away: ` +
    `\`mv ${name} ${name}.damaged\` (tea creates a new one); the sqlite3 shell's \`.recover\` ` +
    'command may save part of it. `tea db check` shows what is damaged.'
  );
}

/** One line on how to recover the damaged database at `file`, for `tea db check` (which has shown the damage). */
export function recoveryLine(file: string, backups: BackupInfo[] = listBackups(file)): string {
  const newest = backups[0];
  if (newest) {
    return (
      `to recover: tea db restore (puts back ${basename(newest.path)}, from ${when(newest.at)} UTC, ` +
      `and keeps the damaged file as ${basename(file)}.damaged-<time>)`
    );
  }
  const name = shown(file);
  return `to recover: there is no backup yet; move the file away (mv ${name} ${name}.damaged) and tea starts a new one`;
}
