/**
 * The two ends of a long text. Work that reads a message to guess what it is about
 * (memory recall, tool intent, relevance of old turns) reads a bounded part of a
 * pasted megabyte: its start and its end, where the question usually is.
 */

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/**
 * `text` itself when it has at most `head + tail` characters; else its first `head`
 * and last `tail` characters joined by a line break, or by `marker(cut characters)`
 * (never splitting a surrogate pair).
 */
export function headAndTail(
  text: string,
  head: number,
  tail: number,
  marker: (cut: number) => string = () => '\n',
): string {
  if (text.length <= head + tail) return text;
  let end = head;
  if (end > 0 && isLowSurrogate(text.charCodeAt(end))) end -= 1;
  let start = text.length - tail;
  if (isLowSurrogate(text.charCodeAt(start))) start += 1;
  return `${text.slice(0, end)}${marker(start - end)}${text.slice(start)}`;
}
