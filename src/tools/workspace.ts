/**
 * Path resolution for file tools: everything stays inside the workspace (`ctx.cwd`)
 * or an explicitly allowed root, and neither symlinks nor hard links (hardlinks.ts)
 * can be used to step outside. Writing tools also may not touch any `.git` directory.
 * Reading tools may also use the read-only roots (`ctx.readRoots`: the folders of the
 * skills offered to the session); writing tools never may.
 */
import { lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { refuseOutsideLinks } from './hardlinks.js';
import { HINTS, outsideWorkspaceHint } from './hints.js';
import { type ToolContext, ToolError } from './types.js';

export interface ResolveOptions {
  /** Throw a ToolError (with the ENOENT hint) when the path does not exist. */
  mustExist?: boolean;
  /** The path will be written, created, moved or deleted: refuse `.git` internals. */
  write?: boolean;
  /**
   * Resolve the parent directory but not the last component, so a symlink is
   * addressed itself (to delete, move or inspect the link rather than its target).
   * The name is addressed, not the content, so hard links pass too.
   */
  keepLink?: boolean;
}

type Roots = Pick<ToolContext, 'cwd' | 'allowedRoots' | 'readRoots'>;

const MAX_LINK_DEPTH = 40;

/** Expands `~` and `~/…` to the home directory. */
export function expandHome(p: string): string {
  if (p === '~') return homedir();
  if (p.startsWith('~/')) return join(homedir(), p.slice(2));
  return p;
}

/**
 * The real path of `abs`, even when its tail does not exist yet: the nearest
 * existing ancestor is resolved with realpath and the rest appended. Dangling
 * symlinks are followed to where they point.
 */
export function realpathLoose(abs: string, depth = 0): string {
  if (depth > MAX_LINK_DEPTH) throw new ToolError(`Too many levels of symbolic links at ${abs}`);
  try {
    return realpathSync(abs);
  } catch {
    // Missing, or a dangling symlink: handled below.
  }
  let isLink = false;
  try {
    isLink = lstatSync(abs).isSymbolicLink();
  } catch {
    isLink = false;
  }
  if (isLink) return realpathLoose(resolve(dirname(abs), readlinkSync(abs)), depth + 1);
  const parent = dirname(abs);
  if (parent === abs) return abs;
  return join(realpathLoose(parent, depth), basename(abs));
}

/** True when `target` is `root` or below it. */
export function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The workspace root and the allowed roots, each as a real path. */
export function workspaceRoots(ctx: Roots): string[] {
  const roots = [ctx.cwd, ...(ctx.allowedRoots ?? [])].map((r) => resolve(ctx.cwd, expandHome(r)));
  return roots.map((r) => realpathLoose(r));
}

/** The read-only roots, each as a real path. */
export function readOnlyRoots(ctx: Pick<ToolContext, 'readRoots'>): string[] {
  return (ctx.readRoots ?? []).map((r) => realpathLoose(resolve(r)));
}

/** The innermost workspace root that contains `abs` (a real path), if any. */
export function rootOf(ctx: Roots, abs: string): string | undefined {
  let best: string | undefined;
  for (const root of workspaceRoots(ctx)) {
    if (isInside(root, abs) && (best === undefined || root.length > best.length)) best = root;
  }
  return best;
}

/** True when `abs` is one of the workspace roots or contains one of them. */
export function containsRoot(ctx: Roots, abs: string): boolean {
  return workspaceRoots(ctx).some((root) => isInside(abs, root));
}

function throwOutside(ctx: Roots, p: string, lexical: string, real: string): never {
  const shown = real === lexical ? real : `${lexical} -> ${real}`;
  throw new ToolError(
    `Path "${p}" is outside the workspace (${shown})`,
    outsideWorkspaceHint(ctx.cwd, ctx.allowedRoots),
  );
}

/** True when a path segment below its root is `.git`. */
function inGitDir(roots: readonly string[], abs: string): boolean {
  return roots.some((root) => isInside(root, abs) && relative(root, abs).split(sep).includes('.git'));
}

/**
 * Resolves `p` for a file tool: relative to `ctx.cwd`, `~` expanded, and checked to be
 * inside the workspace or an allowed root after symlinks are resolved. Returns the
 * real absolute path (with `keepLink`, the real parent joined with the last name).
 */
export function resolvePath(ctx: Roots, p: string, opts: ResolveOptions = {}): string {
  if (p.trim() === '') throw new ToolError('The path is empty', 'pass a file or directory path');
  if (p.includes('\0')) throw new ToolError('The path contains a NUL character', 'pass a plain path');
  const lexical = resolve(ctx.cwd, expandHome(p));
  const roots = workspaceRoots(ctx);
  const readOnly = readOnlyRoots(ctx);
  const usable = opts.write || readOnly.length === 0 ? roots : [...roots, ...readOnly];
  const keep = opts.keepLink === true && dirname(lexical) !== lexical;
  const target = keep ? join(realpathLoose(dirname(lexical)), basename(lexical)) : realpathLoose(lexical);
  if (!usable.some((root) => isInside(root, target))) {
    if (opts.write && readOnly.some((root) => isInside(root, target)))
      throw new ToolError(
        `Refusing to change "${p}": it is in a skill's folder, which file tools may read but not change`,
        'copy what you need into the workspace and change the copy there',
      );
    throwOutside(ctx, p, lexical, target);
  }
  if (opts.write) {
    if (inGitDir(roots, target) || inGitDir([resolve(ctx.cwd), ...roots], lexical)) {
      throw new ToolError(
        `Refusing to write "${p}": it is inside a .git directory`,
        'git internals are off limits to file tools; use git commands through bash to change the repository',
      );
    }
  }
  if (opts.mustExist && !exists(target, keep)) {
    throw new ToolError(`No such file or directory: ${p}`, HINTS.ENOENT);
  }
  if (!keep) refuseOutsideLinks(usable, target, p);
  return target;
}

function exists(p: string, noFollow: boolean): boolean {
  try {
    if (noFollow) lstatSync(p);
    else statSync(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * How to show an absolute path to the model: relative to the workspace when inside
 * it (so it can be passed straight back), absolute otherwise.
 */
export function displayPath(ctx: Pick<ToolContext, 'cwd'>, abs: string): string {
  for (const root of [ctx.cwd, realpathLoose(ctx.cwd)]) {
    if (isInside(root, abs)) return relative(root, abs) || '.';
  }
  return abs;
}
