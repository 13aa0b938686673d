/**
 * The user tools and skills installed here, found by their folder contracts: a user
 * tool is a folder `TEA_HOME/tools/<name>/` (its versions inside), a skill a folder
 * `<dir>/<name>/` holding `SKILL.md`, in `TEA_HOME/skills` or the project's
 * `.tea/skills`. Upkeep only needs names, places and when they last changed; the
 * `Inventory` interface lets the runtime hand in the tools and skills services
 * instead once they exist. Entries whose names could not be a tool or skill (hidden,
 * control characters, over long) are skipped, not reported.
 */
import { lstatSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export interface InstalledItem {
  kind: 'tool' | 'skill';
  name: string;
  /** Its folder. */
  path: string;
  /** `user`: under TEA_HOME; `project`: under the workspace's `.tea/`. */
  where: 'user' | 'project';
  /** The newest modification time of the folder and the files directly in it (epoch ms). */
  modifiedAt: number;
}

export interface Inventory {
  list(): Promise<InstalledItem[]>;
}

/** What a listed name may look like (Agent Skills names are narrower; this only keeps junk out). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** The newest mtime of `dir` and its direct entries (symbolic links by their own time, never followed). */
function newest(dir: string): number {
  let at = lstatSync(dir).mtimeMs;
  for (const entry of readdirSync(dir)) {
    try {
      at = Math.max(at, lstatSync(path.join(dir, entry)).mtimeMs);
    } catch {
      // gone meanwhile
    }
  }
  return Math.floor(at);
}

/** The folders directly in `dir` with a usable name (a symbolic link to a folder counts; `dir` missing: none). */
function folders(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => NAME.test(n))
    .filter((n) => {
      try {
        return statSync(path.join(dir, n)).isDirectory();
      } catch {
        return false; // a dangling link
      }
    })
    .sort();
}

function hasFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The inventory read from the folders under `home` and the workspace `cwd`. */
export function directoryInventory(opts: { home: string; cwd: string }): Inventory {
  return {
    async list() {
      const items: InstalledItem[] = [];
      const add = (kind: InstalledItem['kind'], where: InstalledItem['where'], dir: string, name: string) => {
        const folder = path.join(dir, name);
        try {
          items.push({ kind, name, path: folder, where, modifiedAt: newest(folder) });
        } catch {
          // removed while we looked
        }
      };
      const tools = path.join(opts.home, 'tools');
      for (const name of folders(tools)) add('tool', 'user', tools, name);
      const skillDirs: Array<[InstalledItem['where'], string]> = [
        ['user', path.join(opts.home, 'skills')],
        ['project', path.join(opts.cwd, '.tea', 'skills')],
      ];
      for (const [where, dir] of skillDirs) {
        for (const name of folders(dir))
          if (hasFile(path.join(dir, name, 'SKILL.md'))) add('skill', where, dir, name);
      }
      return items;
    },
  };
}
