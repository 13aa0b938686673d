/**
 * The git side of self_modify, in plumbing commands that never touch the user's
 * index, HEAD or stash until the one commit at the end:
 *
 * - a snapshot of the working tree (tracked and untracked, not ignored) is a tree
 *   object written through a temporary index (a copy of the real one, so git can
 *   reuse its stat cache): `GIT_INDEX_FILE=tmp git add -A && git write-tree`;
 * - the commit is built from HEAD's tree plus the touched paths in another temporary
 *   index, made with `commit-tree`, and HEAD moves with `update-ref HEAD new old`
 *   (refused if HEAD moved meanwhile); then only the touched entries of the real
 *   index are updated to match (`git reset -- paths`). No hook, editor or signing
 *   program runs.
 *
 * Every command runs with the git tools' safety overrides (no hooks, no fsmonitor,
 * no pager, no transport; tools/builtin/git-safety.ts).
 */
import { copyFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { SAFE_CONFIG, SAFE_ENV } from '../../tools/builtin/git-safety.js';
import { runCaptured } from '../../util/captured-run.js';
import { gateEnv } from './proc.js';

export class GitFailed extends Error {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
    readonly code: number | null,
  ) {
    super(`git ${args.join(' ')} failed (${code}): ${stderr.trim().split('\n').slice(0, 5).join('\n')}`);
    this.name = 'GitFailed';
  }
}

export interface GitOptions {
  /** Another index file (the real one is never written but by `commitPaths`). */
  index?: string;
  input?: string;
  okCodes?: readonly number[];
  timeoutMs?: number;
  /** Paths after `--` are literal, never globs (default); check-ignore refuses the setting. */
  literal?: boolean;
}

const CONFIG_ARGS = [
  ...[['color.ui', 'false'], ['core.quotepath', 'false'], ...SAFE_CONFIG].flatMap(([k, v]) => [
    '-c',
    `${k}=${v}`,
  ]),
  '--no-pager',
];

/** Runs git in `root`; resolves with stdout as bytes, rejects with `GitFailed`. */
export async function gitRaw(root: string, args: readonly string[], opts: GitOptions = {}): Promise<Buffer> {
  const env: NodeJS.ProcessEnv = {
    ...gateEnv(),
    ...SAFE_ENV,
    LC_ALL: 'C',
    LANG: 'C',
  };
  if (opts.index !== undefined) env.GIT_INDEX_FILE = opts.index;
  if (opts.literal !== false) env.GIT_LITERAL_PATHSPECS = '1';
  const r = await runCaptured('git', [...CONFIG_ARGS, ...args], {
    cwd: root,
    env,
    timeoutMs: opts.timeoutMs ?? 120_000,
    ...(opts.input === undefined ? {} : { input: opts.input }),
  });
  if (r.code === 0 || (r.code !== null && opts.okCodes?.includes(r.code))) return r.stdout;
  throw new GitFailed(args, r.stderr, r.code);
}

export async function git(root: string, args: readonly string[], opts: GitOptions = {}): Promise<string> {
  return (await gitRaw(root, args, opts)).toString('utf8');
}

const zSplit = (text: string): string[] => text.split('\0').filter((s) => s !== '');

