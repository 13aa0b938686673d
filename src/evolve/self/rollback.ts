/**
 * Gate 0's other half: the state of the working tree before a self-patch (the
 * snapshot tree, the ignored entries and the directories), and the check after a
 * rollback that the tree is that state again, byte for byte.
 *
 * The backups (backup.ts) put back what the patch touched. What the gates themselves
 * left behind is found here by comparing with the snapshot: a new file (a test that
 * wrote into the repository) is deleted, a changed or missing file is written back
 * from the snapshot's blob, a new ignored entry (`coverage/`) is removed, and so is a
 * new empty directory. Then the snapshot is taken again and must equal the first.
 * Ignored entries that existed before are left alone (caches inside node_modules).
 */
import { chmod, lstat, mkdir, readdir, rm, rmdir, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { blob, ignoredEntries, snapshotTree, treeChanges } from './git.js';

export interface TreeState {
  /** The snapshot: a tree object of every file that is not ignored. */
  tree: string;
  /** Ignored entries (`dir/` for whole directories). */
  ignored: ReadonlySet<string>;
  /** Directories that are not ignored (repository-relative). */
  dirs: ReadonlySet<string>;
}

export interface RestoreReport {
  /** The tree equals the snapshot again (and nothing new is left). */
  verified: boolean;
  /** Files the gates changed or removed, written back from the snapshot. */
  rewritten: string[];
  /** Files and entries the gates created, removed. */
  removed: string[];
  /** What could not be put right. */
  problems: string[];
}

async function walkDirs(root: string, ignored: ReadonlySet<string>): Promise<Set<string>> {
  const dirs = new Set<string>();
  const visit = async (rel: string): Promise<void> => {
    const entries = await readdir(path.join(root, rel), { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (!e.isDirectory()) continue;
      const sub = rel === '' ? e.name : `${rel}/${e.name}`;
      if ((rel === '' && e.name === '.git') || ignored.has(`${sub}/`)) continue;
      dirs.add(sub);
      await visit(sub);
    }
  };
  await visit('');
  return dirs;
}

/** The state of the working tree at `root` now. */
export async function captureState(root: string, tmpIndex: string): Promise<TreeState> {
  const [tree, ignoredList] = await Promise.all([snapshotTree(root, tmpIndex), ignoredEntries(root)]);
  const ignored = new Set(ignoredList);
  return { tree, ignored, dirs: await walkDirs(root, ignored) };
}

function modeBits(gitMode: string): number {
  return gitMode === '100755' ? 0o755 : 0o644;
}

/** Writes `rel` back as the snapshot holds it. */
async function rewrite(root: string, rel: string, mode: string, sha: string): Promise<void> {
  const abs = path.join(root, rel);
  const bytes = await blob(root, sha);
  const now = await lstat(abs).catch(() => undefined);
  if (now !== undefined && !now.isFile()) await rm(abs, { recursive: true, force: true });
  await mkdir(path.dirname(abs), { recursive: true });
  if (mode === '120000') {
    await unlink(abs).catch(() => undefined);
    await symlink(bytes.toString('utf8'), abs);
    return;
  }
  await writeFile(abs, bytes);
  await chmod(abs, modeBits(mode));
}

/** Inside the repository and not in .git: a path this module may remove. */
function removable(rel: string): boolean {
  const parts = rel.replace(/\/$/, '').split('/');
  return rel !== '' && !parts.includes('..') && parts[0]?.toLowerCase() !== '.git';
}

/** Compares the tree with `before` and puts right what differs; then checks again. */
export async function restoreToSnapshot(
  root: string,
  before: TreeState,
  tmpIndex: string,
): Promise<RestoreReport> {
  const report: RestoreReport = { verified: false, rewritten: [], removed: [], problems: [] };
  let now: TreeState;
  try {
    now = await captureState(root, tmpIndex);
    for (const change of await treeChanges(root, before.tree, now.tree)) {
      try {
        if (change.status === 'A') {
          await rm(path.join(root, change.path), { force: true });
          report.removed.push(change.path);
        } else if (change.oldMode === '160000') {
          report.problems.push(`${change.path}: a submodule changed; not touched`);
        } else {
          await rewrite(root, change.path, change.oldMode, change.oldBlob);
          report.rewritten.push(change.path);
        }
      } catch (error) {
        report.problems.push(`${change.path}: ${(error as Error).message}`);
      }
    }
    for (const entry of now.ignored) {
      if (before.ignored.has(entry) || !removable(entry)) continue;
      await rm(path.join(root, entry), { recursive: true, force: true });
      report.removed.push(entry);
    }
    // New directories, deepest first, once they are empty.
    const fresh = [...(await walkDirs(root, before.ignored))].filter((d) => !before.dirs.has(d));
    for (const dir of fresh.sort((a, b) => b.length - a.length)) {
      await rmdir(path.join(root, dir)).then(
        () => report.removed.push(`${dir}/`),
        () => report.problems.push(`${dir}/: a new directory that is not empty`),
      );
    }
    const after = await captureState(root, tmpIndex);
    const leftDirs = [...after.dirs].filter((d) => !before.dirs.has(d));
    const leftIgnored = [...after.ignored].filter((e) => !before.ignored.has(e));
    if (after.tree !== before.tree) {
      const still = await treeChanges(root, before.tree, after.tree);
      report.problems.push(`still different from the snapshot: ${still.map((c) => c.path).join(', ')}`);
    }
    if (leftDirs.length + leftIgnored.length > 0)
      report.problems.push(`still there: ${[...leftDirs.map((d) => `${d}/`), ...leftIgnored].join(', ')}`);
    report.verified = after.tree === before.tree && leftDirs.length + leftIgnored.length === 0;
  } catch (error) {
    report.problems.push(`the check against the snapshot failed: ${(error as Error).message}`);
  }
  return report;
}
