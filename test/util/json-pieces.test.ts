import { describe, expect, it } from 'vitest';
import { BIG_STRING_CHARS, jsonBytes } from '../../src/util/json-pieces.js';

const same = async (value: unknown) =>
  expect((await jsonBytes(value)).equals(Buffer.from(JSON.stringify(value)))).toBe(true);

/** A deterministic generator (mulberry32): the same "random" text on every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('jsonBytes: JSON that yields between slices of big strings', () => {
  it('gives exactly the bytes of JSON.stringify for small and big values', async () => {
    const big = 'deploy 部署 "quoted" \\ back\n\t😀\u2028\u0001 '.repeat(20_000);
    await same({ model: 'm', messages: [{ role: 'user', content: big }], n: 1, ok: true, none: null });
    await same([big, 'small', { nested: `${big}😀` }, big]);
    await same('x'.repeat(BIG_STRING_CHARS + 1));
    await same({ short: 'just text', list: [1, 2, 3] });
    await same('😀'.repeat(BIG_STRING_CHARS * 2 + 1));
  });

  it('never splits a surrogate pair, and escapes lone surrogates as JSON.stringify does', async () => {
    const next = rng(7);
    const pool = ['a', '部', '😀', '\ud800', '\udc00', '"', '\\', '\n', '\u0000'];
    for (let round = 0; round < 4; round++) {
      let text = '';
      while (text.length < BIG_STRING_CHARS * 3) text += pool[Math.floor(next() * pool.length)];
      await same({ text });
    }
  });

  it('is not fooled by a string that looks like its internal marker', async () => {
    await same({ s: '\u0000deadbeefdeadbeef:0\u0000', big: 'y'.repeat(BIG_STRING_CHARS + 5) });
  });

  it('lets timers run while it encodes a 5 MB string', async () => {
    const text = 'The deploy failed. 部署失败了。\n'.repeat(200_000);
    let ticks = 0;
    const timer = setInterval(() => {
      ticks++;
    }, 0);
    try {
      await jsonBytes({ content: text });
    } finally {
      clearInterval(timer);
    }
    expect(ticks).toBeGreaterThan(3);
  });
});
