/** glob: find files by name pattern, newest first, respecting .gitignore. */
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import * as z from 'zod';
import { defineTool, type Tool, ToolError } from '../types.js';
import { displayPath, resolvePath } from '../workspace.js';
import type { ResolvedFileOptions } from './file-options.js';
import { ALWAYS_SKIPPED, gitignoreFor, loadGitignore } from './gitignore.js';
import { plural } from './text.js';

/** tinyglobby loads on first use, keeping it off the start-up path. */
const loadGlob = async () => (await import('tinyglobby')).glob;

function checkPattern(pattern: string): void {
  if (isAbsolute(pattern) || pattern.split('/').includes('..')) {
    throw new ToolError(
      `The glob pattern "${pattern}" must be relative and must not contain ".."`,
      'pass the directory to search as `path` and a relative pattern such as "**/*.ts"',
    );
  }
}

/** The always-skipped names, minus any the pattern or path explicitly names. */
function skippedFor(pattern: string, path: string, includeIgnored: boolean): string[] {
  const named = new Set([...pattern.split('/'), ...path.split('/')]);
  const base = includeIgnored ? ['.git'] : ALWAYS_SKIPPED;
  return base.filter((name) => !named.has(name));
}

export function globTool(opts: ResolvedFileOptions): Tool {
  return defineTool({
    name: 'glob',
    description: `Find files by glob, newest first; skips git-ignored files unless include_ignored. Max ${opts.globMaxResults}.`,
    parameters: z.object({
      pattern: z.string().min(1).describe('e.g. "src/**/*.ts"'),
      path: z.string().optional().describe('Directory (default .)'),
      include_ignored: z.boolean().optional().describe('Also list git-ignored files'),
    }),
    category: 'files',
    keywords: ['find', 'files', 'glob', 'pattern', 'locate', 'search', 'name', 'wildcard', '查找', '文件'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 60_000,
    subject: (args) => (args.path ? `${args.path}/${args.pattern}` : args.pattern),
    async execute(args, ctx) {
      checkPattern(args.pattern);
      const root = resolvePath(ctx, args.path ?? '.', { mustExist: true });
      if (!(await stat(root)).isDirectory()) {
        throw new ToolError(`${args.path} is a file, not a directory`, 'pass a directory as path');
      }
      const includeIgnored = args.include_ignored === true;
      const skip = skippedFor(args.pattern, args.path ?? '', includeIgnored);
      let matcher = await gitignoreFor(ctx, root, { alwaysSkip: skip, useGitignore: !includeIgnored });
      // Searching inside an ignored directory was asked for explicitly: do not hide everything.
      if (matcher.isIgnored(root, true))
        matcher = await loadGitignore(root, { alwaysSkip: skip, useGitignore: false });
      const found = await (await loadGlob())(args.pattern, {
        cwd: root,
        absolute: true,
        dot: true,
        onlyFiles: true,
        followSymbolicLinks: false,
        ignore: skip.map((name) => `**/${name}/**`),
        signal: ctx.signal,
      });
      const kept = found.filter((file) => !matcher.isIgnored(file, false));
      if (kept.length === 0) {
        const hidden =
          found.length > 0
            ? ` (${plural(found.length, 'git-ignored file')}; pass include_ignored: true)`
            : '';
        return `No files match "${args.pattern}" in ${displayPath(ctx, root)}${hidden}`;
      }
      const dated = await Promise.all(
        kept.map(async (file) => ({ file, mtime: (await stat(file).catch(() => undefined))?.mtimeMs ?? 0 })),
      );
      dated.sort((a, b) => b.mtime - a.mtime || (a.file < b.file ? -1 : 1));
      const lines = dated.slice(0, opts.globMaxResults).map((d) => displayPath(ctx, d.file));
      const rest = dated.length - lines.length;
      if (rest > 0) {
        lines.push(
          `… ${plural(rest, 'more file')} not shown (the ${opts.globMaxResults} most recently modified are listed); narrow the pattern or path`,
        );
      }
      return lines.join('\n');
    },
  });
}
