/**
 * The grep backend contract and the pieces both backends share, so the ripgrep
 * and the pure-JavaScript backends give identical results on the same files:
 * one file order, one way of applying the caps and one way of picking context lines.
 */

/** Directories no search looks into unless the pattern names them. */
export const DEFAULT_IGNORES = ['**/node_modules/**', '**/.git/**'] as const;

export interface GrepRequest {
  /** The regular expression as the model wrote it (each backend compiles it in its own dialect). */
  pattern: string;
  ignoreCase: boolean;
  /** Real absolute path of the directory (or single file) to search. */
  root: string;
  /** Only files whose path (relative to `root`) matches this glob. */
  glob?: string;
  /** Lines of context before and after each match. */
  context: number;
  /** Matching lines returned in total. */
  maxResults: number;
  /** Matching lines returned from any one file. */
  maxPerFile: number;
  /** Apply .gitignore files from this directory (the workspace root) down; absent: none. */
  ignoreRoot?: string;
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
  /** The file has more matches than `maxPerFile`; the rest are not shown. */
  capped: boolean;
}

export interface GrepResult {
  files: GrepFileHits[];
  matches: number;
  /** More matches exist beyond `maxResults`. */
  truncated: boolean;
  /** Files looked at (binary files included). */
  filesSearched: number;
}

export interface GrepBackend {
  readonly name: string;
  search(request: GrepRequest): Promise<GrepResult>;
}

/** Thrown by a backend when the pattern does not compile in its regex dialect. */
export class GrepPatternError extends Error {
  constructor(
    message: string,
    readonly dialect: 'javascript' | 'ripgrep',
  ) {
    super(message);
    this.name = 'GrepPatternError';
  }
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

/**
 * Directory-walk order: paths compared segment by segment, so a directory's files
 * stay together (`a/b/c` before `a/b.txt`, as a sorted tree walk would list them).
 */
export function comparePaths(a: string, b: string): number {
  const as = a.split('/');
  const bs = b.split('/');
  const n = Math.min(as.length, bs.length);
  for (let i = 0; i < n; i++) {
    const x = as[i] ?? '';
    const y = bs[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return as.length - bs.length;
}

/** Running totals while files are visited in order; decides which matches are kept. */
export class MatchBudget {
  matches = 0;
  truncated = false;

  constructor(
    private readonly maxResults: number,
    private readonly maxPerFile: number,
  ) {}

  /**
   * Takes a file's matching line numbers (ascending, at least `maxPerFile + 1` of
   * them when there are that many) and returns the ones to show.
   */
  take(matchLines: readonly number[]): { kept: number[]; capped: boolean } {
    const kept: number[] = [];
    for (const line of matchLines) {
      if (this.matches >= this.maxResults) {
        this.truncated = true;
        return { kept, capped: false };
      }
      if (kept.length >= this.maxPerFile) return { kept, capped: true };
      kept.push(line);
      this.matches++;
    }
    return { kept, capped: false };
  }

  get done(): boolean {
    return this.truncated;
  }
}

/**
 * The lines to show for `kept` matches (1-based) with `context` lines around each;
 * `lineText` returns undefined past the end of the file.
 */
export function linesAround(
  kept: readonly number[],
  context: number,
  lineText: (line: number) => string | undefined,
): GrepLine[] {
  const matches = new Set(kept);
  const out: GrepLine[] = [];
  let next = 1;
  for (const at of kept) {
    const from = Math.max(next, at - context);
    const to = at + context;
    for (let n = from; n <= to; n++) {
      const text = lineText(n);
      if (text === undefined) break;
      out.push({ line: n, text, match: matches.has(n) });
    }
    next = to + 1;
  }
  return out;
}

export function emptyResult(): GrepResult {
  return { files: [], matches: 0, truncated: false, filesSearched: 0 };
}
