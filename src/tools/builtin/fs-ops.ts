/** Path operations: delete_path, move_path, copy_path, make_dir. */
import type { Stats } from 'node:fs';
import { cp, lstat, mkdir, readdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import { LinkGuard } from '../hardlinks.js';
import { errorCode, HINTS } from '../hints.js';
import { defineTool, type Tool, type ToolContext, ToolError } from '../types.js';
import { containsRoot, displayPath, isInside, resolvePath, workspaceRoots } from '../workspace.js';
import { formatSize, plural } from './text.js';

interface Contents {
  files: number;
  dirs: number;
  bytes: number;
}

/** Counts what a path holds, without following symlinks. */
async function measure(abs: string, info?: Stats): Promise<Contents> {
  const here = info ?? (await lstat(abs));
  if (!here.isDirectory()) return { files: 1, dirs: 0, bytes: here.size };
  const total: Contents = { files: 0, dirs: 0, bytes: 0 };
  for (const entry of await readdir(abs)) {
    const inner = await measure(join(abs, entry));
    total.files += inner.files;
    total.dirs += inner.dirs;
    total.bytes += inner.bytes;
  }
  total.dirs += 1;
  return total;
}

function describeContents(c: Contents): string {
  const dirs = c.dirs - 1;
  const parts = [plural(c.files, 'file')];
  if (dirs > 0) parts.push(plural(dirs, 'subdirectory', 'subdirectories'));
  return `${parts.join(', ')}, ${formatSize(c.bytes)}`;
}

function refuseRoot(ctx: ToolContext, abs: string, p: string, what: string): void {
  if (containsRoot(ctx, abs)) {
    throw new ToolError(
      `Refusing to ${what} "${p}": it is the workspace root or contains it`,
      'name a file or directory inside the workspace',
    );
  }
}

const pathParam = z.string().describe('Path, relative to the workspace');

function deletePathTool(): Tool {
  return defineTool({
    name: 'delete_path',
    description:
      'Delete a file, symlink or directory. A non-empty directory needs recursive: true. The workspace root ' +
      'cannot be deleted.',
    parameters: z.object({
      path: pathParam,
      recursive: z.boolean().optional().describe('Delete a non-empty directory and all it holds'),
    }),
    category: 'files',
    keywords: ['delete', 'remove', 'rm', 'unlink', 'file', 'directory', '删除', '移除'],
    readOnly: false,
    concurrencySafe: false,
    approval: 'write',
    timeoutMs: 120_000,
    subject: (args) => args.path,
    async execute(args, ctx) {
      const abs = resolvePath(ctx, args.path, { write: true, keepLink: true, mustExist: true });
      refuseRoot(ctx, abs, args.path, 'delete');
      const shown = displayPath(ctx, abs);
      const info = await lstat(abs);
      if (!info.isDirectory()) {
        await unlink(abs);
        const kind = info.isSymbolicLink() ? 'symlink' : formatSize(info.size);
        return `Deleted ${shown} (${kind})`;
      }
      const entries = await readdir(abs);
      if (entries.length === 0) {
        await rmdir(abs);
        return `Deleted ${shown}/ (empty directory)`;
      }
      if (args.recursive !== true) {
        const sample = entries.slice(0, 5).join(', ') + (entries.length > 5 ? ', …' : '');
        throw new ToolError(
          `${shown}/ is not empty (${plural(entries.length, 'entry', 'entries')}: ${sample})`,
          'pass recursive: true to delete it with everything inside, after checking that is really intended',
        );
      }
      const contents = await measure(abs, info);
      await rm(abs, { recursive: true });
      return `Deleted ${shown}/ (${describeContents(contents)})`;
    },
  });
}

/** Resolves `from` and `to` of a move or copy and checks the destination is free (or may be replaced). */
async function endpoints(
  ctx: ToolContext,
  args: { from: string; to: string; overwrite?: boolean | undefined },
  verb: 'move' | 'copy',
): Promise<{ from: string; to: string; fromInfo: Stats; replaced: Stats | undefined }> {
  const from = resolvePath(ctx, args.from, {
    write: verb === 'move',
    keepLink: verb === 'move',
    mustExist: true,
  });
  const to = resolvePath(ctx, args.to, { write: true });
  if (verb === 'move') refuseRoot(ctx, from, args.from, 'move');
  if (from === to)
    throw new ToolError(`"${args.from}" and "${args.to}" are the same path`, 'pick another destination');
  const fromInfo = verb === 'move' ? await lstat(from) : await stat(from);
  if (fromInfo.isDirectory() && isInside(from, to)) {
    throw new ToolError(
      `Cannot ${verb} ${args.from} into itself (${args.to})`,
      'pick a destination outside it',
    );
  }
  const replaced = await lstat(to).catch(() => undefined);
  if (replaced) {
    if (args.overwrite !== true) {
      throw new ToolError(
        `${displayPath(ctx, to)} already exists`,
        'pass overwrite: true to replace it, or pick another destination',
      );
    }
    if (replaced.isDirectory() && !(verb === 'copy' && fromInfo.isDirectory())) {
      throw new ToolError(
        `${displayPath(ctx, to)} is a directory; it is not replaced`,
        'delete_path it first, or name the full destination path inside it',
      );
    }
    if (fromInfo.isDirectory() && !replaced.isDirectory()) {
      throw new ToolError(
        `${displayPath(ctx, to)} is a file; a directory cannot replace it`,
        'delete_path it first, or pick another destination',
      );
    }
  }
  const parent = await stat(dirname(to)).catch(() => undefined);
  if (parent && !parent.isDirectory()) {
    throw new ToolError(`${displayPath(ctx, dirname(to))} is a file, not a directory`, HINTS.ENOTDIR);
  }
  return { from, to, fromInfo, replaced };
}

function movePathTool(): Tool {
  return defineTool({
    name: 'move_path',
    description:
      'Move or rename a file or directory inside the workspace; parent directories of `to` are created. ' +
      'An existing destination is only replaced with overwrite: true.',
    parameters: z.object({
      from: z.string().describe('Existing path'),
      to: z.string().describe('New path (the full destination, not a folder to move into)'),
      overwrite: z.boolean().optional().describe('Replace an existing destination file'),
    }),
    category: 'files',
    keywords: ['move', 'rename', 'mv', 'relocate', 'file', 'directory', '移动', '重命名'],
    readOnly: false,
    concurrencySafe: false,
    approval: 'write',
    timeoutMs: 120_000,
    subject: (args) => `${args.from} -> ${args.to}`,
    async execute(args, ctx) {
      const { from, to, fromInfo, replaced } = await endpoints(ctx, args, 'move');
      await mkdir(dirname(to), { recursive: true });
      try {
        await rename(from, to);
      } catch (error) {
        if (errorCode(error) !== 'EXDEV') throw error;
        // Another file system (an allowed root elsewhere): copy, then remove the original.
        await cp(from, to, { recursive: true, verbatimSymlinks: true, force: true, errorOnExist: false });
        await rm(from, { recursive: true });
      }
      const kind = fromInfo.isDirectory() ? '/' : '';
      const note = replaced ? ' (replaced the existing file)' : '';
      return `Moved ${displayPath(ctx, from)}${kind} -> ${displayPath(ctx, to)}${kind}${note}`;
    },
  });
}

function copyPathTool(): Tool {
  return defineTool({
    name: 'copy_path',
    description:
      'Copy a file or a whole directory inside the workspace (symlinks are copied as links); parent ' +
      'directories are created. Existing files are only replaced with overwrite: true.',
    parameters: z.object({
      from: z.string().describe('File or directory to copy'),
      to: z.string().describe('Destination path (the full new path)'),
      overwrite: z.boolean().optional().describe('Replace existing files at the destination'),
    }),
    category: 'files',
    keywords: ['copy', 'duplicate', 'cp', 'backup', 'file', 'directory', '复制', '拷贝'],
    readOnly: false,
    concurrencySafe: false,
    approval: 'write',
    timeoutMs: 120_000,
    subject: (args) => `${args.from} -> ${args.to}`,
    async execute(args, ctx) {
      const { from, to, fromInfo } = await endpoints(ctx, args, 'copy');
      await mkdir(dirname(to), { recursive: true });
      const overwrite = args.overwrite === true;
      // A copy of a hard link to an outside file would bring that file's content in.
      const guard = new LinkGuard(workspaceRoots(ctx));
      const linked: string[] = [];
      await cp(from, to, {
        recursive: true,
        verbatimSymlinks: true,
        force: overwrite,
        errorOnExist: !overwrite,
        filter: (src) => {
          if (guard.allows(src)) return true;
          linked.push(displayPath(ctx, src));
          return false;
        },
      });
      const contents = await measure(to);
      const what = fromInfo.isDirectory() ? `${describeContents(contents)}` : formatSize(contents.bytes);
      const kind = fromInfo.isDirectory() ? '/' : '';
      const left =
        linked.length === 0
          ? ''
          : `; left out ${linked.length === 1 ? 'a hard link' : `${linked.length} hard links`} to files outside the workspace: ${linked.slice(0, 5).join(', ')}`;
      return `Copied ${displayPath(ctx, from)}${kind} -> ${displayPath(ctx, to)}${kind} (${what})${left}`;
    },
  });
}

function makeDirTool(): Tool {
  return defineTool({
    name: 'make_dir',
    description: 'Create a directory, with any missing parents. Succeeds when it already exists.',
    parameters: z.object({ path: pathParam }),
    category: 'files',
    keywords: ['mkdir', 'create', 'directory', 'folder', 'new folder', '创建', '目录', '文件夹'],
    readOnly: false,
    concurrencySafe: false,
    approval: 'write',
    timeoutMs: 30_000,
    subject: (args) => args.path,
    async execute(args, ctx) {
      const abs = resolvePath(ctx, args.path, { write: true });
      const shown = displayPath(ctx, abs);
      const existing = await stat(abs).catch(() => undefined);
      if (existing?.isDirectory()) return `${shown}/ already exists`;
      if (existing)
        throw new ToolError(`${shown} exists and is a file`, 'pick another name for the directory');
      try {
        await mkdir(abs, { recursive: true });
      } catch (error) {
        if (errorCode(error) === 'EEXIST' || errorCode(error) === 'ENOTDIR') {
          throw new ToolError(`Cannot create ${shown}/: a part of the path is a file`, HINTS.ENOTDIR);
        }
        throw error;
      }
      return `Created ${shown}/`;
    },
  });
}

export function fsOpTools(): Tool[] {
  return [deletePathTool(), movePathTool(), copyPathTool(), makeDirTool()];
}
