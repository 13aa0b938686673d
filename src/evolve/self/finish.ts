/**
 * The end of a self_modify that passed its gates: what is committed must be what the
 * patch wrote (a gate that rewrote a touched file stops the commit), the message, and
 * the user's index brought in line with the new HEAD for the committed paths.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { git, snapshotTree, treeChanges } from './git.js';
import type { PlannedChange } from './plan.js';
import type { GateSummaries } from './result.js';

export const COMMIT_HINT =
  'the tree was restored; if HEAD moved meanwhile (someone committed), rebuild the patch on the new HEAD and send it again';

/** The commit message: the reason, then the test summary. */
export function commitMessage(reason: string, gates: GateSummaries): string {
  return `${reason}\n\nTests: ${gates.suite}\nSelf-modified by Tea Agent: typecheck, lint (${gates.lint.before} → ${gates.lint.after} findings) and tests passed.\n`;
}

/**
 * Touched files whose content is not what the patch wrote, and other files that differ
 * from the snapshot `tree` now (what the gates left behind).
 */
export async function drift(
  root: string,
  changes: readonly PlannedChange[],
  tree: string,
  tmpIndex: string,
): Promise<{ touched: string[]; others: string[] }> {
  const touched: string[] = [];
  for (const c of changes) {
    const now = await readFile(path.join(root, c.path)).catch(() => undefined);
    const same = c.after === undefined ? now === undefined : now?.equals(c.after) === true;
    if (!same) touched.push(c.path);
  }
  const paths = new Set(changes.map((c) => c.path));
  const current = await snapshotTree(root, tmpIndex);
  const others = (await treeChanges(root, tree, current)).map((c) => c.path).filter((p) => !paths.has(p));
  return { touched, others };
}

/** The user's index entries of the committed paths, set to the new HEAD; a warning when that fails. */
export async function syncIndex(root: string, paths: readonly string[]): Promise<string | undefined> {
  try {
    await git(root, ['reset', '-q', 'HEAD', '--', ...paths]);
    return undefined;
  } catch (error) {
    return `the commit landed, but the index entries of its files were not updated (git status may show them staged): ${(error as Error).message}`;
  }
}
