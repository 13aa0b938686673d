/**
 * Is the workspace Tea Agent's own repository? Only there may Tea change its own
 * source (self_modify); everywhere else those tools do not exist and the agent keeps
 * to the user's task.
 *
 * The test, at the git root that holds the workspace (the nearest ancestor with a
 * `.git` directory or file, so linked worktrees count):
 *   - package.json names the package `tea-agent`, and
 *   - the layout is Tea's: `src/agent/agent.ts`, `src/tools/registry.ts` and
 *     `src/runtime/runtime.ts` are files.
 * A repository that merely names its package tea-agent is not detected; a fork or a
 * copy of Tea's tree is (it is Tea's source, and the gates guard it the same way). A
 * Tea checkout inside a bigger repository (not at its git root) is not detected.
 *
 * Cost: one stat per directory up to the git root, three stats and one small read;
 * nothing is spawned. The runtime asks once.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** The package name in Tea Agent's package.json. */
export const TEA_PACKAGE_NAME = 'tea-agent';

/** Files that must exist at the git root besides package.json (Tea's layout). */
export const LAYOUT_MARKERS: readonly string[] = [
  'src/agent/agent.ts',
  'src/tools/registry.ts',
  'src/runtime/runtime.ts',
];

export interface OwnRepo {
  /** The git root: Tea Agent's repository. */
  root: string;
}

function exists(p: string): 'file' | 'dir' | undefined {
  const info = statSync(p, { throwIfNoEntry: false });
  if (!info) return undefined;
  return info.isDirectory() ? 'dir' : info.isFile() ? 'file' : undefined;
}

/** The nearest directory at or above `dir` holding `.git` (a directory, or a worktree's file). */
export function gitRootOf(dir: string): string | undefined {
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    if (exists(path.join(at, '.git')) !== undefined) return at;
    if (path.dirname(at) === at) return undefined;
  }
}

function packageName(root: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const name = (parsed as { name?: unknown }).name;
    return typeof name === 'string' ? name : undefined;
  } catch {
    return undefined;
  }
}

/** Whether `root` (a git root) holds Tea Agent's repository, by name and layout. */
export function isTeaRepo(root: string): boolean {
  // The layout first: three stats rule out almost every repository before a read.
  if (!LAYOUT_MARKERS.every((m) => exists(path.join(root, m)) === 'file')) return false;
  return packageName(root) === TEA_PACKAGE_NAME;
}

/** Tea Agent's repository when the workspace `cwd` lies in it; otherwise undefined. */
export function detectOwnRepo(cwd: string): OwnRepo | undefined {
  const root = gitRootOf(cwd);
  if (root === undefined || !isTeaRepo(root)) return undefined;
  return { root };
}

/** The line the system prompt gets in Tea's own repository (nothing is said elsewhere). */
export const SELF_MODE_NOTE =
  "Self-evolution: this is Tea Agent's own repository; you may improve your own code with self_modify (it lands only if typecheck, lint and tests pass).";
