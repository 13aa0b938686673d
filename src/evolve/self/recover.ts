/**
 * A self_modify killed between applying its patch and finishing (the process got
 * SIGKILL, the machine went down) leaves its backup in the state `applying`. The next
 * self_modify for the same repository puts such a run back first, from its backup,
 * but only where it is safe: each touched file must hold either what the patch wrote
 * (then the backup goes back) or what was there before (then nothing is needed). A
 * file edited since is someone's work: nothing is restored then, the backup is marked
 * `abandoned`, and the caller is told where it is.
 */
import { lstat, readdir, readFile, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { type BackedUpFile, readState, restoreBackup, setState, sha256 } from './backup.js';

export interface Recovery {
  /** Backups put back (their directories). */
  recovered: string[];
  /** Backups left alone because files were edited since: what to tell the user. */
  conflicts: string[];
}

async function currentSha(root: string, rel: string): Promise<string | undefined> {
  const info = await lstat(path.join(root, rel)).catch(() => undefined);
  if (info === undefined) return undefined;
  if (!info.isFile()) return 'not a file';
  return sha256(await readFile(path.join(root, rel)));
}

/** Empty directories left above a removed file (up to the root). */
async function pruneParents(root: string, rel: string): Promise<void> {
  for (let d = path.dirname(rel); d !== '.' && d !== ''; d = path.dirname(d)) {
    const removed = await rmdir(path.join(root, d)).then(
      () => true,
      () => false,
    );
    if (!removed) return;
  }
}

/** Puts back every interrupted self_modify of the repository at `root` whose files allow it. */
export async function recoverInterrupted(root: string, backupsDir: string): Promise<Recovery> {
  const out: Recovery = { recovered: [], conflicts: [] };
  const names = await readdir(backupsDir).catch(() => [] as string[]);
  for (const name of names.sort()) {
    const dir = path.join(backupsDir, name);
    if ((await readState(dir)) !== 'applying') continue;
    let manifest: { repo?: string; files?: BackedUpFile[] };
    try {
      manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8'));
    } catch {
      continue;
    }
    if (manifest.repo !== root || !Array.isArray(manifest.files)) continue;
    const edited: string[] = [];
    for (const file of manifest.files) {
      const now = await currentSha(root, file.path);
      const before = file.existed ? file.sha256 : undefined;
      if (now !== before && now !== file.afterSha256) edited.push(file.path);
    }
    if (edited.length > 0) {
      await setState(dir, 'abandoned');
      out.conflicts.push(
        `an interrupted self_modify (backup ${dir}) left changes, and ${edited.join(', ')} changed since; nothing of it was restored`,
      );
      continue;
    }
    const problems = await restoreBackup(root, { dir, files: manifest.files, createdDirs: [] });
    for (const file of manifest.files) if (!file.existed) await pruneParents(root, file.path);
    if (problems.length > 0) {
      await setState(dir, 'abandoned');
      out.conflicts.push(
        `an interrupted self_modify (backup ${dir}) could not be fully restored: ${problems.join('; ')}`,
      );
      continue;
    }
    await setState(dir, 'recovered');
    out.recovered.push(dir);
  }
  return out;
}
