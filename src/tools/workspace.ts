/**
 * Path resolution for file tools: everything stays inside the workspace (`ctx.cwd`)
 * or an explicitly allowed root, and symlinks cannot be used to step outside.
 */
import { lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { HINTS, outsideWorkspaceHint } from './hints.js';
import { type ToolContext, ToolError } from './types.js';

export interface ResolveOptions {
  /** Throw a ToolError (with the ENOENT hint) when the path does not exist. */
  mustExist?: boolean;
}

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

function isInside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The workspace root and the allowed roots, each as a real path. */
export function workspaceRoots(ctx: Pick<ToolContext, 'cwd' | 'allowedRoots'>): string[] {
  const roots = [ctx.cwd, ...(ctx.allowedRoots ?? [])].map((r) => resolve(ctx.cwd, expandHome(r)));
  return roots.map((r) => realpathLoose(r));
}

/**
 * Resolves `p` for a file tool: relative to `ctx.cwd`, `~` expanded, and checked to be
 * inside the workspace or an allowed root after symlinks are resolved. Returns the
 * real absolute path.
 */
export function resolvePath(
  ctx: Pick<ToolContext, 'cwd' | 'allowedRoots'>,
  p: string,
  opts: ResolveOptions = {},
): string {
  if (p.trim() === '') throw new ToolError('The path is empty', 'pass a file or directory path');
  if (p.includes('\0')) throw new ToolError('The path contains a NUL character', 'pass a plain path');
  const lexical = resolve(ctx.cwd, expandHome(p));
  const real = realpathLoose(lexical);
  const roots = workspaceRoots(ctx);
  if (!roots.some((root) => isInside(root, real))) {
    const shown = real === lexical ? real : `${lexical} -> ${real}`;
    throw new ToolError(
      `Path "${p}" is outside the workspace (${shown})`,
      outsideWorkspaceHint(ctx.cwd, ctx.allowedRoots),
    );
  }
  if (opts.mustExist && !exists(real)) {
    throw new ToolError(`No such file or directory: ${p}`, HINTS.ENOENT);
  }
  return real;
}

function exists(p: string): boolean {
  try {
    statSync(p);
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
