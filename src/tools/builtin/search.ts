/**
 * The search family: grep (ripgrep with a JavaScript fallback), find_files,
 * replace_in_files and history_search. (glob lives with the files family.)
 */
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import * as z from 'zod';
import { LinkGuard } from '../hardlinks.js';
import { defineTool, type Tool, type ToolContext, ToolError } from '../types.js';
import { displayPath, resolvePath, rootOf, workspaceRoots } from '../workspace.js';
import { findFilesTool } from './find-files.js';
import { type GrepBackend, GrepPatternError, type GrepResult } from './grep-core.js';
import { jsGrepBackend } from './grep-js.js';
import { autoGrepBackend, findRipgrep, rgGrepBackend } from './grep-rg.js';
import { historySearchTool } from './history.js';
import { type BuiltinOptions, withDefaults } from './options.js';
import { replaceInFilesTool } from './replace.js';
import { clipLine, fileLooksBinary, plural } from './text.js';

const GREP_MAX_LINE_CHARS = 500;
const GREP_MAX_RESULTS_LIMIT = 2000;

export interface SearchToolOptions extends BuiltinOptions {
  /** The grep implementation: a backend, or 'auto' (default: ripgrep when it works, else JavaScript), 'rg', 'js'. */
  grepBackend?: GrepBackend | 'auto' | 'rg' | 'js';
  /** grep: matching lines shown from any one file when searching a directory (default 50). */
  grepMaxPerFile?: number;
  /** find_files: paths shown when the call sets no max_results (default 100). */
  findMaxResults?: number;
  /** replace_in_files: changed lines listed (default 50). */
  replaceMaxShown?: number;
  /** replace_in_files: files it may change in one call (default 500). */
  replaceMaxFiles?: number;
  /**
   * replace_in_files: larger files are skipped and named in the answer (default 1 MB;
   * it holds every changed file in memory until it writes them all).
   */
  replaceMaxFileBytes?: number;
}

type SearchOptions = Required<BuiltinOptions> & {
  grepMaxPerFile: number;
  findMaxResults: number;
  replaceMaxShown: number;
  replaceMaxFiles: number;
};

/** Resolves an optional directory argument (default: the workspace root). */
export function searchRoot(ctx: ToolContext, path: string | undefined): string {
  return resolvePath(ctx, path ?? '.', { mustExist: true });
}

export function checkGlobPattern(pattern: string): void {
  if (isAbsolute(pattern) || pattern.split('/').includes('..')) {
    throw new ToolError(
      `The glob pattern "${pattern}" must be relative and must not contain ".."`,
      'pass the directory to search as `path` and a relative pattern such as "**/*.ts"',
    );
  }
}

/** `path:12: text` for matches, `path-11- text` for context, `--` between separate groups. */
export function formatGrep(
  ctx: ToolContext,
  result: GrepResult,
  context: number,
  maxPerFile: number,
): string {
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
    if (hits.capped) out.push(`… ${shown}: more matches not shown (${maxPerFile} per file)`);
  }
  return out.join('\n');
}

const PATTERN_HINTS = {
  javascript:
    'pattern is a JavaScript regex; escape special characters such as ( ) [ ] { } . * + ? | \\ with a backslash',
  ripgrep:
    'pattern is a ripgrep (Rust/PCRE2) regex; escape special characters such as ( ) [ ] { } . * + ? | \\ with a backslash',
} as const;

function backendFor(choice: SearchToolOptions['grepBackend']): GrepBackend {
  if (choice === undefined || choice === 'auto') return autoGrepBackend;
  if (choice === 'js') return jsGrepBackend;
  if (choice !== 'rg') return choice;
  return {
    name: 'rg',
    async search(request) {
      const rg = await findRipgrep();
      if (rg === undefined) {
        throw new ToolError(
          'ripgrep (rg) is not available here',
          'install ripgrep or use the default backend',
        );
      }
      return rgGrepBackend(rg).search(request);
    },
  };
}

/** Leaves out files that are hard links to files outside the workspace (see hardlinks.ts). */
function withoutOutsideLinks(ctx: ToolContext, result: GrepResult): { result: GrepResult; left: string[] } {
  const guard = new LinkGuard(workspaceRoots(ctx));
  const left = result.files.filter((hits) => !guard.allows(hits.file));
  if (left.length === 0) return { result, left: [] };
  const files = result.files.filter((hits) => !left.includes(hits));
  const matches = files.reduce((sum, hits) => sum + hits.lines.filter((line) => line.match).length, 0);
  return { result: { ...result, files, matches }, left: left.map((hits) => displayPath(ctx, hits.file)) };
}

