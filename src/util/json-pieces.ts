/**
 * JSON encoding that gives the event loop back while it works through big strings.
 * `JSON.stringify` of a pasted 5 MB prompt (and the UTF-8 copy after it) holds the
 * loop for tens of milliseconds on a busy machine, and a server answers nobody
 * meanwhile. Here strings over BIG_STRING_CHARS are encoded a slice at a time with a
 * yield between slices; the rest of the value goes through `JSON.stringify` as usual.
 * The output is byte for byte what `Buffer.from(JSON.stringify(value))` gives.
 */
import { textSlices } from './slices.js';
import { yieldToEventLoop } from './yield.js';

/** Strings longer than this are encoded in slices. */
export const BIG_STRING_CHARS = 64 * 1024;
/** Characters encoded between two yields. */
const SLICE_CHARS = 128 * 1024;

/** `value` as UTF-8 JSON, yielding to the event loop between slices of its big strings. */
export async function jsonBytes(value: unknown): Promise<Buffer> {
  const big: string[] = [];
  // A marker no string in `value` holds by chance: NUL, a random tag, the index (and
  // should one hold it anyway, the count below differs and plain JSON.stringify is used).
  const tag = `\u0000${Math.random().toString(36).slice(2)}${Date.now().toString(36)}:`;
  const skeleton = JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'string' && v.length > BIG_STRING_CHARS ? `${tag}${big.push(v) - 1}\u0000` : v,
  );
  if (skeleton === undefined) throw new TypeError('value has no JSON form');
  if (big.length === 0) return Buffer.from(skeleton);
  // In the skeleton each marker is the JSON string "\u0000<tag>:<n>\u0000".
  const marker = new RegExp(
    `"${JSON.stringify(tag).slice(1, -1).replaceAll('\\', '\\\\')}(\\d+)\\\\u0000"`,
    'g',
  );
  const found = [...skeleton.matchAll(marker)];
  if (found.length !== big.length) return Buffer.from(JSON.stringify(value));
  const pieces: Buffer[] = [];
  let at = 0;
  for (const m of found) {
    pieces.push(Buffer.from(skeleton.slice(at, m.index)));
    pieces.push(Buffer.from('"'));
    for (const slice of textSlices(big[Number(m[1])]!, SLICE_CHARS)) {
      await yieldToEventLoop();
      pieces.push(Buffer.from(JSON.stringify(slice).slice(1, -1)));
    }
    pieces.push(Buffer.from('"'));
    at = m.index + m[0].length;
  }
  pieces.push(Buffer.from(skeleton.slice(at)));
  await yieldToEventLoop();
  return Buffer.concat(pieces);
}
