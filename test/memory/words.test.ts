/**
 * The ASCII word scanner must split exactly as ICU's word segmenter does: the
 * word index was built with one and may be queried with the other.
 */
import { describe, expect, it } from 'vitest';
import { wordPieces } from '../../src/memory/words.js';

const icu = new Intl.Segmenter('zh', { granularity: 'word' });
const show = (pieces: Iterable<{ segment: string; isWordLike?: boolean }>) =>
  Array.from(pieces, (p) => `${p.segment}${p.isWordLike ? '*' : ''}`).join('|');

/** A seeded generator of ASCII strings dense in the characters the word rules care about. */
function* randomAscii(count: number): Generator<string> {
  const alphabet = 'aZq09_.,;:\'"-/ @#!?()[]{}$%^&*+=<>|\\`~\t';
  let seed = 20261201;
  const next = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 2 ** 32;
  };
  for (let i = 0; i < count; i++) {
    let s = '';
    const n = 1 + Math.floor(next() * 16);
    for (let k = 0; k < n; k++) s += alphabet[Math.floor(next() * alphabet.length)];
    yield s;
  }
}

const SAMPLES = [
  'The staging API of Heron runs on port 9090.',
  "Heron's staging API now listens on 9191; it didn't before.",
  'PROJ-142 is assigned to Dana Whitfield (see api.heron.example.com).',
  'Set max_retries = 5 in config/prod.yaml, v2.3.1 → v2.4.0, 1,000,000 rows; 3.14 and e.g. U.S.A.',
  'Run `npm run test:unit --filter heron-core` at 16:30 on Tuesdays.',
  "a.b.c 1.a a.1 a'1 1'a a:b x__y _x_ __ 1_2 a._b a_.b ... 1.. ..1 1,a a,1 1;2 a;b   three   spaces\t\ttabs",
];

describe('wordPieces (ASCII) agrees with Intl.Segmenter', () => {
  it.each(SAMPLES)('%s', (text) => {
    expect(show(wordPieces(text))).toBe(show(icu.segment(text)));
  });

  it('on 20,000 random strings of the characters that matter', () => {
    const differ: string[] = [];
    for (const text of randomAscii(20_000)) {
      if (show(wordPieces(text)) !== show(icu.segment(text))) differ.push(text);
    }
    expect(differ).toEqual([]);
  });

  it('hands anything beyond ASCII to ICU (Chinese, accents)', () => {
    for (const text of ['王磊每天早上都要喝一杯豆浆。', 'Café Zürich', 'Heron部署在Fly.io上']) {
      expect(show(wordPieces(text))).toBe(show(icu.segment(text)));
    }
  });
});
