/**
 * JSON nesting, checked before `JSON.parse`: a body of 8 MB of `[` parses into
 * millions of nested arrays (hundreds of MB) before any schema sees it. One linear
 * pass over the text counts the open brackets outside strings.
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

/** The deepest nesting in `text`, counted up to `stopAt` (past it, `stopAt + 1`). */
export function jsonDepth(text: string, stopAt = MAX_JSON_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      // Skip the string: up to the next quote not escaped by a backslash.
      for (i++; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === BACKSLASH) i++;
        else if (c === QUOTE) break;
      }
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > stopAt) return deepest;
      }
    } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
      depth--;
    }
  }
  return deepest;
}

/** Throws a 400 `json_too_deep` when `text` nests deeper than MAX_JSON_DEPTH. */
export function checkJsonDepth(text: string, what = 'request body'): void {
  if (jsonDepth(text) > MAX_JSON_DEPTH) {
    throw apiError(
      400,
      `${what} nests JSON deeper than ${MAX_JSON_DEPTH} levels: send flatter JSON (no request needs more than a few levels)`,
      { code: 'json_too_deep' },
    );
  }
}
