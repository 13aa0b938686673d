/** Finding and reading config files: the user file in the data home and the project file. */
import { existsSync, realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const CONFIG_FILE = 'config.yaml';

/** The data home: `$TEA_HOME` when set (a leading `~` is expanded), else `~/.tea`. */
export function teaHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.TEA_HOME?.trim();
  if (fromEnv) {
    if (fromEnv === '~' || fromEnv.startsWith('~/')) return join(homedir(), fromEnv.slice(1));
    return resolve(fromEnv);
  }
  return join(homedir(), '.tea');
}

function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return resolve(a) === resolve(b);
  }
}

/**
 * The nearest `.tea/config.yaml` from `cwd` upwards, stopping after the git root
 * (a directory holding `.git`) or at the filesystem root. The user's own config
 * file is never returned as a project file.
 */
export function findProjectConfig(cwd: string, userFile: string): string | undefined {
  let dir = resolve(cwd);
  for (;;) {
    const candidate = join(dir, '.tea', CONFIG_FILE);
    if (existsSync(candidate) && !samePath(candidate, userFile)) return candidate;
    if (existsSync(join(dir, '.git'))) return undefined;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}
