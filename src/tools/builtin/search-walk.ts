/**
 * Listing workspace entries for the JavaScript search paths (grep's fallback,
 * find_files, replace_in_files): tinyglobby walks, .gitignore rules filter.
 */

import { loadGitignore } from './gitignore.js';
import { comparePaths, ignoresFor } from './grep-core.js';

/** tinyglobby loads on first use, keeping it off the start-up path. */
export const loadGlob = async () => (await import('tinyglobby')).glob;

export interface WalkRequest {
  /** Real absolute directory to walk. */
  root: string;
  /** Glob relative to `root` (already normalised, e.g. `**\/*.ts`). */
  pattern: string;
  /** Apply .gitignore files from this directory (the workspace root) down; absent: none. */
  ignoreRoot?: string;
  kind: 'file' | 'dir' | 'any';
  caseSensitive?: boolean;
  signal: AbortSignal;
}

export interface WalkEntry {
  /** Absolute path, without a trailing slash. */
  path: string;
  isDir: boolean;
}

/** Matching entries in directory-walk order (see `comparePaths`). */
export async function walkWorkspace(request: WalkRequest): Promise<WalkEntry[]> {
  const glob = await loadGlob();
  const found = await glob(request.pattern, {
    cwd: request.root,
    absolute: true,
    dot: true,
    onlyFiles: request.kind === 'file',
    onlyDirectories: request.kind === 'dir',
    followSymbolicLinks: false,
    caseSensitiveMatch: request.caseSensitive ?? true,
    ignore: ignoresFor(request.pattern),
    signal: request.signal,
  });
  let entries = found.map((p): WalkEntry => {
    const isDir = request.kind === 'dir' || p.endsWith('/');
    return { path: p.endsWith('/') ? p.slice(0, -1) : p, isDir };
  });
  if (request.ignoreRoot !== undefined) {
    // `.git` and `node_modules` are already left out by `ignoresFor` unless the pattern names them.
    const matcher = await loadGitignore(request.ignoreRoot, { alwaysSkip: [] });
    entries = entries.filter((e) => !matcher.isIgnored(e.path, e.isDir));
  }
  return entries.sort((a, b) => comparePaths(a.path, b.path));
}
