/** file_info (what a path is) and diff_files (a unified diff of two files). */
import type { Stats } from 'node:fs';
import { lstat, readdir, readFile, readlink, stat } from 'node:fs/promises';
import * as z from 'zod';
import { refuseOutsideLinks } from '../hardlinks.js';
import { defineTool, type Tool } from '../types.js';
import { displayPath, resolvePath, rootOf, workspaceRoots } from '../workspace.js';
import { unifiedDiff } from './diff-text.js';
import type { ResolvedFileOptions } from './file-options.js';
import { detectImageType, imageSize } from './image.js';
import { countLines, formatSize, looksBinary, plural, readHead, resolveTextFile } from './text.js';

function kindOf(info: Stats): string {
  if (info.isFile()) return 'file';
  if (info.isDirectory()) return 'directory';
  if (info.isSymbolicLink()) return 'symlink';
  if (info.isFIFO()) return 'fifo';
  if (info.isSocket()) return 'socket';
  return 'device';
}

/** Content details of a regular file: text with a line count, an image, or other binary. */
async function contentLines(abs: string, size: number, maxLineCountBytes: number): Promise<string[]> {
  const head = await readHead(abs);
  const image = detectImageType(head);
  if (image) {
    const bytes = size <= 16 * 1024 * 1024 ? await readFile(abs) : head;
    const dims = imageSize(bytes, image);
    return [`content: image (${image}${dims ? `, ${dims.width}x${dims.height}` : ''})`];
  }
  if (looksBinary(head)) return ['content: binary'];
  if (size > maxLineCountBytes)
    return ['content: text', `lines: not counted (over ${formatSize(maxLineCountBytes)})`];
  return ['content: text', `lines: ${countLines(await readFile(abs, 'utf8'))}`];
}

async function describe(abs: string, info: Stats, opts: ResolvedFileOptions): Promise<string[]> {
  const lines = [`size: ${plural(info.size, 'byte')} (${formatSize(info.size)})`];
  if (info.isFile()) lines.push(...(await contentLines(abs, info.size, opts.infoMaxLineCountBytes)));
  if (info.isDirectory()) {
    const entries = await readdir(abs).catch(() => []);
    lines.push(`entries: ${entries.length}`);
  }
  lines.push(
    `mode: ${(info.mode & 0o7777).toString(8).padStart(4, '0')}`,
    `modified: ${info.mtime.toISOString()}`,
    `changed: ${info.ctime.toISOString()}`,
  );
  if (info.birthtimeMs > 0) lines.push(`created: ${info.birthtime.toISOString()}`);
  return lines;
}

export function fileInfoTool(opts: ResolvedFileOptions): Tool {
  return defineTool({
    name: 'file_info',
    description:
      'Details of a path without reading it all: type, size, line count (text), text/binary/image kind, ' +
      'mode, modified and changed times, and the target of a symlink.',
    parameters: z.object({ path: z.string().describe('Path, relative to the workspace') }),
    category: 'files',
    keywords: [
      'info',
      'stat',
      'size',
      'metadata',
      'permissions',
      'mtime',
      'symlink',
      'lines',
      '信息',
      '大小',
    ],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 30_000,
    subject: (args) => args.path,
    async execute(args, ctx) {
      const abs = resolvePath(ctx, args.path, { keepLink: true, mustExist: true });
      const info = await lstat(abs);
      const out = [`path: ${displayPath(ctx, abs)}`];
      if (!info.isSymbolicLink()) {
        // keepLink addressed the name; describing the file reads its content.
        refuseOutsideLinks(workspaceRoots(ctx), abs, args.path, info);
        out.push(`type: ${kindOf(info)}`, ...(await describe(abs, info, opts)));
        return out.join('\n');
      }
      const target = await readlink(abs);
      out.push(`type: symlink -> ${target}`);
      let real: string;
      try {
        real = resolvePath(ctx, args.path);
      } catch {
        out.push('target: outside the workspace (not inspected)');
        return out.join('\n');
      }
      const targetInfo = await stat(real).catch(() => undefined);
      if (!targetInfo) {
        out.push('target: missing (broken symlink)');
        return out.join('\n');
      }
      const where = rootOf(ctx, real) ? displayPath(ctx, real) : real;
      out.push(`target: ${where} (${kindOf(targetInfo)})`, ...(await describe(real, targetInfo, opts)));
      return out.join('\n');
    },
  });
}

export function diffFilesTool(opts: ResolvedFileOptions): Tool {
  return defineTool({
    name: 'diff_files',
    description: 'Show a unified diff (3 lines of context) between two text files in the workspace.',
    parameters: z.object({
      a: z.string().describe('The old file'),
      b: z.string().describe('The new file'),
    }),
    category: 'files',
    keywords: ['diff', 'compare', 'difference', 'changes', 'files', '比较', '差异'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 30_000,
    subject: (args) => `${args.a}, ${args.b}`,
    async execute(args, ctx) {
      const [a, b] = await Promise.all([resolveTextFile(ctx, args.a), resolveTextFile(ctx, args.b)]);
      const [before, after] = await Promise.all([readFile(a, 'utf8'), readFile(b, 'utf8')]);
      const shownA = displayPath(ctx, a);
      const shownB = displayPath(ctx, b);
      if (before === after) return `${shownA} and ${shownB} are identical`;
      const lf = (s: string): string => s.replace(/\r\n/g, '\n');
      if (lf(before) === lf(after)) return `${shownA} and ${shownB} differ only in line endings (CRLF vs LF)`;
      const diff = await unifiedDiff(shownA, shownB, before, after, opts.diffMaxChars);
      return `${shownA} -> ${shownB}: +${diff.added} -${diff.removed} lines\n${diff.text}`;
    },
  });
}
