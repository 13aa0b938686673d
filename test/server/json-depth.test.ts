/** The JSON depth scanner agrees with a plain character walk, however the input is split. */
import { describe, expect, it } from 'vitest';
import { DepthScanner, jsonDepth } from '../../src/server/json-depth.js';

function naive(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  let escaped = false;
  for (const ch of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') deepest = Math.max(deepest, ++depth);
    else if (ch === ']' || ch === '}') depth--;
  }
  return deepest;
}

describe('DepthScanner', () => {
  it('counts brackets outside strings only, escapes included', () => {
    expect(jsonDepth('{"a": [[1], {"b": "[[[{{{"}], "c": "\\\\"}')).toBe(3);
    expect(jsonDepth('"\\"[[["')).toBe(0);
    expect(jsonDepth('[[["中文"]]]')).toBe(3);
  });

  it('agrees with a plain walk on random input split anywhere, as text and as UTF-8 bytes', () => {
    const alphabet = ['[', ']', '{', '}', '"', '\\', 'a', '中', ' ', '😀'];
    let seed = 7;
    const random = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    for (let k = 0; k < 2000; k++) {
      let text = '';
      for (let n = Math.floor(random() * 60); n > 0; n--)
        text += alphabet[Math.floor(random() * alphabet.length)];
      const expected = naive(text);
      const bytes = Buffer.from(text);
      const byBytes = new DepthScanner();
      const cut = Math.floor(random() * (bytes.length + 1));
      byBytes.push(bytes.subarray(0, cut), Number.POSITIVE_INFINITY);
      byBytes.push(bytes.subarray(cut), Number.POSITIVE_INFINITY);
      const byText = new DepthScanner();
      const at = Math.floor(random() * (text.length + 1));
      byText.push(text.slice(0, at), Number.POSITIVE_INFINITY);
      byText.push(text.slice(at), Number.POSITIVE_INFINITY);
      expect([byBytes.deepest, byText.deepest, text]).toEqual([expected, expected, text]);
    }
  });
});
