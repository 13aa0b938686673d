/** File tools: read_file, write_file, list_dir (edit_file lives in edit.ts). */
import { createReadStream } from 'node:fs';
import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import * as z from 'zod';
import { HINTS } from '../hints.js';
import { defineTool, type Tool, ToolError } from '../types.js';
import { displayPath, resolvePath } from '../workspace.js';
import { editFileTool } from './edit.js';
import { type BuiltinOptions, withDefaults } from './options.js';
import { clipLine, formatSize, plural, resolveTextFile } from './text.js';

const pathParam = z
  .string()
  .describe('File path, relative to the workspace root or absolute (must be inside it)');

function countLines(text: string): number {
  if (text.length === 0) return 0;
  let lines = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return text.endsWith('\n') ? lines : lines + 1;
}

function readFileTool(opts: Required<BuiltinOptions>): Tool {
  return defineTool({
    name: 'read_file',
    description:
      'Read a text file and return its lines numbered like `cat -n`. Use it before editing a file, to ' +
      `see exact text. Returns up to ${opts.readDefaultLimit} lines from \`offset\`; a footer tells the next ` +
      `offset when more remain. Lines over ${opts.readMaxLineChars} chars are cut; binary files are refused.`,
    parameters: z.object({
      path: pathParam,
      offset: z.number().int().min(1).optional().describe('1-based line number to start from (default 1)'),
      limit: z
        .number()
        .int()
        .min(1)
        .optional()
        .describe(`How many lines to return (default ${opts.readDefaultLimit})`),
    }),
    category: 'files',
    keywords: ['read', 'file', 'open', 'view', 'cat', 'show', 'contents', 'lines'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    async execute(args, ctx) {
      const abs = await resolveTextFile(ctx, args.path);
      const offset = args.offset ?? 1;
      const limit = args.limit ?? opts.readDefaultLimit;
      const shown: string[] = [];
      let chars = 0;
      let total = 0;
      let last = offset - 1;
      let full = false;
      const input = createReadStream(abs, { encoding: 'utf8', signal: ctx.signal });
      const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
      for await (const line of lines) {
        total++;
        if (total < offset || full) continue;
        const formatted = `${String(total).padStart(6)}\t${clipLine(line, opts.readMaxLineChars)}`;
        if (shown.length >= limit || (shown.length > 0 && chars + formatted.length + 1 > opts.readMaxChars)) {
          full = true;
          continue;
        }
        shown.push(formatted);
        chars += formatted.length + 1;
        last = total;
      }
      if (total === 0) return `(${args.path} is empty)`;
      if (offset > total) {
        throw new ToolError(
          `offset ${offset} is past the end of ${args.path}, which has ${plural(total, 'line')}`,
          `use an offset between 1 and ${total}`,
        );
      }
      const remaining = total - last;
      if (remaining > 0) {
        const why = shown.length < limit ? ' (output size limit reached)' : '';
        shown.push(`… ${plural(remaining, 'more line')}${why}; call again with offset=${last + 1}`);
      }
      return shown.join('\n');
    },
  });
}

function writeFileTool(): Tool {
  return defineTool({
    name: 'write_file',
    description:
      'Create a file or replace its whole content; parent directories are created. Use it for new files ' +
      'or full rewrites; for changing part of an existing file prefer edit_file.',
    parameters: z.object({
      path: pathParam,
      content: z.string().describe('The complete new content of the file'),
    }),
    category: 'files',
    keywords: ['write', 'create', 'save', 'new file', 'overwrite', 'file'],
    readOnly: false,
    concurrencySafe: false,
    approval: 'write',
    async execute(args, ctx) {
      const abs = resolvePath(ctx, args.path);
      const before = await stat(abs).catch(() => undefined);
      if (before?.isDirectory()) throw new ToolError(`${args.path} is a directory`, HINTS.EISDIR);
      await mkdir(dirname(abs), { recursive: true });
      await writeFile(abs, args.content, { encoding: 'utf8', signal: ctx.signal });
      const bytes = Buffer.byteLength(args.content, 'utf8');
      const size = `${plural(bytes, 'byte')}, ${plural(countLines(args.content), 'line')}`;
      const shown = displayPath(ctx, abs);
      return before
        ? `Overwrote ${shown} (${size}; was ${plural(before.size, 'byte')})`
        : `Created ${shown} (${size})`;
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

function listDirTool(opts: Required<BuiltinOptions>): Tool {
  return defineTool({
    name: 'list_dir',
    description:
      'List a directory: entries sorted by name, directories with a trailing "/", files with their size. ' +
      `Use it to explore the workspace. Shows at most ${opts.listMaxEntries} entries; use glob to find files deeper down.`,
    parameters: z.object({
      path: z.string().optional().describe('Directory to list (default: the workspace root)'),
    }),
    category: 'files',
    keywords: ['list', 'ls', 'directory', 'folder', 'dir', 'tree', 'explore'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
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

export function fileTools(options: BuiltinOptions = {}): Tool[] {
  const opts = withDefaults(options);
  return [readFileTool(opts), writeFileTool(), editFileTool(), listDirTool(opts)];
}