/** For a single file: refuse what no backend would search, with the reason. */
async function checkSingleFile(ctx: ToolContext, abs: string): Promise<void> {
  const info = await stat(abs);
  if (info.isDirectory()) return;
  const shown = displayPath(ctx, abs);
  if (await fileLooksBinary(abs)) {
    throw new ToolError(`${shown} is a binary file; grep only searches text`, 'inspect it with bash instead');
  }
}

function grepTool(opts: SearchOptions, backend: GrepBackend): Tool {
  return defineTool({
    name: 'grep',
    description:
      'Regex search in files of any size (git-ignored and binary files skipped); prints path:line: text.',
    parameters: z.object({
      pattern: z.string().min(1).describe('Regex, e.g. "def\\s+load"'),
      path: z.string().optional().describe('Dir or file (default .)'),
      glob: z.string().optional().describe('File glob, e.g. "*.ts"'),
      ignore_case: z.boolean().optional().describe('Case-insensitive'),
      context: z.number().int().min(0).max(20).optional().describe('Lines around hits'),
      max_results: z
        .number()
        .int()
        .min(1)
        .max(GREP_MAX_RESULTS_LIMIT)
        .optional()
        .describe('Max matching lines'),
    }),
    category: 'search',
    keywords: [
      'grep',
      'search',
      'find',
      'text',
      'regex',
      'contents',
      'usages',
      'references',
      'code',
      '搜索',
      '查找',
    ],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 60_000,
    subject: (args) => args.path ?? '.',
    async execute(args, ctx) {
      if (args.glob !== undefined) checkGlobPattern(args.glob);
      const root = searchRoot(ctx, args.path);
      await checkSingleFile(ctx, root);
      const isDir = (await stat(root)).isDirectory();
      const context = args.context ?? 0;
      const maxResults = args.max_results ?? 100;
      const maxPerFile = isDir ? opts.grepMaxPerFile : maxResults;
      const ignoreRoot = rootOf(ctx, root);
      let result: GrepResult;
      try {
        result = await backend.search({
          pattern: args.pattern,
          ignoreCase: args.ignore_case === true,
          root,
          ...(args.glob === undefined || !isDir ? {} : { glob: args.glob }),
          context,
          maxResults,
          maxPerFile,
          ...(ignoreRoot === undefined ? {} : { ignoreRoot }),
          signal: ctx.signal,
        });
      } catch (error) {
        if (!(error instanceof GrepPatternError)) throw error;
        const message = error.message.startsWith('Invalid regular expression')
          ? error.message
          : `Invalid regular expression: ${error.message}`;
        throw new ToolError(message, PATTERN_HINTS[error.dialect]);
      }
      const filtered = withoutOutsideLinks(ctx, result);
      result = filtered.result;
      const leftOut =
        filtered.left.length === 0
          ? []
          : [
              `(left out ${plural(filtered.left.length, 'file')} that ${filtered.left.length === 1 ? 'is a hard link' : 'are hard links'} to files outside the workspace: ${filtered.left.slice(0, 5).join(', ')})`,
            ];
      const where = displayPath(ctx, root);
      if (result.matches === 0) {
        const scope = args.glob && isDir ? ` (files matching "${args.glob}")` : '';
        return [
          `No matches for /${args.pattern}/ in ${where}${scope}; searched ${plural(result.filesSearched, 'file')}`,
          ...leftOut,
        ].join('\n');
      }
      const lines = [formatGrep(ctx, result, context, maxPerFile), ...leftOut];
      if (result.truncated) {
        lines.push(
          `… stopped after ${plural(result.matches, 'match', 'matches')}; narrow the pattern, path or glob, or raise max_results`,
        );
      }
      return lines.join('\n');
    },
  });
}

export function searchTools(options: SearchToolOptions = {}): Tool[] {
  const { grepBackend, grepMaxPerFile, findMaxResults, replaceMaxShown, replaceMaxFiles, ...rest } = options;
  const opts: SearchOptions = {
    ...withDefaults(rest),
    grepMaxPerFile: grepMaxPerFile ?? 50,
    findMaxResults: findMaxResults ?? 100,
    replaceMaxShown: replaceMaxShown ?? 50,
    replaceMaxFiles: replaceMaxFiles ?? 500,
  };
  return [
    grepTool(opts, backendFor(grepBackend)),
    findFilesTool({ maxResults: opts.findMaxResults }),
    replaceInFilesTool({
      maxShown: opts.replaceMaxShown,
      maxFiles: opts.replaceMaxFiles,
      maxFileBytes: options.replaceMaxFileBytes ?? 1024 * 1024,
    }),
    historySearchTool(),
  ];
}
