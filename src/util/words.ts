/**
 * Runs of letters, digits and `_` (and `.`, with `dots`) in a text, as
 * `/[\p{L}\p{N}_]+/gu` finds them. V8 takes 1–2 ms to compile Unicode's letter and
 * number classes on first use, on every `tea -p` that looks for tool names in its prompt;
 * a text of ASCII alone (most prompts) is split with the ASCII classes, which match
 * exactly the same there, and the Unicode ones are compiled only for other text.
 */
/** Any character past ASCII (then the Unicode classes are needed). */
const PAST_ASCII = /[\u0080-\uffff]/;
const ASCII = { plain: /[A-Za-z0-9_]+/g, dotted: /[A-Za-z0-9_.]+/g };
let unicode: { plain: RegExp; dotted: RegExp } | undefined;

export function wordRuns(text: string, dots = false): string[] {
  const kind = dots ? 'dotted' : 'plain';
  if (!PAST_ASCII.test(text)) return text.match(ASCII[kind]) ?? [];
  unicode ??= { plain: /[\p{L}\p{N}_]+/gu, dotted: /[\p{L}\p{N}_.]+/gu };
  return text.match(unicode[kind]) ?? [];
}
