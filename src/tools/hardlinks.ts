/**
 * Hard links and the workspace boundary. A hard link inside the workspace to a file
 * outside it (`ln ~/.ssh/id_rsa notes.txt`) passes every path check, since it is
 * not a symlink: it *is* the outside file under a workspace name. Reading it leaks
 * the outside file; writing it in place changes the outside file.
 *
 * Nothing says cheaply where a file's other links are. The rule: a regular file
 * with more than one link is used only when all its links are found inside the
 * workspace roots (a scan of the roots for the same inode). Links between files of
 * the workspace (`cp -al`, git objects shared between worktrees of the workspace)
 * stay usable; files shared with something outside (a pnpm store, `git clone
 * --local` from elsewhere, a link someone made on purpose) are refused. A scan that
 * passes `MAX_SCAN_ENTRIES` without finding every link refuses too.
 */
import { type Dirent, lstatSync, readdirSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { ToolError } from './types.js';

/** Directory entries a scan may visit before it gives up (and refuses). */
export const MAX_SCAN_ENTRIES = 200_000;

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The roots without those inside another root (so no directory is visited twice). */
function outermost(roots: readonly string[]): string[] {
  const unique = [...new Set(roots)];
  return unique.filter((root) => !unique.some((other) => other !== root && inside(other, root)));
}

const key = (st: Pick<Stats, 'dev' | 'ino'>): string => `${st.dev}:${st.ino}`;

/** True when `st` is a regular file with more than one link: the only kind that needs a scan. */
export function isHardLinked(st: Stats): boolean {
  return st.isFile() && st.nlink > 1;
}

/**
 * Counts, for one multi-file operation, where the links of the workspace's
 * hard-linked files are: the roots are scanned once, on the first question.
 */
export class LinkGuard {
  private counts: Map<string, number> | undefined;
  private complete = true;

  constructor(private readonly roots: readonly string[]) {}

  /** True when `abs` may be used: not a hard-linked file, or one whose every link is inside the roots. */
  allows(abs: string, st?: Stats): boolean {
    let info = st;
    if (!info) {
      try {
        info = lstatSync(abs);
      } catch {
        return true; // gone: whatever reads it next fails on its own
      }
    }
    if (!isHardLinked(info)) return true;
    return this.linksInside(info) >= info.nlink;
  }

  /** How many links of this file are inside the roots. */
  linksInside(st: Stats): number {
    if (!this.counts) this.counts = this.scan();
    return this.counts.get(key(st)) ?? 0;
  }

  private scan(): Map<string, number> {
    const counts = new Map<string, number>();
    let visited = 0;
    const stack = outermost(this.roots);
    while (stack.length > 0) {
      const dir = stack.pop()!;
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const entry of entries) {
        if (++visited > MAX_SCAN_ENTRIES) {
          this.complete = false;
          return counts;
        }
        const full = join(dir, entry.name);
        if (entry.isDirectory()) stack.push(full);
        else if (entry.isFile()) {
          try {
            const info = lstatSync(full);
            if (info.nlink > 1) counts.set(key(info), (counts.get(key(info)) ?? 0) + 1);
          } catch {
            // vanished while scanning
          }
        }
      }
    }
    return counts;
  }

  /** False when the scan stopped at `MAX_SCAN_ENTRIES` (counts may be short). */
  get scannedAll(): boolean {
    return this.complete;
  }
}

/**
 * Throws the refusal for `abs` (shown as `shown`) when it is a hard link to a file
 * outside the roots; otherwise returns quietly.
 */
export function refuseOutsideLinks(roots: readonly string[], abs: string, shown: string, st?: Stats): void {
  let info = st;
  if (!info) {
    try {
      info = lstatSync(abs);
    } catch {
      return;
    }
  }
  if (!isHardLinked(info)) return;
  const guard = new LinkGuard(roots);
  const found = guard.linksInside(info);
  if (found >= info.nlink) return;
  const outside = info.nlink - found;
  const why = guard.scannedAll
    ? `${outside} of its ${info.nlink} links ${outside === 1 ? 'is' : 'are'} outside the workspace`
    : `the workspace is too large (over ${MAX_SCAN_ENTRIES} entries) to find all ${info.nlink} of its links`;
  throw new ToolError(
    `Refusing to use "${shown}": it is a hard link, and ${why}`,
    'a hard link is the same file as its other links, so using it would read or change a file outside the workspace (pnpm stores and `git clone --local` make such links); if it is meant to be used, ask the user to replace it with a plain copy',
  );
}
