/** Cutting long text into pieces without breaking a character. */

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/**
 * `text` in pieces of at most `size` UTF-16 units, never between the two halves of
 * a surrogate pair (a half alone is not a character: JSON escapes it, UTF-8 cannot
 * hold it), so the pieces joined are `text` again however each is encoded.
 */
export function textSlices(text: string, size: number): string[] {
  const out: string[] = [];
  for (let at = 0; at < text.length; ) {
    let end = Math.min(text.length, at + size);
    if (end < text.length && end - at > 1 && isHighSurrogate(text.charCodeAt(end - 1))) end -= 1;
    out.push(text.slice(at, end));
    at = end;
  }
  return out;
}
