import { statSync } from 'node:fs';
import path from 'node:path';
import { RuntimeError } from './errors.js';

/** The directory an option names, resolved; a usage error when it is not an existing directory. */
export function existingDir(option: string, dir: string): string {
  const resolved = path.resolve(dir);
  let isDir: boolean;
  try {
    isDir = statSync(resolved).isDirectory();
  } catch {
    throw new RuntimeError('usage', `${option} ${dir}: no such directory`);
  }
  if (!isDir) throw new RuntimeError('usage', `${option} ${dir}: not a directory`);
  return resolved;
}

/** The workspace: `cwd` resolved against the process's own (which it defaults to). */
export function workspaceDir(cwd: string | undefined, option = '--cwd'): string {
  return cwd === undefined ? path.resolve(process.cwd()) : existingDir(option, cwd);
}
