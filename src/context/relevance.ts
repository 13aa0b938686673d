/**
 * Relevance of older turns (L2 history pairs) to the new user message: keyword
 * Jaccard similarity (English words, identifiers, numbers, Chinese words) with a
 * boost for shared file paths. Pure and synchronous; pair keywords are cached per
 * pair object so scoring hundreds of pairs per request stays cheap.
 */
import { headAndTail } from '../util/head-tail.js';
import { segmentPieces } from '../util/segment-pieces.js';
import type { HistoryPair } from './types.js';

/** Score at or above which a pair is included in full. */
export const FULL_THRESHOLD = 0.15;
/** Score at or above which a pair is included as a one-line digest. */
export const DIGEST_THRESHOLD = 0.05;

const STOP_WORDS = new Set(
  [
    'the and for are but not you your all any can had her was one our out has have him his how',
    'its let may new now see she too use way who did get got this that with from they them then',
    'than there their what when where which while will would could should been being were into',
    'onto also just only some such very more most here about after before again does doing done',
    'each other over same these those because please want need like make made why yes okay',
  ]
    .join(' ')
    .split(' '),
);

/**
 * Chinese characters that carry little meaning on their own; they break runs of
 * single-character segments so that no bigram is built across them.
 */
const CJK_FUNCTION_CHARS = new Set(
  '的了是我你他她它们在和与及也就都请帮把被给吗呢吧啊呀着过这那个有没不很还要让对从向到为而或'.split(''),
);

const LATIN_TOKEN = /[\p{Script=Latin}\p{Nd}_]+/gu;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
const CJK_CHAR = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+$/u;
const ALL_DIGITS = /^\d+$/;
/** Splits identifiers: `parseHTTPResponse` → parse, HTTP, Response; `user_id` → user, id. */
const IDENTIFIER_PART = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{Nd}+|[\p{L}]+/gu;

let segmenter: Intl.Segmenter | undefined;
function chineseSegmenter(): Intl.Segmenter {
  segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
  return segmenter;
}

function addLatinWord(out: Set<string>, word: string): void {
  if (ALL_DIGITS.test(word)) {
    if (word.length >= 3) out.add(word);
    return;
  }
  const lower = word.toLowerCase();
  if (lower.length >= 3 && !STOP_WORDS.has(lower)) out.add(lower);
}

function addLatinTokens(out: Set<string>, text: string): void {
  for (const match of text.matchAll(LATIN_TOKEN)) {
    const token = match[0].replace(/^_+|_+$/g, '');
    if (token === '') continue;
    addLatinWord(out, token);
    if (token.includes('_') || /\p{Ll}\p{Lu}|\p{Lu}{2}\p{Ll}|\p{L}\p{Nd}|\p{Nd}\p{L}/u.test(token)) {
      for (const part of token.matchAll(IDENTIFIER_PART)) addLatinWord(out, part[0]);
    }
  }
}

/**
 * Chinese (and Japanese/Korean) words: word-like segments of ≥ 2 characters.
 * ICU splits unknown words into single characters (重|构); runs of such single
 * characters also contribute their character bigrams (重构), so the same word
 * matches whatever surrounds it. Lone single characters are dropped.
 */
function addCjkWords(out: Set<string>, text: string): void {
  for (const match of text.matchAll(CJK_RUN)) {
    const run = match[0];
    if (run.length < 2) continue;
    let singles: string[] = [];
    const flush = (): void => {
      for (let i = 0; i + 1 < singles.length; i++) out.add(singles[i]! + singles[i + 1]!);
      singles = [];
    };
    for (const { segment, isWordLike } of segmentPieces(chineseSegmenter(), run)) {
      if (!isWordLike || !CJK_CHAR.test(segment)) {
        flush();
      } else if ([...segment].length >= 2) {
        flush();
        out.add(segment);
      } else if (CJK_FUNCTION_CHARS.has(segment)) {
        flush();
      } else {
        singles.push(segment);
      }
    }
    flush();
  }
}

