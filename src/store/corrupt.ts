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

/** A header so damaged that SQLite does not take the file for a database: nothing in it can be read. */
function unreadable(reason: string): boolean {
  return /not a database/i.test(reason);
}

const REPAIR_DOES =
  'it rebuilds the file from every row it can still read (damage only in indexes loses nothing; ' +
  'otherwise it says what was lost)';

/** What to tell the user about the damaged database at `file`: the reason and the ways back, repair first. */
export function corruptionMessage(
  file: string,
  reason: string,
  backups: BackupInfo[] = listBackups(file),
): string {
  const name = shown(file);
  const head = `the database ${name} is damaged (${reason}).`;
  const kept = `${basename(file)}.damaged-<time>`;
  const newest = backups[0];
  const backup =
    newest &&
    `the last good backup (${basename(newest.path)}, from ${when(newest.at)} UTC; everything after it is lost)`;
  if (unreadable(reason)) {
    if (backup) {
      return `${head} Nothing in it can be read, so to recover, run \`tea db restore\`: it puts back ${backup} and keeps the damaged file beside it as ${kept}.`;
    }
    return (
      `${head} Nothing in it can be read and there is no backup of it yet. To start afresh, move it away: ` +
      `\`mv ${name} ${name}.damaged\` (tea creates a new one).`
    );
  }
  const repair = `To recover, run \`tea db repair\`: ${REPAIR_DOES}, and keeps the damaged file as ${kept}.`;
  const fallback = backup
    ? ` If it loses too much, \`tea db restore\` puts back ${backup}.`
    : ' There is no backup of it yet to go back to.';
  return `${head} ${repair}${fallback} \`tea db check\` shows what is damaged.`;
}

export interface Damage {
  /** Every finding is in something rebuilt from the tables (indexes, memory's search indexes). */
  indexesOnly: boolean;
  /** The file is not a database at all (its header is damaged). */
  unreadable?: boolean;
}

/**
 * How to recover the damaged database at `file`, for `tea db check` (which has
 * listed the damage): `tea db repair` first, saying what it keeps, then the backup.
 */
export function recoveryLines(
  file: string,
  damage: Damage,
  backups: BackupInfo[] = listBackups(file),
): string[] {
  const newest = backups[0];
  const kept = `${basename(file)}.damaged-<time>`;
  const restore = newest
    ? `tea db restore puts back ${basename(newest.path)}, from ${when(newest.at)} UTC, and keeps the damaged file ` +
      `as ${kept} (everything after that backup is lost)`
    : undefined;
  if (damage.unreadable) {
    if (restore) return [`to recover: ${restore}`];
    const name = shown(file);
    return [
      `to recover: there is no backup yet; move the file away (mv ${name} ${name}.damaged) and tea starts a new one`,
    ];
  }
  const repair = damage.indexesOnly
    ? `to recover: tea db repair; only indexes are damaged, so it rebuilds them from the tables and loses nothing (it keeps the damaged file as ${kept})`
    : `to recover: tea db repair copies every row it can still read into a new file, says per table what could not be read, and keeps the damaged file as ${kept}`;
  if (damage.indexesOnly) return [repair];
  return [repair, restore ? `or: ${restore}` : 'there is no backup to restore yet'];
}
