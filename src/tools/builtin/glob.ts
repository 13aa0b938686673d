/**
 * glob: find files by name pattern, newest first, respecting .gitignore. Memory stays
 * bounded on huge trees: the walk stops after `globMaxScan` directory entries, and
 * only the newest `globMaxResults` matches are kept while their dates are read.
 */
import { readdir } from 'node:fs';
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

/** Files whose dates are read at once. */
const STAT_CONCURRENCY = 16;

interface Dated {
  file: string;
  mtime: number;
}

/** Newest first, then by path: a total order, so the result does not depend on timing. */
const newer = (a: Dated, b: Dated): number =>
  b.mtime - a.mtime || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0);

/** The `keep` newest of `files`, reading dates a few at a time and keeping only those. */
async function newest(files: readonly string[], keep: number, signal: AbortSignal): Promise<Dated[]> {
  const top: Dated[] = [];
  let next = 0;
  const insert = (item: Dated): void => {
    let lo = 0;
    let hi = top.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (newer(top[mid] as Dated, item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    if (lo >= keep) return;
    top.splice(lo, 0, item);
    if (top.length > keep) top.pop();
  };
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      signal.throwIfAborted();
      const file = files[next++] as string;
      insert({ file, mtime: (await stat(file).catch(() => undefined))?.mtimeMs ?? 0 });
    }
  };
  await Promise.all(Array.from({ length: STAT_CONCURRENCY }, worker));
  return top;
}

/**
 * A readdir for tinyglobby that counts the entries it hands out and stops the walk
 * (through `stop`) once more than `cap` have been read; the walk then answers with
 * what it found so far.
 */
function countingReaddir(cap: number, stop: AbortController): { readdir: typeof readdir; capped(): boolean } {
  let seen = 0;
  const counting = (
    path: string,
    options: object,
    callback: (error: Error | null, entries: unknown[]) => void,
  ) =>
    readdir(path, options as { withFileTypes: true }, (error, entries) => {
      if (!error) {
        seen += entries.length;
        if (seen > cap) stop.abort();
      }
      callback(error, entries);
    });
  return { readdir: counting as unknown as typeof readdir, capped: () => seen > cap };
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
      const stop = new AbortController();
      const onCancel = (): void => stop.abort();
      ctx.signal.addEventListener('abort', onCancel, { once: true });
      const walk = countingReaddir(opts.globMaxScan, stop);
      let found: string[];
      try {
        found = await (await loadGlob())(args.pattern, {
          cwd: root,
          absolute: true,
          dot: true,
          onlyFiles: true,
          followSymbolicLinks: false,
          ignore: skip.map((name) => `**/${name}/**`),
          signal: stop.signal,
          fs: { readdir: walk.readdir },
        });
      } finally {
        ctx.signal.removeEventListener('abort', onCancel);
      }
      ctx.signal.throwIfAborted();
      const matched = found.length;
      found = found.filter((file) => !matcher.isIgnored(file, false));
      const stopped = walk.capped()
        ? `… stopped after reading ${opts.globMaxScan.toLocaleString('en-US')} directory entries: there may be more matches, and these are the newest of the ones found so far; narrow the pattern or path`
        : undefined;
      if (found.length === 0) {
        const hidden =
          matched > 0 ? ` (${plural(matched, 'git-ignored file')}; pass include_ignored: true)` : '';
        const none = `No files match "${args.pattern}" in ${displayPath(ctx, root)}${hidden}`;
        return stopped ? `${none}\n${stopped}` : none;
      }
      const shown = await newest(found, opts.globMaxResults, ctx.signal);
      const lines = shown.map((d) => displayPath(ctx, d.file));
      const rest = found.length - lines.length;
      if (rest > 0) {
        lines.push(
          `… ${plural(rest, 'more file')} not shown (the ${opts.globMaxResults} most recently modified are listed); narrow the pattern or path`,
        );
      }
      if (stopped) lines.push(stopped);
      return lines.join('\n');
    },
  });
}