/**
 * The keywords of a text: Latin words of ≥ 3 letters lowercased (minus stop
 * words), identifiers whole and split on `_`/camelCase, numbers of ≥ 3 digits,
 * and Chinese words of ≥ 2 characters.
 */
export function keywords(text: string): Set<string> {
  const out = new Set<string>();
  addLatinTokens(out, text);
  addCjkWords(out, text);
  return out;
}

const URL = /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi;
/**
 * A path-like token: with an extension (`README.md`, `src/app.ts`), or starting
 * with `./`, `../`, `~/` or `/` and having at least one more segment.
 */
const PATH =
  /(?<![\w./~@-])(?:(?:\.\.?\/|~\/|\/)?(?:[\w@+-][\w.@+-]*\/)*[\w@+-][\w@+-]*(?:\.[\w@+-]+)*\.[A-Za-z][A-Za-z0-9]{0,9}|(?:\.\.?\/|~\/|\/)[\w.@+-]+(?:\/[\w.@+-]+)+)(?![\w/@+-]|\.[A-Za-z0-9])/g;

/** Path-like tokens in a text, normalized (no leading `./`), in order of appearance, unique. */
export function filePaths(text: string): string[] {
  const found = new Set<string>();
  for (const match of text.replace(URL, ' ').matchAll(PATH)) {
    const path = normalizePath(match[0]);
    // A one-letter name with no folder is an abbreviation (`e.g`, `i.e`), not a file.
    if (!path.includes('/') && path.indexOf('.') < 2) continue;
    found.add(path);
  }
  return [...found];
}

function normalizePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^(?:\.\/)+/, '');
}

/** Whether two paths name the same file: equal, or one is a trailing part of the other. */
function samePath(a: string, b: string): boolean {
  if (a === b) return true;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  return long.endsWith(`/${short}`);
}

function sharedFiles(queryFiles: readonly string[], pairFiles: readonly string[]): number {
  let shared = 0;
  for (const query of queryFiles) {
    if (pairFiles.some((file) => samePath(query, normalizePath(file)))) shared++;
  }
  return shared;
}

/** Characters read from each end of a long text for its keywords and paths (see util/head-tail). */
export const RELEVANCE_END_CHARS = 2_000;
const ends = (text: string): string => headAndTail(text, RELEVANCE_END_CHARS, RELEVANCE_END_CHARS);

/** Keywords of a pair by pair object (pairs are treated as immutable). */
export const pairKeywordCache = new WeakMap<HistoryPair, Set<string>>();

/** The keywords of a pair's user message, reasoning and answer; cached per pair. */
export function pairKeywords(pair: HistoryPair): Set<string> {
  let cached = pairKeywordCache.get(pair);
  if (!cached) {
    cached = keywords(`${ends(pair.user)}\n${ends(pair.reasoning)}\n${ends(pair.assistant)}`);
    pairKeywordCache.set(pair, cached);
  }
  return cached;
}

/**
 * Jaccard similarity of the query's keywords and the pair's; when they share at
 * least one file, at least `min(0.4 + 0.1 × shared, 0.9)`.
 */
export function scorePair(
  queryKeywords: ReadonlySet<string>,
  queryFiles: readonly string[],
  pair: HistoryPair,
  pairKeywordSet: ReadonlySet<string> = pairKeywords(pair),
): number {
  let common = 0;
  const [small, large] =
    queryKeywords.size <= pairKeywordSet.size
      ? [queryKeywords, pairKeywordSet]
      : [pairKeywordSet, queryKeywords];
  for (const word of small) if (large.has(word)) common++;
  const union = queryKeywords.size + pairKeywordSet.size - common;
  let score = union === 0 ? 0 : common / union;
  if (queryFiles.length > 0 && pair.files.length > 0) {
    const shared = sharedFiles(queryFiles, pair.files);
    if (shared >= 1) score = Math.max(score, Math.min(0.4 + 0.1 * shared, 0.9));
  }
  return score;
}

