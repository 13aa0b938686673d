/** disk_usage: free space of a file system and the size of a workspace directory. */
import type { Dirent } from 'node:fs';
import { lstat, readdir, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { defineTool, type Tool } from '../types.js';
import { displayPath, resolvePath } from '../workspace.js';
import type { ResolvedSystemOptions } from './system-options.js';
import { formatSize, plural } from './text.js';

/** Directories left out of a size walk unless asked for. */
const SKIPPED_DIRS = new Set(['node_modules', '.git']);
const LARGEST_SHOWN = 15;

export interface DirSize {
  bytes: number;
  files: number;
  dirs: number;
  /** Names of directories that were skipped, with how often. */
  skipped: Map<string, number>;
  unreadable: number;
  /** The walk stopped at the entry cap; the numbers are lower bounds. */
  capped: boolean;
  /** Size of each direct child of the root. */
  children: Map<string, { bytes: number; dir: boolean }>;
}

interface WalkOptions {
  maxEntries: number;
  includeIgnored: boolean;
  signal: AbortSignal;
}

/** Apparent size of everything under `root`; symlinks are not followed, hard links count once. */
export async function directorySize(root: string, opts: WalkOptions): Promise<DirSize> {
  const result: DirSize = {
    bytes: 0,
    files: 0,
    dirs: 0,
    skipped: new Map(),
    unreadable: 0,
    capped: false,
    children: new Map(),
  };
  const seen = new Set<string>();
  let entries = 0;
  const stack: Array<{ dir: string; top: string | undefined }> = [{ dir: root, top: undefined }];
  while (stack.length > 0 && !result.capped) {
    opts.signal.throwIfAborted();
    const { dir, top } = stack.pop()!;
    let list: Dirent[];
    try {
      list = await readdir(dir, { withFileTypes: true });
    } catch {
      result.unreadable++;
      continue;
    }
    const wanted: Dirent[] = [];
    for (const entry of list) {
      if (entry.isDirectory() && !opts.includeIgnored && SKIPPED_DIRS.has(entry.name)) {
        result.skipped.set(entry.name, (result.skipped.get(entry.name) ?? 0) + 1);
        continue;
      }
      if (entries >= opts.maxEntries) {
        result.capped = true;
        break;
      }
      entries++;
      wanted.push(entry);
    }
    const infos = await Promise.all(wanted.map((e) => lstat(join(dir, e.name)).catch(() => undefined)));
    wanted.forEach((entry, i) => {
      const info = infos[i];
      if (info === undefined) {
        result.unreadable++;
        return;
      }
      const owner = top ?? entry.name;
      if (top === undefined) result.children.set(owner, { bytes: 0, dir: info.isDirectory() });
      if (info.isDirectory()) {
        result.dirs++;
        stack.push({ dir: join(dir, entry.name), top: owner });
        return;
      }
      if (info.nlink > 1) {
        const key = `${info.dev}:${info.ino}`;
        if (seen.has(key)) return;
        seen.add(key);
      }
      result.files++;
      result.bytes += info.size;
      const child = result.children.get(owner);
      if (child) child.bytes += info.size;
    });
  }
  return result;
}

function percent(part: number, whole: number): string {
  return whole > 0 ? `${Math.round((part / whole) * 100)}%` : '0%';
}

function describeWalk(name: string, size: DirSize, maxEntries: number): string[] {
  const lines = [
    `${name}: ${formatSize(size.bytes)} in ${plural(size.files, 'file')} and ${plural(size.dirs, 'directory', 'directories')} (apparent size)`,
  ];
  if (size.capped) lines.push(`note: stopped after ${maxEntries} entries; the sizes are lower bounds`);
  if (size.skipped.size > 0) {
    const names = [...size.skipped].map(([n, count]) => (count > 1 ? `${n} ×${count}` : n)).join(', ');
    lines.push(`skipped: ${names} (pass include_ignored=true to count them)`);
  }
  if (size.unreadable > 0) lines.push(`unreadable: ${plural(size.unreadable, 'entry', 'entries')} skipped`);
  const largest = [...size.children].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, LARGEST_SHOWN);
  if (largest.length > 0) {
    lines.push('largest entries:');
    for (const [child, info] of largest) {
      lines.push(`  ${formatSize(info.bytes).padStart(9)}  ${child}${info.dir ? '/' : ''}`);
    }
  }
  return lines;
}

export function diskUsageTool(opts: ResolvedSystemOptions): Tool {
  return defineTool({
    name: 'disk_usage',
    description:
      'Show free and total space of the file system holding a path, and the size of a workspace ' +
      'directory with its largest entries (node_modules and .git skipped unless include_ignored).',
    parameters: z.object({
      path: z.string().optional().describe('File or directory in the workspace (default: the root)'),
      include_ignored: z.boolean().optional().describe('Also count node_modules and .git'),
    }),
    category: 'system',
    keywords: ['disk', 'space', 'free', 'size', 'du', 'df', 'storage', 'usage', '磁盘', '空间', '大小'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 120_000,
    subject: (args) => args.path ?? '.',
    async execute(args, ctx) {
      const abs = resolvePath(ctx, args.path ?? '.', { mustExist: true });
      const fs = await statfs(abs);
      const total = fs.blocks * fs.bsize;
      const free = fs.bavail * fs.bsize;
      const used = (fs.blocks - fs.bfree) * fs.bsize;
      const lines = [
        `file system: ${formatSize(free)} free of ${formatSize(total)} (${percent(used, total)} used)`,
      ];
      const info = await lstat(abs);
      const name = displayPath(ctx, abs);
      if (!info.isDirectory()) {
        lines.push(`${name}: ${formatSize(info.size)} (${plural(info.size, 'byte')})`);
        return lines.join('\n');
      }
      const size = await directorySize(abs, {
        maxEntries: opts.diskMaxEntries,
        includeIgnored: args.include_ignored ?? false,
        signal: ctx.signal,
      });
      lines.push(...describeWalk(name === '.' ? '. (workspace)' : `${name}/`, size, opts.diskMaxEntries));
      return lines.join('\n');
    },
  });
}