/** The commit HEAD names, or undefined on an unborn branch. */
export async function headCommit(root: string): Promise<string | undefined> {
  const out = await git(root, ['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { okCodes: [1] });
  return out.trim() || undefined;
}

/** The branch HEAD is on ('' when detached). */
export async function headBranch(root: string): Promise<string> {
  const out = await git(root, ['symbolic-ref', '-q', '--short', 'HEAD'], { okCodes: [1] });
  return out.trim();
}

/** A path inside the repository's git directory (`index`, `MERGE_HEAD`; worktree-aware). */
export async function gitPath(root: string, name: string): Promise<string> {
  return path.resolve(root, (await git(root, ['rev-parse', '--git-path', name])).trim());
}

/**
 * A tree object of the working tree as it is now (tracked and untracked files that are
 * not ignored), written through a temporary index at `tmpIndex`.
 */
export async function snapshotTree(root: string, tmpIndex: string): Promise<string> {
  await copyFile(await gitPath(root, 'index'), tmpIndex).catch(() => undefined);
  await git(root, ['add', '-A', '--', '.'], { index: tmpIndex });
  return (await git(root, ['write-tree'], { index: tmpIndex })).trim();
}

/** Of `paths`: those whose working-tree or staged state differs from `head` (uncommitted changes). */
export async function uncommitted(
  root: string,
  head: string,
  tree: string,
  paths: readonly string[],
): Promise<string[]> {
  if (paths.length === 0) return [];
  const [worktree, staged] = await Promise.all([
    git(root, ['diff-tree', '-r', '--no-renames', '--name-only', '-z', head, tree, '--', ...paths]),
    git(root, ['diff-index', '--cached', '--no-renames', '--name-only', '-z', head, '--', ...paths]),
  ]);
  return [...new Set([...zSplit(worktree), ...zSplit(staged)])].sort();
}

export interface TreeChange {
  /** A: only in the second tree; D: only in the first; M/T: changed. */
  status: string;
  path: string;
  /** In the first tree (D, M, T). */
  oldMode: string;
  oldBlob: string;
}

/** The files that differ between two trees. */
export async function treeChanges(root: string, from: string, to: string): Promise<TreeChange[]> {
  if (from === to) return [];
  const out = zSplit(await git(root, ['diff-tree', '-r', '--no-renames', '--raw', '-z', from, to]));
  const changes: TreeChange[] = [];
  for (let i = 0; i + 1 < out.length; i += 2) {
    const [oldMode = '', , oldBlob = '', , status = ''] = (out[i] ?? '').replace(/^:/, '').split(' ');
    changes.push({ status: status.slice(0, 1), path: out[i + 1] ?? '', oldMode, oldBlob });
  }
  return changes;
}

export function blob(root: string, sha: string): Promise<Buffer> {
  return gitRaw(root, ['cat-file', 'blob', sha]);
}

/** Ignored entries in the working tree, whole ignored directories as `dir/`. */
export async function ignoredEntries(root: string): Promise<string[]> {
  return zSplit(await git(root, ['ls-files', '-o', '-i', '--exclude-standard', '--directory', '-z']));
}

/** Of `paths`: those git ignores (a tracked file is never ignored). */
export async function ignoredOf(root: string, paths: readonly string[]): Promise<string[]> {
  if (paths.length === 0) return [];
  const input = `${paths.join('\0')}\0`;
  return zSplit(await git(root, ['check-ignore', '-z', '--stdin'], { input, okCodes: [1], literal: false }));
}

/** Why git could not commit as anyone, or undefined when an identity is set. */
export async function missingIdentity(root: string): Promise<string | undefined> {
  try {
    await git(root, ['var', 'GIT_AUTHOR_IDENT']);
    await git(root, ['var', 'GIT_COMMITTER_IDENT']);
    return undefined;
  } catch (error) {
    return error instanceof GitFailed ? error.stderr.trim().split('\n').slice(-2).join(' ') : String(error);
  }
}

/** A merge, rebase, cherry-pick or revert in progress, by its marker; undefined when none. */
export async function operationInProgress(root: string): Promise<string | undefined> {
  for (const name of ['MERGE_HEAD', 'CHERRY_PICK_HEAD', 'REVERT_HEAD', 'rebase-merge', 'rebase-apply']) {
    const found = await stat(await gitPath(root, name)).then(
      () => true,
      () => false,
    );
    if (found) return name;
  }
  return undefined;
}

/**
 * Commits the working-tree state of `paths` (and nothing else) on top of `head` and
 * moves HEAD there (only if it is still `head`). The real index is not touched here.
 */
export async function commitPaths(
  root: string,
  head: string,
  paths: readonly string[],
  message: string,
  tmpIndex: string,
): Promise<string> {
  await git(root, ['read-tree', head], { index: tmpIndex });
  await git(root, ['update-index', '--add', '--remove', '--', ...paths], { index: tmpIndex });
  const tree = (await git(root, ['write-tree'], { index: tmpIndex })).trim();
  const commit = (await git(root, ['commit-tree', tree, '-p', head, '-F', '-'], { input: message })).trim();
  const subject = message.split('\n', 1)[0] ?? '';
  await git(root, ['update-ref', '-m', `self_modify: ${subject}`, 'HEAD', commit, head]);
  return commit;
}
