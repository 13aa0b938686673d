/** Where role files live (no parsing here: the runtime checks these before loading the parser). */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import type { LoadRolesOptions } from './types.js';

/** The folders role files are read from, highest precedence first. */
export function roleDirs(opts: LoadRolesOptions): string[] {
  const claudeHome = opts.claudeHome ?? join(homedir(), '.claude');
  return [
    join(opts.cwd, '.tea', 'agents'),
    join(opts.cwd, '.claude', 'agents'),
    join(opts.home, 'agents'),
    join(claudeHome, 'agents'),
  ].map((dir) => resolve(dir));
}
