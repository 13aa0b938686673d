/**
 * The pure-JavaScript grep backend: the fallback when no ripgrep binary works.
 * Same file order, caps and context rules as the ripgrep backend (grep-core.ts).
 */
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
import { looksBinary } from './text.js';

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
      if (!info?.isFile() || info.size > request.maxFileBytes) continue;
      const bytes = await readFile(file).catch(() => undefined);
      if (bytes === undefined) continue;
      result.filesSearched++;
      if (looksBinary(bytes)) continue;
      const lines = bytes.toString('utf8').split(/\r?\n/);
      if (lines.at(-1) === '') lines.pop();
      const found = matchingLines(lines, regex, request.maxPerFile + 1);
      if (found.length === 0) continue;
      const { kept, capped } = budget.take(found);
      if (kept.length > 0) {
        result.files.push({ file, lines: linesAround(kept, request.context, (n) => lines[n - 1]), capped });
      }
      if (budget.done) break;
    }
    result.matches = budget.matches;
    result.truncated = budget.truncated;
    return result;
  },
};
