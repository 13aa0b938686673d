/**
 * Long texts in memory: segmentation in bounded pieces gives the segments the whole
 * text gives, and a long search query is read by its two ends (query-slice.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import { QUERY_HEAD_CHARS, QUERY_TAIL_CHARS } from '../../src/memory/query-slice.js';
import { segmentWords } from '../../src/memory/segment.js';
import { MemoryService } from '../../src/memory/service.js';
import { segmentWordsOf, wordPieces } from '../../src/memory/words.js';
import { PIECE_CHARS, textPieces } from '../../src/util/segment-pieces.js';
import { useStore } from '../store/helpers.js';

const icu = new Intl.Segmenter('zh', { granularity: 'word' });
const show = (pieces: Iterable<{ segment: string; isWordLike?: boolean }>) =>
  Array.from(pieces, (p) => `${p.segment}${p.isWordLike ? '*' : ''}`).join('|');

/** Varied text: English, Chinese with and without punctuation, tabs, CRLF, emoji, accents, marks. */
const MIXED = [
  'The staging API of Heron runs on port 9090.   Then\t\tit moved.\r\n',
  '部署计费服务到东京二区失败了，请检查日志。',
  '张伟负责计费服务的迁移工作他说下周完成',
  ' café naïve e\u0301 👩‍💻 (v2.3.1) [PROJ-142] {a:b} <x> ',
  "don't 1,000 a.b.c 你好！世界？\n\n",
];

function mixedText(chars: number): string {
  let out = '';
  for (let i = 0; out.length < chars; i++) out += MIXED[i % MIXED.length];
  return out;
}

describe('segmentation in pieces', () => {
  it('gives the segments of the whole text, piece boundaries included', () => {
    const text = mixedText(PIECE_CHARS * 12);
    expect(show(wordPieces(text))).toBe(show(icu.segment(text)));
    expect(show(segmentWordsOf(text))).toBe(show(icu.segment(text)));
  });

  it('cuts a run with no word boundary between code points, never inside a pair', () => {
    const text = '𠀀'.repeat(PIECE_CHARS * 5);
    const pieces = [...textPieces(text)];
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.map((p) => p.text).join('')).toBe(text);
    for (const p of pieces) expect(p.text.length % 2).toBe(0);
  });

  it('never hands the segmenter more than a bounded piece', () => {
    const original = Intl.Segmenter.prototype.segment;
    let longest = 0;
    const spy = vi.spyOn(Intl.Segmenter.prototype, 'segment').mockImplementation(function (
      this: Intl.Segmenter,
      text,
    ) {
      longest = Math.max(longest, String(text).length);
      // One long string is quadratic in V8: fail at once rather than wait minutes.
      if (longest > PIECE_CHARS * 4) throw new Error(`segmented ${longest} characters at once`);
      return original.call(this, String(text));
    });
    try {
      expect(segmentWords(mixedText(512 * 1024)).length).toBeGreaterThan(50_000);
    } finally {
      spy.mockRestore();
    }
    expect(longest).toBeLessThanOrEqual(PIECE_CHARS * 4);
  });
});

describe('a long search query', () => {
  const open = useStore();
  const filler = 'The deploy of billing-api failed at 03:14 with error E1234. '.repeat(2_000);

  it('is searched by its start and end, not its middle', async () => {
    const memory = new MemoryService({ db: open().store.db });
    await memory.remember({ content: 'The user likes marmalade on toast', category: 'preference' });
    expect(filler.length).toBeGreaterThan(QUERY_HEAD_CHARS + QUERY_TAIL_CHARS);
    const content = (q: string) => memory.search(q).then((hits) => hits.map((h) => h.memory.content));
    expect(await content(`${filler} marmalade? ${filler}`)).toEqual([]);
    expect(await content(`${filler} do I like marmalade?`)).toEqual(['The user likes marmalade on toast']);
    expect(await content(`marmalade? ${filler}`)).toEqual(['The user likes marmalade on toast']);
  });
});
