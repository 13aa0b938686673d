/**
 * Gate 1: a byte copy of every file a self-patch touches, and a record of the files
 * it creates, under `<TEA_HOME>/self-modify/backups/<timestamp>-<pid>-<n>/` (never
 * inside the repository). A backup directory is made once and never overwritten;
 * old ones stay for the user to inspect or prune.
 *
 * Applying writes the planned bytes (creating parent directories, recorded so a
 * rollback removes them); restoring puts back every backed-up file byte for byte
 * (checked by SHA-256) and deletes the files the patch created.
 */
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, readFile, rmdir, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PlannedChange } from './plan.js';

export interface BackedUpFile {
  path: string;
  /** The file was there before the patch (its bytes are in the backup). */
  existed: boolean;
  mode?: number;
  sha256?: string;
  size?: number;
  /** The SHA-256 of what the patch writes here (absent: the patch deletes the file). */
  afterSha256?: string;
}

/**
 * Where a backup's run got to, in the `state` file beside its manifest: a backup left
 * `applying` belongs to a run that was killed before it finished (recover.ts).
 */
export type BackupState = 'applying' | 'restored' | 'committed' | 'checked' | 'recovered' | 'abandoned';

export async function setState(dir: string, state: BackupState): Promise<void> {
  await writeFile(path.join(dir, 'state'), `${state}\n`);
}

export async function readState(dir: string): Promise<string> {
  return (await readFile(path.join(dir, 'state'), 'utf8').catch(() => '')).trim();
}

export interface Backup {
  dir: string;
  files: BackedUpFile[];
  /** Directories applying created, outermost first. */
  createdDirs: string[];
}

export interface BackupInfo {
  repo: string;
  reason: string;
  head: string;
  snapshotTree: string;
}

export const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

function stamp(now: Date): string {
  const p = (n: number, w = 2): string => String(n).padStart(w, '0');
  return `${now.getUTCFullYear()}${p(now.getUTCMonth() + 1)}${p(now.getUTCDate())}-${p(now.getUTCHours())}${p(now.getUTCMinutes())}${p(now.getUTCSeconds())}-${p(now.getUTCMilliseconds(), 3)}`;
}

/** A new directory under `parent` named by the time; never an existing one. */
async function freshDir(parent: string, now: Date): Promise<string> {
  await mkdir(parent, { recursive: true });
  const base = `${stamp(now)}-${process.pid}`;
  for (let n = 0; ; n++) {
    const dir = path.join(parent, n === 0 ? base : `${base}-${n}`);
    try {
      await mkdir(dir);
      return dir;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || n > 1000) throw error;
    }
  }
}

/** Copies the files `changes` touch from the repository at `root` into a new backup directory. */
export async function makeBackup(
  root: string,
  backupsDir: string,
  changes: readonly PlannedChange[],
  info: BackupInfo,
  now: Date,
): Promise<Backup> {
  const dir = await freshDir(backupsDir, now);
  const files: BackedUpFile[] = [];
  for (const change of changes) {
    const abs = path.join(root, change.path);
    const after = change.after === undefined ? {} : { afterSha256: sha256(change.after) };
    const stat = await lstat(abs).catch(() => undefined);
    if (stat === undefined) {
      files.push({ path: change.path, existed: false, ...after });
      continue;
    }
    const bytes = await readFile(abs);
    const copy = path.join(dir, 'files', change.path);
    await mkdir(path.dirname(copy), { recursive: true });
    await writeFile(copy, bytes, { flag: 'wx' });
    files.push({
      path: change.path,
      existed: true,
      mode: stat.mode & 0o7777,
      sha256: sha256(bytes),
      size: bytes.length,
      ...after,
    });
  }
  const manifest = { createdAt: now.toISOString(), ...info, files };
  await writeFile(path.join(dir, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' });
  return { dir, files, createdDirs: [] };
}

/** The directories above `rel` that do not exist yet, outermost first. */
async function missingDirs(root: string, rel: string): Promise<string[]> {
  const out: string[] = [];
  for (let d = path.dirname(rel); d !== '.' && d !== ''; d = path.dirname(d)) {
    const there = await lstat(path.join(root, d)).then(
      () => true,
      () => false,
    );
    if (there) break;
    out.unshift(d);
  }
  return out;
}

/** Writes the planned changes; records the directories it makes in `backup.createdDirs`. */
export async function applyChanges(
  root: string,
  changes: readonly PlannedChange[],
  backup: Backup,
): Promise<void> {
  for (const change of changes) {
    const abs = path.join(root, change.path);
    if (change.kind === 'delete') {
      await unlink(abs);
    } else if (change.kind === 'modify') {
      await writeFile(abs, change.after ?? Buffer.alloc(0));
    } else {
      const dirs = await missingDirs(root, change.path);
      for (const d of dirs) {
        await mkdir(path.join(root, d));
        backup.createdDirs.push(d);
      }
      await writeFile(abs, change.after ?? Buffer.alloc(0), { flag: 'wx', mode: change.mode ?? 0o644 });
      // The umask may have narrowed the mode.
      await chmod(abs, change.mode ?? 0o644);
    }
  }
}

/**
 * Puts every touched file back as the backup holds it, deletes the files the patch
 * created and the directories applying made. Returns the problems met (empty: done).
 */
export async function restoreBackup(root: string, backup: Backup): Promise<string[]> {
  const problems: string[] = [];
  for (const file of [...backup.files].reverse()) {
    const abs = path.join(root, file.path);
    try {
      if (!file.existed) {
        await unlink(abs).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error;
        });
        continue;
      }
      const bytes = await readFile(path.join(backup.dir, 'files', file.path));
      if (sha256(bytes) !== file.sha256) {
        problems.push(`${file.path}: the backup copy does not match its recorded SHA-256`);
        continue;
      }
      await mkdir(path.dirname(abs), { recursive: true });
      // A file that is now a link or a directory is not written through.
      const now = await lstat(abs).catch(() => undefined);
      if (now !== undefined && !now.isFile()) {
        problems.push(`${file.path}: is no longer a regular file; not restored`);
        continue;
      }
      await writeFile(abs, bytes);
      if (file.mode !== undefined) await chmod(abs, file.mode);
    } catch (error) {
      problems.push(`${file.path}: ${(error as Error).message}`);
    }
  }
  for (const d of [...backup.createdDirs].reverse()) {
    // Only when empty: anything still inside is dealt with by the snapshot check.
    await rmdir(path.join(root, d)).catch(() => undefined);
  }
  return problems;
}
