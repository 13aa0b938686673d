/**
 * Hints that follow an `[ERROR] ...` line so the model knows what to try next.
 * Keyed by Node error codes plus a few situations of our own.
 */

export const HINTS = {
  ENOENT: 'the path does not exist; list the directory or use glob to find the right path',
  EACCES: 'permission denied; try a path inside the workspace',
  EPERM: 'permission denied; try a path inside the workspace',
  EISDIR: 'the path is a directory, not a file; use list_dir to see what it contains',
  ENOTDIR: 'a part of the path is a file, not a directory; check the path with list_dir',
  EEXIST: 'the path already exists; pick another name or remove it first',
  ENOTEMPTY: 'the directory is not empty; list it first and remove its contents if that is really intended',
  EMFILE: 'too many open files; work on fewer files at once',
  ENOSPC: 'the disk is full; free some space or write somewhere else',
  timeout: 'the command took too long; narrow it (smaller scope, fewer files) or raise timeout_ms',
  notLoaded:
    "the tool's code could not be loaded, so nothing was done; call it again, or reach the goal with other tools and tell the user this tool failed to load",
} as const;

/** Hint for a path that resolved outside every allowed root. */
export function outsideWorkspaceHint(cwd: string, allowedRoots: readonly string[] = []): string {
  const extra = allowedRoots.length > 0 ? ` (or one of the allowed roots: ${allowedRoots.join(', ')})` : '';
  // Only the user can widen it: said so the model can tell them how.
  return `use a path inside the workspace ${cwd}${extra}; the user can allow another folder with --add-dir <dir> or permissions.roots in the config`;
}

/** The Node error code (`ENOENT`, …) carried by an error, if any. */
export function errorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const code = (error as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** A hint for a common Node error, or undefined when none fits. */
export function hintForError(error: unknown): string | undefined {
  const code = errorCode(error);
  if (code !== undefined && Object.hasOwn(HINTS, code)) return HINTS[code as keyof typeof HINTS];
  if (code === 'ETIMEDOUT') return HINTS.timeout;
  if (error instanceof Error && error.name === 'TimeoutError') return HINTS.timeout;
  return undefined;
}
