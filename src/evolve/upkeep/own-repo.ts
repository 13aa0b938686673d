/**
 * Whether a workspace is Tea Agent's own repository — the same answer self-modification
 * uses (evolve/self/detect.ts: the git root's package.json is named `tea-agent` and it has
 * Tea's layout). Only there does upkeep write the tools reference into `docs/`.
 */
import { detectOwnRepo } from '../self/detect.js';

/** The root of Tea's own repository when `cwd` lies in it, else undefined. */
export function ownRepoRoot(cwd: string): string | undefined {
  return detectOwnRepo(cwd)?.root;
}
