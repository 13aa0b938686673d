/**
 * JSON nesting, checked before `JSON.parse`: a body of 8 MB of `[` parses into
 * millions of nested arrays (hundreds of MB) before any schema sees it. A scanner
 * counts the open brackets outside strings as the body's bytes arrive (UTF-8: the
 * bytes of `"`, `\`, brackets never occur inside a multi-byte character), so the
 * count costs nothing extra at the end and a too-deep body is refused before the
 * rest of it is read.
 */
import { apiError } from './errors.js';

/** The deepest nesting a request body may have; real requests stay under 10. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** Counts JSON nesting over text or bytes fed in pieces. */
export class DepthScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** The deepest nesting seen so far. */
  deepest = 0;

  /** Feeds the next piece (UTF-16 code units or UTF-8 bytes); false once past `max`. */
  push(piece: Uint8Array | string, max = MAX_JSON_DEPTH): boolean {
    const text = typeof piece === 'string' ? piece : undefined;
    const bytes = typeof piece === 'string' ? undefined : piece;
    const at = (i: number): number => (bytes ? bytes[i]! : text!.charCodeAt(i));
    // Inside a string only `"` and `\` matter: jump between them with the native
    // indexOf (most of a large body is string content), remembering each next place.
    const find = (code: number, from: number): number => {
      const found = bytes ? bytes.indexOf(code, from) : text!.indexOf(String.fromCharCode(code), from);
      return found < 0 ? piece.length : found;
    };
    let nextQuote = -1;
    let nextEscape = -1;
    let { depth, inString, escaped, deepest } = this;
    let i = 0;
    while (i < piece.length) {
      if (escaped) {
        escaped = false;
        i++;
        continue;
      }
      if (inString) {
        if (nextQuote < i) nextQuote = find(QUOTE, i);
        if (nextEscape < i) nextEscape = find(BACKSLASH, i);
        const stop = Math.min(nextQuote, nextEscape);
        if (stop >= piece.length) break;
        if (stop === nextEscape) escaped = true;
        else inString = false;
        i = stop + 1;
        continue;
      }
      const code = at(i++);
      if (code === QUOTE) inString = true;
      else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
        depth++;
        if (depth > deepest) deepest = depth;
      } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) depth--;
    }
    Object.assign(this, { depth, inString, escaped, deepest });
    return deepest <= max;
  }
}

/** The 400 for JSON nested deeper than MAX_JSON_DEPTH. */
export function tooDeep(what = 'request body') {
  return apiError(
    400,
    `${what} nests JSON deeper than ${MAX_JSON_DEPTH} levels: send flatter JSON (no request needs more than a few levels)`,
    { code: 'json_too_deep' },
  );
}

/** The deepest nesting in `text`. */
export function jsonDepth(text: string): number {
  const scanner = new DepthScanner();
  scanner.push(text, Number.POSITIVE_INFINITY);
  return scanner.deepest;
}

/** Throws a 400 `json_too_deep` when `text` nests deeper than MAX_JSON_DEPTH. */
export function checkJsonDepth(text: string, what = 'request body'): void {
  if (!new DepthScanner().push(text)) throw tooDeep(what);
}