export interface SelectOptions {
  /** Minimum score for a full pair. Default 0.15. */
  full?: number;
  /** Minimum score for a one-line digest. Default 0.05. */
  digest?: number;
}

export interface SelectedPair {
  pair: HistoryPair;
  score: number;
  mode: 'full' | 'digest';
}

function threshold(value: number | undefined, fallback: number, name: string): number {
  const result = value ?? fallback;
  if (!Number.isFinite(result) || result < 0 || result > 1) {
    throw new RangeError(`selectPairs: ${name} threshold must be a number in [0, 1], got ${String(value)}`);
  }
  return result;
}

/**
 * The pairs worth sending with `input`, in their original (chronological) order:
 * score ≥ `full` in full, ≥ `digest` as a digest, others dropped. When no pair
 * reaches `digest`, the single best one (the latest on ties) is included in full.
 */
export function selectPairs(
  input: string,
  pairs: readonly HistoryPair[],
  opts: SelectOptions = {},
): SelectedPair[] {
  const full = threshold(opts.full, FULL_THRESHOLD, 'full');
  const digest = threshold(opts.digest, DIGEST_THRESHOLD, 'digest');
  if (digest > full) {
    throw new RangeError(
      `selectPairs: digest threshold (${digest}) must not exceed full threshold (${full})`,
    );
  }
  if (pairs.length === 0) return [];
  const queryKeywords = keywords(ends(input));
  const queryFiles = filePaths(ends(input));
  const selected: SelectedPair[] = [];
  let bestIndex = 0;
  let bestScore = -1;
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    const score = scorePair(queryKeywords, queryFiles, pair);
    if (score >= bestScore) {
      bestScore = score;
      bestIndex = i;
    }
    if (score >= full) selected.push({ pair, score, mode: 'full' });
    else if (score >= digest) selected.push({ pair, score, mode: 'digest' });
  }
  if (selected.length === 0) selected.push({ pair: pairs[bestIndex]!, score: bestScore, mode: 'full' });
  return selected;
}

/** Collapses whitespace and cuts to `max` code points, ending with `…` when cut. */
function shorten(text: string, max: number): string {
  // Flattening a pasted megabyte whole for `max` characters would cost its length.
  const head = text.length > max * 4 + 64 ? text.slice(0, max * 4 + 64) : text;
  let flat = head.replace(/\s+/g, ' ').trim();
  if (head !== text && flat.length < max) flat = text.replace(/\s+/g, ' ').trim(); // mostly whitespace
  const chars = [...flat];
  if (chars.length <= max) return flat;
  return `${chars
    .slice(0, Math.max(0, max - 1))
    .join('')
    .trimEnd()}…`;
}

const DIGEST_USER = 'User: ';
const DIGEST_ARROW = ' → Assistant: ';
const MIN_DIGEST = DIGEST_USER.length + DIGEST_ARROW.length + 8;

/**
 * One line `User: … → Assistant: …` of at most `max` characters; each side gets
 * half the room, and a short side leaves its unused room to the other.
 */
export function digestOf(pair: HistoryPair, max = 160): string {
  if (!Number.isInteger(max) || max < MIN_DIGEST) {
    throw new RangeError(`digestOf: max must be an integer ≥ ${MIN_DIGEST}, got ${max}`);
  }
  const room = max - DIGEST_USER.length - DIGEST_ARROW.length;
  const user = shorten(pair.user, Number.MAX_SAFE_INTEGER);
  const assistant = shorten(pair.assistant, Number.MAX_SAFE_INTEGER);
  const assistantLength = [...assistant].length;
  const half = Math.floor(room / 2);
  const userPart = shorten(user, assistantLength < room - half ? room - assistantLength : half);
  const assistantPart = shorten(assistant, room - [...userPart].length);
  return `${DIGEST_USER}${userPart}${DIGEST_ARROW}${assistantPart}`;
}
