/** Search tools: glob (find files by name) and grep (find text in files). */
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import * as z from 'zod';
import { defineTool, type Tool, type ToolContext, ToolError } from '../types.js';
import { displayPath, resolvePath } from '../workspace.js';
import { type GrepBackend, type GrepResult, ignoresFor, jsGrepBackend, loadGlob } from './grep-js.js';
import { type BuiltinOptions, withDefaults } from './options.js';
import { clipLine, plural } from './text.js';

const GREP_MAX_LINE_CHARS = 500;
const GREP_MAX_RESULTS_LIMIT = 2000;

/** Resolves an optional directory argument (default: the workspace root). */
function searchRoot(ctx: ToolContext, path: string | undefined): string {
  return resolvePath(ctx, path ?? '.', { mustExist: true });
}

function checkGlobPattern(pattern: string): void {
  if (isAbsolute(pattern) || pattern.split('/').includes('..')) {
    throw new ToolError(
      `The glob pattern "${pattern}" must be relative and must not contain ".."`,
      'pass the directory to search as `path` and a relative pattern such as "**/*.ts"',
    );
  }
}

function globTool(opts: Required<BuiltinOptions>): Tool {
  return defineTool({
    name: 'glob',
    description:
      'Find files by name pattern (e.g. "**/*.ts", "src/**/test_*.py", "*.{json,yaml}"), newest first. ' +
      `Use it to locate files when you know part of the name. Skips node_modules and .git; shows at most ${opts.globMaxResults} paths.`,
    parameters: z.object({
      pattern: z.string().min(1).describe('Glob pattern relative to `path`, e.g. "**/*.ts"'),
      path: z.string().optional().describe('Directory to search in (default: the workspace root)'),
    }),
    category: 'search',
    keywords: ['find', 'files', 'glob', 'pattern', 'locate', 'search', 'name', 'wildcard'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    async execute(args, ctx) {
      checkGlobPattern(args.pattern);
      const root = searchRoot(ctx, args.path);
      if (!(await stat(root)).isDirectory()) {
        throw new ToolError(`${args.path} is a file, not a directory`, 'pass a directory as path');
      }
      const found = await (await loadGlob())(args.pattern, {
        cwd: root,
        absolute: true,
        dot: true,
        onlyFiles: true,
        followSymbolicLinks: false,
        ignore: ignoresFor(args.pattern),
        signal: ctx.signal,
      });
      if (found.length === 0) return `No files match "${args.pattern}" in ${displayPath(ctx, root)}`;
      const dated = await Promise.all(
        found.map(async (file) => ({ file, mtime: (await stat(file).catch(() => undefined))?.mtimeMs ?? 0 })),
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

function compileRegex(pattern: string, ignoreCase: boolean): RegExp {
  try {
    return new RegExp(pattern, ignoreCase ? 'i' : '');
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new ToolError(
      detail.startsWith('Invalid regular expression') ? detail : `Invalid regular expression: ${detail}`,
      'pattern is a JavaScript regex; escape special characters such as ( ) [ ] { } . * + ? | \\ with a backslash',
    );
  }
}

/** `path:12: text` for matches, `path-11- text` for context, `--` between separate groups. */
export function formatGrep(ctx: ToolContext, result: GrepResult, context: number): string {
  const out: string[] = [];
  for (const hits of result.files) {
    const shown = displayPath(ctx, hits.file);
    let previous: number | undefined;
    for (const line of hits.lines) {
      const gap = previous === undefined ? out.length > 0 && context > 0 : line.line > previous + 1;
      if (gap) out.push('--');
      const text = clipLine(line.text, GREP_MAX_LINE_CHARS);
      out.push(line.match ? `${shown}:${line.line}: ${text}` : `${shown}-${line.line}- ${text}`);
      previous = line.line;
    }
  }
  return out.join('\n');
}

function grepTool(opts: Required<BuiltinOptions>, backend: GrepBackend): Tool {
  return defineTool({
    name: 'grep',
    description:
      'Search file contents with a JavaScript regular expression and return `path:line: text` for each ' +
      'matching line. Use it to find where something is defined or used. Skips node_modules, .git, binary ' +
      'files and files over 1 MB; stops after max_results matching lines (default 100).',
    parameters: z.object({
      pattern: z.string().min(1).describe('JavaScript regular expression, e.g. "function\\s+load" or "TODO"'),
      path: z.string().optional().describe('Directory or file to search (default: the workspace root)'),
      glob: z
        .string()
        .optional()
        .describe('Only search files matching this glob, e.g. "*.ts" or "src/**/*.{js,ts}"'),
      ignore_case: z.boolean().optional().describe('Match case-insensitively (default false)'),
      context: z
        .number()
        .int()
        .min(0)
        .max(20)
        .optional()
        .describe('Lines of context around each match (default 0)'),
      max_results: z
        .number()
        .int()
        .min(1)
        .max(GREP_MAX_RESULTS_LIMIT)
        .optional()
        .describe('Stop after this many matching lines (default 100)'),
    }),
    category: 'search',
    keywords: ['grep', 'search', 'find', 'text', 'regex', 'contents', 'usages', 'references', 'code'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    async execute(args, ctx) {
      const regex = compileRegex(args.pattern, args.ignore_case === true);
      if (args.glob !== undefined) checkGlobPattern(args.glob);
      const root = searchRoot(ctx, args.path);
      const context = args.context ?? 0;
      const maxResults = args.max_results ?? 100;
      const result = await backend.search({
        regex,
        root,
        ...(args.glob === undefined ? {} : { glob: args.glob }),
        context,
        maxResults,
        maxFileBytes: opts.grepMaxFileBytes,
        signal: ctx.signal,
      });
      const where = displayPath(ctx, root);
      if (result.matches === 0) {
        const scope = args.glob ? ` (files matching "${args.glob}")` : '';
        return `No matches for /${args.pattern}/ in ${where}${scope}; searched ${plural(result.filesSearched, 'file')}`;
      }
      const lines = [formatGrep(ctx, result, context)];
      if (result.truncated) {
        lines.push(
          `… stopped after ${plural(maxResults, 'match', 'matches')}; narrow the pattern, path or glob, or raise max_results`,
        );
      }
      return lines.join('\n');
    },
  });
}

export interface SearchToolOptions extends BuiltinOptions {
  /** The grep implementation (default: pure JavaScript). */
  grepBackend?: GrepBackend;
}

export function searchTools(options: SearchToolOptions = {}): Tool[] {
  const { grepBackend, ...rest } = options;
  const opts = withDefaults(rest);
  return [globTool(opts), grepTool(opts, grepBackend ?? jsGrepBackend)];
}
