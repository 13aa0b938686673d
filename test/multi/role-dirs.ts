/** Temp folders laid out as a workspace, a Tea home and a Claude home, with role files written into them. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRoles } from '../../src/multi/roles/index.js';
import type { LoadRolesOptions, RoleSet } from '../../src/multi/roles/types.js';
import { useTempDirs } from '../store/helpers.js';

export type Level = 'project-tea' | 'project-claude' | 'home-tea' | 'home-claude';

export interface RoleDirs {
  cwd: string;
  home: string;
  claudeHome: string;
  /** The agents folder of a precedence level. */
  dir(level: Level): string;
  /** Writes `text` as `<level folder>/<file>` and returns its path. */
  write(level: Level, file: string, text: string): string;
  /** loadRoles over these folders. */
  load(extra?: Partial<LoadRolesOptions>): Promise<RoleSet>;
}

/** A role file: the frontmatter lines as given, then the body. */
export function roleFile(frontmatter: string, body = 'Do the job well.'): string {
  return `---\n${frontmatter.trim()}\n---\n\n${body}\n`;
}

export function useRoleDirs(): () => RoleDirs {
  const tempDir = useTempDirs();
  return () => {
    const root = tempDir();
    const cwd = join(root, 'work');
    const home = join(root, 'tea-home');
    const claudeHome = join(root, 'claude-home');
    const dir = (level: Level): string =>
      ({
        'project-tea': join(cwd, '.tea', 'agents'),
        'project-claude': join(cwd, '.claude', 'agents'),
        'home-tea': join(home, 'agents'),
        'home-claude': join(claudeHome, 'agents'),
      })[level];
    return {
      cwd,
      home,
      claudeHome,
      dir,
      write(level, file, text) {
        mkdirSync(dir(level), { recursive: true });
        const path = join(dir(level), file);
        writeFileSync(path, text);
        return path;
      },
      load: (extra = {}) => loadRoles({ cwd, home, claudeHome, ...extra }),
    };
  };
}
