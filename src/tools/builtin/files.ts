/**
 * The files family: read_file, read_many_files, write_file, append_file, edit_file,
 * apply_patch, list_dir, tree, glob, file_info, diff_files and the path operations.
 */
import { appendFile, mkdir, open, readdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import { HINTS } from '../hints.js';
import { defineTool, type Tool, ToolError } from '../types.js';
import { displayPath, resolvePath } from '../workspace.js';
import { writeTextVia } from './atomic-write.js';
import { editFileTool } from './edit.js';
import { type FileToolOptions, type ResolvedFileOptions, withFileDefaults } from './file-options.js';
import { fsOpTools } from './fs-ops.js';
import { globTool } from './glob.js';
import { diffFilesTool, fileInfoTool } from './info.js';
import { applyPatchTool } from './patch.js';
import { readFileTool, readManyFilesTool } from './read.js';
import { binaryFileError, countLines, fileLooksBinary, formatSize, plural } from './text.js';
import { treeTool } from './tree.js';

export type { FileToolOptions } from './file-options.js';

function writeFileTool(): Tool {
  return defineTool({
    name: 'write_file',
    description:
      'Create a file or replace its whole content; parent directories are created. For changing part of ' +
      'an existing file prefer edit_file.',
    parameters: z.object({
      path: z.string().describe('File path, relative to the workspace'),
      content: z.string().describe('The complete new content'),
    }),
    category: 'files',
    keywords: ['write', 'create', 'save', 'new file', 'overwrite', 'file', '写入', '创建', '保存'],
    readOnly: false,
    concurrencySafe: false,
    approval: 'write',
    timeoutMs: 30_000,
    subject: (args) => args.path,
    async execute(args, ctx) {
      const abs = resolvePath(ctx, args.path, { write: true });
      const before = await stat(abs).catch(() => undefined);
      if (before?.isDirectory()) throw new ToolError(`${args.path} is a directory`, HINTS.EISDIR);
      // Through an editor (ctx.fs) the client writes the file; Tea touches no disk.
      if (!ctx.fs) await mkdir(dirname(abs), { recursive: true });
      await writeTextVia(ctx, abs, args.content);
      const bytes = Buffer.byteLength(args.content, 'utf8');
      const size = `${plural(bytes, 'byte')}, ${plural(countLines(args.content), 'line')}`;
      const shown = displayPath(ctx, abs);
      return before
        ? `Overwrote ${shown} (${size}; was ${plural(before.size, 'byte')})`
        : `Created ${shown} (${size})`;
    },
  });
}

async function endsWithNewline(abs: string, size: number): Promise<boolean> {
  if (size === 0) return true;
  const handle = await open(abs, 'r');
  try {
    const last = Buffer.alloc(1);
    await handle.read(last, 0, 1, size - 1);
    return last[0] === 0x0a;
  } finally {
    await handle.close();
  }
}

function appendFileTool(): Tool {
  return defineTool({
    name: 'append_file',
    description:
      'Append text to the end of a file (created with its parent directories when missing). Use it for ' +
      'logs and notes; to change existing text use edit_file.',
    parameters: z.object({
      path: z.string().describe('File path, relative to the workspace'),
      content: z.string().min(1).describe('Text to add at the end'),
    }),
    category: 'files',
    keywords: ['append', 'add', 'log', 'end of file', 'file', '追加', '添加'],
    readOnly: false,
    concurrencySafe: false,
    approval: 'write',
    timeoutMs: 30_000,
    subject: (args) => args.path,
    async execute(args, ctx) {
      const abs = resolvePath(ctx, args.path, { write: true });
      const before = await stat(abs).catch(() => undefined);
      if (before?.isDirectory()) throw new ToolError(`${args.path} is a directory`, HINTS.EISDIR);
      if (before && !before.isFile()) {
        throw new ToolError(`${args.path} is not a regular file`, 'append to a regular text file');
      }
      if (before && (await fileLooksBinary(abs))) throw binaryFileError(args.path);
      const joined = before !== undefined && !(await endsWithNewline(abs, before.size));
      if (!before) await mkdir(dirname(abs), { recursive: true });
      await appendFile(abs, args.content, { encoding: 'utf8' });
      const bytes = Buffer.byteLength(args.content, 'utf8');
      const shown = displayPath(ctx, abs);
      if (!before)
        return `Created ${shown} (${plural(bytes, 'byte')}, ${plural(countLines(args.content), 'line')})`;
      const note = joined
        ? '\nNote: the file did not end with a newline, so the text continues its last line'
        : '';
      return `Appended ${plural(bytes, 'byte')} to ${shown} (now ${plural(before.size + bytes, 'byte')})${note}`;
    },
  });
}

async function describeEntry(
  dir: string,
  name: string,
  kind: 'dir' | 'file' | 'link' | 'other',
): Promise<string> {
  const full = join(dir, name);
  if (kind === 'dir') return `${name}/`;
  if (kind === 'link') {
    const target = await stat(full).catch(() => undefined);
    if (target === undefined) return `${name} (broken symlink)`;
    return target.isDirectory() ? `${name}/ (symlink)` : `${name}  (symlink, ${formatSize(target.size)})`;
  }
  const info = await stat(full).catch(() => undefined);
  return info === undefined ? name : `${name}  (${formatSize(info.size)})`;
}

function listDirTool(opts: ResolvedFileOptions): Tool {
  return defineTool({
    name: 'list_dir',
    description:
      'List one directory: entries sorted by name, directories with a trailing "/", files with sizes. ' +
      `At most ${opts.listMaxEntries} entries; use tree for structure or glob to find files.`,
    parameters: z.object({
      path: z.string().optional().describe('Directory (default: workspace root)'),
    }),
    category: 'files',
    keywords: ['list', 'ls', 'directory', 'folder', 'dir', 'explore', '目录', '列出', '文件夹'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 30_000,
    subject: (args) => args.path ?? '.',
    async execute(args, ctx) {
      const p = args.path ?? '.';
      const abs = resolvePath(ctx, p, { mustExist: true });
      const info = await stat(abs);
      if (!info.isDirectory())
        throw new ToolError(`${p} is a file, not a directory`, 'use read_file to read it');
      const entries = await readdir(abs, { withFileTypes: true });
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const shown = entries.slice(0, opts.listMaxEntries);
      const lines = await Promise.all(
        shown.map((e) =>
          describeEntry(
            abs,
            e.name,
            e.isSymbolicLink() ? 'link' : e.isDirectory() ? 'dir' : e.isFile() ? 'file' : 'other',
          ),
        ),
      );
      const header = `${displayPath(ctx, abs)}/ (${plural(entries.length, 'entry', 'entries')})`;
      if (entries.length === 0) return `${header}\n(empty directory)`;
      const rest = entries.length - shown.length;
      if (rest > 0) {
        lines.push(
          `… ${plural(rest, 'more entry', 'more entries')} not shown (capped at ${opts.listMaxEntries}); use glob to narrow`,
        );
      }
      return `${header}\n${lines.join('\n')}`;
    },
  });
}

/** Every file tool; `options` shrink limits (tests) and are shared with the other built-ins. */
export function fileTools(options: FileToolOptions = {}): Tool[] {
  const opts = withFileDefaults(options);
  return [
    readFileTool(opts),
    readManyFilesTool(opts),
    writeFileTool(),
    appendFileTool(),
    editFileTool(opts),
    applyPatchTool(opts),
    listDirTool(opts),
    treeTool(opts),
    globTool(opts),
    fileInfoTool(opts),
    diffFilesTool(opts),
    ...fsOpTools(),
  ];
}
