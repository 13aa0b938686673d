/**
 * Where skills live, highest precedence first (no parsing here: the runtime checks
 * these folders exist before it loads any skill code).
 *
 * Project folders come first (a project's skill overrides the user's, the convention
 * every Agent Skills client follows), and within each scope tea's own folder comes
 * before the cross-client `.agents/skills` and Claude Code's `.claude/skills`.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { displayPath } from '../../config/errors.js';

export type SkillScope = 'project' | 'user';

/** One folder of skill folders. */
export interface SkillDir {
  /** Absolute path. */
  dir: string;
  scope: SkillScope;
  /** How the folder is shown: `.claude/skills` (in the project), `~/.tea/skills`, `~/.claude/skills`. */
  label: string;
  /** 1 for the first folder: a skill here wins over one of the same name further down. */
  rank: number;
  /** tea's own folders (`tea skills rm` deletes there without `--force`). */
  own: boolean;
}

export interface SkillDirsInput {
  /** The Tea home (`TEA_HOME`, default `~/.tea`). */
  home: string;
  /** The workspace. */
  cwd: string;
  /** The user's home directory (default: the OS's), where other agents keep skills. */
  userHome?: string;
}

/** The inbox of drafted skills (never offered to the model). */
export function inboxDir(home: string): string {
  return resolve(home, 'skill-inbox');
}

/** tea's own user folder of skills, where `accept` puts a draft. */
export function userSkillsDir(home: string): string {
  return resolve(home, 'skills');
}

/** The folders skills are read from, highest precedence first. */
export function skillDirs(input: SkillDirsInput): SkillDir[] {
  const user = input.userHome ?? homedir();
  const dirs: Array<Omit<SkillDir, 'rank'>> = [
    { dir: join(input.cwd, '.tea', 'skills'), scope: 'project', label: '.tea/skills', own: true },
    { dir: join(input.cwd, '.agents', 'skills'), scope: 'project', label: '.agents/skills', own: false },
    { dir: join(input.cwd, '.claude', 'skills'), scope: 'project', label: '.claude/skills', own: false },
    {
      dir: userSkillsDir(input.home),
      scope: 'user',
      label: displayPath(userSkillsDir(input.home)),
      own: true,
    },
    { dir: join(user, '.agents', 'skills'), scope: 'user', label: '~/.agents/skills', own: false },
    { dir: join(user, '.claude', 'skills'), scope: 'user', label: '~/.claude/skills', own: false },
  ];
  return dirs.map((d, i) => ({ ...d, dir: resolve(d.dir), rank: i + 1 }));
}
