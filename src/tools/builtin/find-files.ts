/** find_files: files and directories by name, respecting .gitignore, newest first. */
import { stat } from 'node:fs/promises';
import { basename, isAbsolute } from 'node:path';
import * as z from 'zod';
import { defineTool, type Tool, ToolError } from '../types.js';
import { displayPath, resolvePath, rootOf } from '../workspace.js';
import { normalizeFileGlob } from './grep-core.js';
import { walkWorkspace } from './search-walk.js';

const GLOB_CHARS = /[*?[\]{}]/;
const MAX_RESULTS_LIMIT = 1000;

export interface FindFilesOptions {
  /** Paths shown when the call sets no max_results. */
  maxResults: number;
}

export function findFilesTool(opts: FindFilesOptions): Tool {
  return defineTool({
    name: 'find_files',
    description:
      'Find files or directories by name: a case-insensitive substring ("config") or a glob ("*.test.ts"). ' +
      'Respects .gitignore; newest first.',
    parameters: z.object({
      name: z.string().min(1).describe('Name substring or glob'),
      path: z.string().optional().describe('Directory to search (default: workspace)'),
      type: z.enum(['file', 'dir']).optional().describe('Only files or only directories'),
      max_results: z
        .number()
        .int()
        .min(1)
        .max(MAX_RESULTS_LIMIT)
        .optional()
        .describe(`Paths shown (default ${opts.maxResults})`),
    }),
    category: 'search',
    keywords: ['find', 'file', 'files', 'name', 'locate', 'where', 'directory', 'folder', '查找', '文件'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 60_000,
    subject: (args) => args.path ?? '.',
    async execute(args, ctx) {
      const isGlob = GLOB_CHARS.test(args.name);
      if (isGlob && (isAbsolute(args.name) || args.name.split('/').includes('..'))) {
        throw new ToolError(
          `The name pattern "${args.name}" must be relative and must not contain ".."`,
          'pass the directory as `path` and a name or glob such as "*.json"',
        );
      }
      const root = resolvePath(ctx, args.path ?? '.', { mustExist: true });
      if (!(await stat(root)).isDirectory()) {
        throw new ToolError(`${args.path} is a file, not a directory`, 'pass a directory as path');
      }
      const ignoreRoot = rootOf(ctx, root);
      const entries = await walkWorkspace({
        root,
        pattern: isGlob ? normalizeFileGlob(args.name) : '**/*',
        ...(ignoreRoot === undefined ? {} : { ignoreRoot }),
        kind: args.type ?? 'any',
        caseSensitive: false,
        signal: ctx.signal,
      });
      const needle = args.name.toLowerCase();
      const matching = isGlob
        ? entries
        : entries.filter((e) => basename(e.path).toLowerCase().includes(needle));
      const where = displayPath(ctx, root);
      if (matching.length === 0) {
        const what =
          args.type === 'dir' ? 'directories' : args.type === 'file' ? 'files' : 'files or directories';
        return `No ${what} named like "${args.name}" in ${where}`;
      }
      const dated = await Promise.all(
        matching.map(async (e) => ({
          ...e,
          mtime: (await stat(e.path).catch(() => undefined))?.mtimeMs ?? 0,
        })),
      );
      dated.sort((a, b) => b.mtime - a.mtime || (a.path < b.path ? -1 : 1));
      const limit = args.max_results ?? opts.maxResults;
      const lines = dated.slice(0, limit).map((e) => `${displayPath(ctx, e.path)}${e.isDir ? '/' : ''}`);
      const rest = dated.length - lines.length;
      if (rest > 0) lines.push(`… ${rest} more not shown; narrow the name or path, or raise max_results`);
      return lines.join('\n');
    },
  });
}
