/**
 * Whether a workspace is Tea Agent's own repository: the git root above it (a `.git`
 * folder, or a file in a worktree) whose package.json is named `tea-agent` and which
 * has `src/agent/`. Only there does upkeep write the tools reference into `docs/`.
 * (Issue 16's self-modification needs the same answer; one shared detector can replace this.)
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const OWN_PACKAGE_NAME = 'tea-agent';

/** The nearest folder at or above `dir` holding `.git`, or undefined. */
export function gitRoot(dir: string): string | undefined {
  let at = path.resolve(dir);
  for (;;) {
    if (existsSync(path.join(at, '.git'))) return at;
    const up = path.dirname(at);
    if (up === at) return undefined;
    at = up;
  }
}

/** The root of Tea's own repository when `cwd` lies in it, else undefined. */
export function ownRepoRoot(cwd: string): string | undefined {
  const root = gitRoot(cwd);
  if (!root) return undefined;
  try {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name?: unknown };
    if (pkg.name !== OWN_PACKAGE_NAME) return undefined;
    return statSync(path.join(root, 'src', 'agent')).isDirectory() ? root : undefined;
  } catch {
    return undefined;
  }
}
