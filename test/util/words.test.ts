import { describe, expect, it } from 'vitest';
import { wordRuns } from '../../src/util/words.js';

const PLAIN = /[\p{L}\p{N}_]+/gu;
const DOTTED = /[\p{L}\p{N}_.]+/gu;

/** A random string over `alphabet` (a tiny LCG: the same cases every run). */
function randomText(seed: number, alphabet: string[], length: number): string {
  let x = seed;
  let out = '';
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    out += alphabet[x % alphabet.length];
  }
  return out;
}

describe('word runs', () => {
  const ascii = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i));
  const wide = [...ascii, 'é', 'ß', '你', '好', '，', '。', '١', '²', '😀', 'Ж', '\u00a0', '\u2028'];

  it('are what the Unicode classes find, for ASCII text and for any other', () => {
    for (let seed = 1; seed <= 300; seed++) {
      for (const alphabet of [ascii, wide]) {
        const text = randomText(seed, alphabet, 40 + (seed % 60));
        expect(wordRuns(text)).toEqual(text.match(PLAIN) ?? []);
        expect(wordRuns(text, true)).toEqual(text.match(DOTTED) ?? []);
      }
    }
  });

  it('split snake_case, dotted names and CJK as before', () => {
    expect(wordRuns('read the package.json of web_fetch')).toEqual([
      'read',
      'the',
      'package',
      'json',
      'of',
      'web_fetch',
    ]);
    expect(wordRuns('read the package.json', true)).toEqual(['read', 'the', 'package.json']);
    expect(wordRuns('用 git_log 看看，好吗')).toEqual(['用', 'git_log', '看看', '好吗']);
  });
});
