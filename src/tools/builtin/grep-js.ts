/**
 * The grep backend contract and a pure-JavaScript implementation. A ripgrep-backed
 * backend can implement the same interface later and be passed to `searchTools`.
 */
import { lstat, readFile } from 'node:fs/promises';
import { looksBinary } from './text.js';

/** tinyglobby loads on first use, keeping it off the start-up path. */
export const loadGlob = async () => (await import('tinyglobby')).glob;

/** Directories no search looks into unless the pattern names them. */
export const DEFAULT_IGNORES = ['**/node_modules/**', '**/.git/**'] as const;

export interface GrepRequest {
  regex: RegExp;
  /** Real absolute path of the directory (or single file) to search. */
  root: string;
  /** Only files whose path (relative to `root`) matches this glob. */
  glob?: string;
  /** Lines of context before and after each match. */
  context: number;
  maxResults: number;
  maxFileBytes: number;
  signal: AbortSignal;
}

export interface GrepLine {
  line: number;
  text: string;
  /** False for a context line. */
  match: boolean;
}

export interface GrepFileHits {
  /** Absolute path. */
  file: string;
  /** Matching and context lines in order. */
  lines: GrepLine[];
}

export interface GrepResult {
  files: GrepFileHits[];
  matches: number;
  /** More matches exist beyond `maxResults`. */
  truncated: boolean;
  filesSearched: number;
  skippedBinary: number;
  skippedLarge: number;
}

export interface GrepBackend {
  readonly name: string;
  search(request: GrepRequest): Promise<GrepResult>;
}

/** A glob without a slash matches file names at any depth, as in ripgrep's --glob. */
export function normalizeFileGlob(pattern: string): string {
  return pattern.includes('/') ? pattern : `**/${pattern}`;
}

/** The default ignores, minus any the pattern explicitly asks to search in. */
export function ignoresFor(pattern: string): string[] {
  const segments = pattern.split('/');
  return DEFAULT_IGNORES.filter((ignore) => !segments.includes(ignore.split('/')[1] ?? ''));
}

async function listFiles(request: GrepRequest): Promise<string[]> {
  const info = await lstat(request.root);
  if (!info.isDirectory()) return [request.root];
  const pattern = request.glob ? normalizeFileGlob(request.glob) : '**/*';
  const files = await (await loadGlob())(pattern, {
    cwd: request.root,
    absolute: true,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    ignore: ignoresFor(pattern),
    signal: request.signal,
  });
  return files.sort();
}

/** The lines of `lines` to show: each match plus `context` lines around it. */
function collect(lines: readonly string[], matchAt: readonly number[], context: number): GrepLine[] {
  const matches = new Set(matchAt);
  const out: GrepLine[] = [];
  let next = 0;
  for (const at of matchAt) {
    const from = Math.max(next, at - context);
    const to = Math.min(lines.length - 1, at + context);
    for (let i = from; i <= to; i++) out.push({ line: i + 1, text: lines[i] ?? '', match: matches.has(i) });
    next = to + 1;
  }
  return out;
}

export const jsGrepBackend: GrepBackend = {
  name: 'js',
  async search(request) {
    const result: GrepResult = {
      files: [],
      matches: 0,
      truncated: false,
      filesSearched: 0,
      skippedBinary: 0,
      skippedLarge: 0,
    };
    for (const file of await listFiles(request)) {
      request.signal.throwIfAborted();
      const info = await lstat(file).catch(() => undefined);
      if (!info?.isFile()) continue;
      if (info.size > request.maxFileBytes) {
        result.skippedLarge++;
        continue;
      }
      const bytes = await readFile(file).catch(() => undefined);
      if (bytes === undefined) continue;
      if (looksBinary(bytes)) {
        result.skippedBinary++;
        continue;
      }
      result.filesSearched++;
      const lines = bytes.toString('utf8').split(/\r?\n/);
      if (lines.at(-1) === '') lines.pop();
      const matchAt: number[] = [];
      for (let i = 0; i < lines.length; i++) {
        if (!request.regex.test(lines[i] ?? '')) continue;
        if (result.matches >= request.maxResults) {
          result.truncated = true;
          break;
        }
        matchAt.push(i);
        result.matches++;
      }
      if (matchAt.length > 0) result.files.push({ file, lines: collect(lines, matchAt, request.context) });
      if (result.truncated) break;
    }
    return result;
  },
};
