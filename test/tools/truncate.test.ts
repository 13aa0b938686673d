import { describe, expect, it } from 'vitest';
import { HeadTailBuffer, truncateHeadTail } from '../../src/tools/truncate.js';

const numbered = (n: number): string => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\n');

describe('truncateHeadTail', () => {
  it('returns short text unchanged', () => {
    expect(truncateHeadTail('abc\ndef', 100)).toBe('abc\ndef');
  });

  it('keeps whole lines from head and tail with an exact omitted count', () => {
    const text = numbered(1000);
    const out = truncateHeadTail(text, 500);
    expect(out.length).toBeLessThanOrEqual(500);
    expect(out.startsWith('line 1\nline 2\n')).toBe(true);
    expect(out.endsWith('line 999\nline 1000')).toBe(true);
    const marker = /… \[(\d+) lines \/ (\d+) chars omitted\] …/.exec(out);
    expect(marker).not.toBeNull();
    const [head, tail] = out.split(/… \[.*\] …\n/);
    // Every kept line is whole.
    for (const line of `${head}${tail}`.split('\n').filter((l) => l.length > 0)) {
      expect(line).toMatch(/^line \d+$/);
    }
    expect(head!.length + Number(marker![2]) + tail!.length).toBe(text.length);
    const keptLines = `${head}${tail}`.split('\n').filter((l) => l.length > 0).length;
    expect(keptLines + Number(marker![1])).toBe(1000);
  });

  it('cuts a single huge line by characters', () => {
    const out = truncateHeadTail('x'.repeat(100_000), 1000);
    expect(out.length).toBeLessThanOrEqual(1000);
    expect(out).toMatch(/chars omitted/);
    expect(out.startsWith('xxxx')).toBe(true);
    expect(out.endsWith('xxxx')).toBe(true);
  });
});

describe('HeadTailBuffer', () => {
  it('matches truncateHeadTail when nothing is dropped', () => {
    const buffer = new HeadTailBuffer(10_000);
    const text = numbered(300);
    for (let i = 0; i < text.length; i += 97) buffer.push(text.slice(i, i + 97));
    expect(buffer.toString(800)).toBe(truncateHeadTail(text, 800));
  });

  it('holds bounded memory yet reports everything that was dropped', () => {
    const buffer = new HeadTailBuffer(1000);
    const text = numbered(20_000);
    for (let i = 0; i < text.length; i += 333) buffer.push(text.slice(i, i + 333));
    expect(buffer.totalChars).toBe(text.length);
    const out = buffer.toString(2000);
    expect(out.length).toBeLessThanOrEqual(2000);
    expect(out.startsWith('line 1\n')).toBe(true);
    expect(out.endsWith('line 20000')).toBe(true);
    const marker = /… \[(\d+) lines \/ (\d+) chars omitted\] …\n/.exec(out)!;
    const kept = out.replace(marker[0], '');
    expect(kept.length + Number(marker[2])).toBe(text.length);
    const keptLines = kept.split('\n').length;
    expect(keptLines + Number(marker[1])).toBe(20_000);
  });
});
