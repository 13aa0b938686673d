import { describe, expect, it } from 'vitest';
import { type ThinkSegment, ThinkTagSplitter } from '../../src/llm/think-tags.js';

/** Feeds the chunks and merges adjacent segments of one kind, as a consumer would see them. */
function run(chunks: string[]): ThinkSegment[] {
  const splitter = new ThinkTagSplitter();
  const raw = [...chunks.flatMap((c) => splitter.push(c)), ...splitter.flush()];
  const merged: ThinkSegment[] = [];
  for (const seg of raw) {
    const last = merged.at(-1);
    if (last?.type === seg.type) last.text += seg.text;
    else merged.push({ ...seg });
  }
  return merged;
}

/** Every way of cutting `s` into two chunks, plus one chunk per character. */
function cuts(s: string): string[][] {
  const out: string[][] = [[s], Array.from(s)];
  for (let i = 1; i < s.length; i++) out.push([s.slice(0, i), s.slice(i)]);
  return out;
}

describe('ThinkTagSplitter', () => {
  it('passes plain text through unchanged', () => {
    expect(run(['hello ', 'world'])).toEqual([{ type: 'text', text: 'hello world' }]);
  });

  it('separates a think block from the answer, trimming layout whitespace after tags', () => {
    expect(run(['<think>\nweighing options\n</think>\n\nThe answer is 4.'])).toEqual([
      { type: 'thinking', text: 'weighing options\n' },
      { type: 'text', text: 'The answer is 4.' },
    ]);
  });

  it('gives the same result wherever the chunks are cut', () => {
    const input = 'pre<think>deep thought</think>post';
    for (const chunks of cuts(input)) {
      expect(run(chunks), JSON.stringify(chunks)).toEqual([
        { type: 'text', text: 'pre' },
        { type: 'thinking', text: 'deep thought' },
        { type: 'text', text: 'post' },
      ]);
    }
  });

  it('holds back a possible partial tag until the next chunk decides', () => {
    const splitter = new ThinkTagSplitter();
    expect(splitter.push('a <thi')).toEqual([{ type: 'text', text: 'a ' }]);
    expect(splitter.push('s is not a tag')).toEqual([{ type: 'text', text: '<this is not a tag' }]);
  });

  it('releases a held-back fragment on flush', () => {
    const splitter = new ThinkTagSplitter();
    expect(splitter.push('ends with <')).toEqual([{ type: 'text', text: 'ends with ' }]);
    expect(splitter.flush()).toEqual([{ type: 'text', text: '<' }]);
  });

  it('keeps an unclosed think block as thinking', () => {
    expect(run(['<think>still going', ' on'])).toEqual([{ type: 'thinking', text: 'still going on' }]);
  });

  it('handles several think blocks', () => {
    expect(run(['<think>a</think>b<think>c</think>d'])).toEqual([
      { type: 'thinking', text: 'a' },
      { type: 'text', text: 'b' },
      { type: 'thinking', text: 'c' },
      { type: 'text', text: 'd' },
    ]);
  });

  it('emits nothing for an empty think block', () => {
    expect(run(['<think></think>answer'])).toEqual([{ type: 'text', text: 'answer' }]);
  });
});
