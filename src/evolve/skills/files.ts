/**
 * The files of a skill's folder, for the `skill` tool's answer: listed, never read
 * (the model reads what the instructions point to). Bounded in depth and count; dot
 * files, `node_modules` and caches are left out, and a link is listed only when it
 * resolves inside the folder.
 */
import type { Dirent } from 'node:fs';
import { readdir, realpath } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { isInside } from '../../tools/workspace.js';

export const MAX_FILES = 200;
const MAX_DEPTH = 4;
const SKIP = new Set(['node_modules', '__pycache__']);

export interface FileList {
  files: string[];
  /** More files were there than listed. */
  more: boolean;
}

/** The files under `realDir` (a real path), relative to it, sorted; SKILL.md itself left out. */
export async function skillFiles(realDir: string, max = MAX_FILES): Promise<FileList> {
  const files: string[] = [];
  let more = false;
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (files.length >= max) {
        more = true;
        return;
      }
      if (e.name.startsWith('.') || SKIP.has(e.name)) continue;
      const full = join(dir, e.name);
      let isDir = e.isDirectory();
      if (e.isSymbolicLink()) {
        const target = await realpath(full).catch(() => undefined);
        if (!target || !isInside(realDir, target)) continue;
        isDir = await readdir(target)
          .then(() => true)
          .catch(() => false);
      }
      if (isDir) {
        if (depth < MAX_DEPTH) await walk(full, depth + 1);
        continue;
      }
      const rel = relative(realDir, full);
      if (rel !== 'SKILL.md') files.push(rel);
    }
  };
  await walk(realDir, 1);
  return { files, more };
}
