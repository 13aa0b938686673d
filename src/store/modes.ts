/**
 * The data home holds every conversation and memory: its database, the database's
 * -wal/-shm files and the backups are for the user alone (0600, in 0700
 * directories), like the config cache. Files made by older versions (0644 under the
 * usual umask) are tightened when the database is opened; where chmod is not
 * permitted (a file owned by someone else, a read-only mount), they are left as they are.
 */
import { chmodSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const PRIVATE_DIR = 0o700;
export const PRIVATE_FILE = 0o600;

/** Drops the group and other bits `mode` does not keep from `path`; never fails. */
export function tighten(path: string, mode: number): void {
  try {
    const current = statSync(path).mode & 0o777;
    if ((current & ~mode) !== 0) chmodSync(path, current & mode);
  } catch {
    // missing, or not ours to change
  }
}

/** The directory of the database at `file`, the file, its -wal/-shm and the backups beside it. */
export function tightenDataFiles(file: string, backups: string): void {
  tighten(dirname(file), PRIVATE_DIR);
  for (const f of [file, `${file}-wal`, `${file}-shm`]) tighten(f, PRIVATE_FILE);
  let names: string[];
  try {
    names = readdirSync(backups);
  } catch {
    return;
  }
  tighten(backups, PRIVATE_DIR);
  for (const name of names) tighten(join(backups, name), PRIVATE_FILE);
}
