/**
 * The pure-JavaScript grep backend: the fallback when no ripgrep binary works.
 * Same file order, caps and context rules as the ripgrep backend (grep-core.ts).
 */
import { createReadStream } from 'node:fs';
import { lstat, readFile } from 'node:fs/promises';
import {
  emptyResult,
  type GrepBackend,
  GrepPatternError,
  type GrepRequest,
  linesAround,
  MatchBudget,
  normalizeFileGlob,
} from './grep-core.js';
import { loadGlob, walkWorkspace } from './search-walk.js';
import { looksBinary, readHead } from './text.js';

export type {
  GrepBackend,
  GrepFileHits,
  GrepLine,
  GrepRequest,
  GrepResult,
} from './grep-core.js';
export { DEFAULT_IGNORES, ignoresFor, normalizeFileGlob } from './grep-core.js';
export { loadGlob };

/** Compiles the pattern as a JavaScript regex; a bad one becomes a GrepPatternError. */
export function compileJsRegex(pattern: string, flags: string): RegExp {
  try {
    return new RegExp(pattern, flags);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new GrepPatternError(
      detail.startsWith('Invalid regular expression') ? detail : `Invalid regular expression: ${detail}`,
      'javascript',
    );
  }
}

async function listFiles(request: GrepRequest): Promise<string[]> {
  const info = await lstat(request.root);
  if (!info.isDirectory()) return [request.root];
  const entries = await walkWorkspace({
    root: request.root,
    pattern: request.glob ? normalizeFileGlob(request.glob) : '**/*',
    ...(request.ignoreRoot === undefined ? {} : { ignoreRoot: request.ignoreRoot }),
    kind: 'file',
    signal: request.signal,
  });
  return entries.map((e) => e.path);
}

/** Files up to this size are read whole; larger ones are streamed line by line. */
const READ_WHOLE_BYTES = 1024 * 1024;

/** A file's lines (LF or CRLF endings; a lone CR stays in its line), streamed. */
async function* streamLines(file: string, signal: AbortSignal): AsyncGenerator<string> {
  const input = createReadStream(file, { encoding: 'utf8', signal, highWaterMark: 256 * 1024 });
  let parts: string[] = [];
  try {
    for await (const chunk of input as AsyncIterable<string>) {
      let start = 0;
      for (let nl = chunk.indexOf('\n'); nl !== -1; nl = chunk.indexOf('\n', start)) {
        parts.push(chunk.slice(start, nl));
        const line = parts.length === 1 ? (parts[0] ?? '') : parts.join('');
        parts = [];
        yield line.endsWith('\r') ? line.slice(0, -1) : line;
        start = nl + 1;
      }
      if (start < chunk.length) parts.push(chunk.slice(start));
    }
    if (parts.length > 0) yield parts.join('');
  } finally {
    input.destroy();
  }
}

/** What one file holds: the first `limit` matching lines and the text of the lines to show around them. */
interface FileMatches {
  found: number[];
  lineText: (line: number) => string | undefined;
}

/** Reads a small file whole. Undefined when it cannot be read; 'binary' for a binary file. */
async function matchWhole(
  file: string,
  regex: RegExp,
  limit: number,
): Promise<FileMatches | 'binary' | undefined> {
  const bytes = await readFile(file).catch(() => undefined);
  if (bytes === undefined) return undefined;
  if (looksBinary(bytes)) return 'binary';
  const lines = bytes.toString('utf8').split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  return { found: matchingLines(lines, regex, limit), lineText: (n) => lines[n - 1] };
}

/**
 * Streams a large file, keeping only matching lines and their context, and stops once
 * `limit` matches and the context after them are read: memory stays small at any size.
 */
async function matchStreamed(
  file: string,
  regex: RegExp,
  limit: number,
  context: number,
  signal: AbortSignal,
): Promise<FileMatches | 'binary' | undefined> {
  const head = await readHead(file).catch(() => undefined);
  if (head === undefined) return undefined;
  if (looksBinary(head)) return 'binary';
  const kept = new Map<number, string>();
  const recent: string[] = [];
  const found: number[] = [];
  let keepUntil = 0;
  let n = 0;
  try {
    for await (const line of streamLines(file, signal)) {
      n++;
      if (found.length < limit && regex.test(line)) {
        found.push(n);
        for (const [i, text] of recent.entries()) kept.set(n - recent.length + i, text);
        kept.set(n, line);
        keepUntil = n + context;
      } else if (n <= keepUntil) kept.set(n, line);
      if (found.length >= limit && n >= keepUntil) break;
      if (context > 0) {
        recent.push(line);
        if (recent.length > context) recent.shift();
      }
    }
  } catch {
    // Unreadable part way (removed, I/O error): what was read counts.
    signal.throwIfAborted();
    if (n === 0) return undefined;
  }
  return { found, lineText: (k) => kept.get(k) };
}

/** Line numbers (1-based) of the first `limit` matching lines. */
function matchingLines(lines: readonly string[], regex: RegExp, limit: number): number[] {
  const found: number[] = [];
  for (let i = 0; i < lines.length && found.length < limit; i++) {
    if (regex.test(lines[i] ?? '')) found.push(i + 1);
  }
  return found;
}

export const jsGrepBackend: GrepBackend = {
  name: 'js',
  async search(request) {
    const regex = compileJsRegex(request.pattern, request.ignoreCase ? 'i' : '');
    const result = emptyResult();
    const budget = new MatchBudget(request.maxResults, request.maxPerFile);
    for (const file of await listFiles(request)) {
      request.signal.throwIfAborted();
      const info = await lstat(file).catch(() => undefined);
      if (!info?.isFile()) continue;
      const limit = request.maxPerFile + 1;
      const hits =
        info.size <= READ_WHOLE_BYTES
          ? await matchWhole(file, regex, limit)
          : await matchStreamed(file, regex, limit, request.context, request.signal);
      if (hits === undefined) continue;
      result.filesSearched++;
      if (hits === 'binary' || hits.found.length === 0) continue;
      const { kept, capped } = budget.take(hits.found);
      if (kept.length > 0) {
        result.files.push({ file, lines: linesAround(kept, request.context, hits.lineText), capped });
      }
      if (budget.done) break;
    }
    result.matches = budget.matches;
    result.truncated = budget.truncated;
    return result;
  },
};
