import { describe, expect, it } from 'vitest';
import { formatMemoryLine } from '../../src/memory/format.js';
import {
  DAY_MS,
  isActive,
  priorityFactor,
  recencyFactor,
  scoreMemory,
  selectMemories,
} from '../../src/memory/select.js';
import type { Memory } from '../../src/memory/types.js';
import { mem, NOW } from './memory-factory.js';

const none = new Map<number, number>();
const ids = (list: Memory[]) => list.map((m) => m.id);

describe('scoring', () => {
  it('uses the recency steps at their boundaries', () => {
    expect(recencyFactor(0)).toBe(1);
    expect(recencyFactor(DAY_MS)).toBe(1);
    expect(recencyFactor(DAY_MS + 1)).toBe(0.9);
    expect(recencyFactor(7 * DAY_MS)).toBe(0.9);
    expect(recencyFactor(30 * DAY_MS)).toBe(0.7);
    expect(recencyFactor(90 * DAY_MS)).toBe(0.5);
    expect(recencyFactor(90 * DAY_MS + 1)).toBe(0.3);
  });

  it('maps priorities to (4 - p) / 4', () => {
    expect([0, 1, 2, 3].map((p) => priorityFactor(p as 0 | 1 | 2 | 3))).toEqual([1, 0.75, 0.5, 0.25]);
  });

  it('multiplies relevance, importance, recency and priority', () => {
    const m = mem(1, { importance: 4, priority: 1, createdAt: NOW - 3 * DAY_MS });
    expect(scoreMemory(m, 0.8, NOW)).toBeCloseTo(0.8 * 0.8 * 0.9 * 0.75, 12);
    const old = mem(2, { importance: 2, priority: 2, createdAt: NOW - 60 * DAY_MS });
    expect(scoreMemory(old, 0.5, NOW)).toBeCloseTo(0.5 * 0.4 * 0.5 * 0.5, 12);
  });

  it('floors relevance at 0.05 and clamps values outside 0..1', () => {
    const m = mem(1, { importance: 5, priority: 3 });
    expect(scoreMemory(m, 0, NOW)).toBeCloseTo(0.05 * 1 * 1 * 0.25, 12);
    expect(scoreMemory(m, 7, NOW)).toBeCloseTo(0.25, 12);
    expect(scoreMemory(mem(2, { importance: 9, priority: 0 }), 1, NOW)).toBe(1);
  });
});

describe('isActive', () => {
  it('rejects deleted, superseded, ended and expired memories', () => {
    expect(isActive(mem(1), NOW)).toBe(true);
    expect(isActive(mem(1, { deletedAt: NOW - 1 }), NOW)).toBe(false);
    expect(isActive(mem(1, { supersededBy: 9 }), NOW)).toBe(false);
    expect(isActive(mem(1, { validTo: NOW }), NOW)).toBe(false);
    expect(isActive(mem(1, { expiresAt: NOW }), NOW)).toBe(false);
    expect(isActive(mem(1, { expiresAt: NOW + 1 }), NOW)).toBe(true);
  });
});

describe('selectMemories', () => {
  it('orders non-critical memories by score, relevance first', () => {
    const list = [mem(1), mem(2), mem(3)];
    const relevance = new Map([
      [2, 0.9],
      [3, 0.4],
    ]);
    expect(ids(selectMemories(list, { relevance, now: NOW }))).toEqual([2, 3, 1]);
  });

  it('breaks ties deterministically: priority, then newer, then lower id', () => {
    const list = [
      mem(5, { createdAt: NOW - 1000 }),
      mem(4, { createdAt: NOW - 1000 }),
      mem(3, { createdAt: NOW - 10 }),
    ];
    expect(ids(selectMemories(list, { relevance: none, now: NOW }))).toEqual([3, 4, 5]);
    expect(ids(selectMemories([...list].reverse(), { relevance: none, now: NOW }))).toEqual([3, 4, 5]);
  });

  it('takes CRITICAL first, newest first, capped at 10', () => {
    const critical = Array.from({ length: 14 }, (_, i) =>
      mem(100 + i, { priority: 0, createdAt: NOW - (14 - i) * 1000 }),
    );
    const picked = selectMemories(critical, { relevance: none, now: NOW });
    expect(ids(picked)).toEqual([113, 112, 111, 110, 109, 108, 107, 106, 105, 104]);
  });

  it('never fills up with CRITICAL only: tier quotas survive a small max', () => {
    const critical = Array.from({ length: 12 }, (_, i) => mem(100 + i, { priority: 0, createdAt: NOW - i }));
    const high = Array.from({ length: 5 }, (_, i) => mem(200 + i, { priority: 1 }));
    const medium = Array.from({ length: 4 }, (_, i) => mem(300 + i, { priority: 2 }));
    const low = Array.from({ length: 3 }, (_, i) => mem(400 + i, { priority: 3 }));
    const picked = selectMemories([...critical, ...high, ...medium, ...low], {
      relevance: none,
      now: NOW,
      max: 12,
    });
    const count = (p: number) => picked.filter((m) => m.priority === p).length;
    expect(picked).toHaveLength(12);
    expect(count(0)).toBe(6);
    expect(count(1)).toBe(3);
    expect(count(2)).toBe(2);
    expect(count(3)).toBe(1);
    expect(ids(picked).slice(0, 6)).toEqual([100, 101, 102, 103, 104, 105]);
  });

  it('guarantees HIGH 3, MEDIUM 2, LOW 1 even when other tiers score higher', () => {
    // Medium memories are very relevant; high and low ones are not.
    const medium = Array.from({ length: 8 }, (_, i) => mem(300 + i, { priority: 2, importance: 5 }));
    const high = Array.from({ length: 4 }, (_, i) => mem(200 + i, { priority: 1, importance: 1 }));
    const low = [mem(400, { priority: 3, importance: 1 }), mem(401, { priority: 3, importance: 2 })];
    const relevance = new Map(medium.map((m) => [m.id, 1]));
    const picked = selectMemories([...high, ...low, ...medium], { relevance, now: NOW, max: 8 });
    expect(picked.filter((m) => m.priority === 1)).toHaveLength(3);
    expect(picked.filter((m) => m.priority === 3).map((m) => m.id)).toEqual([401]);
    expect(picked.filter((m) => m.priority === 2)).toHaveLength(4);
    // Result is sorted by score: the relevant medium ones lead.
    expect(picked[0]?.priority).toBe(2);
  });

  it('fills the remaining slots by free competition up to max', () => {
    const list = Array.from({ length: 40 }, (_, i) => mem(i + 1, { priority: 2 }));
    const relevance = new Map(list.map((m) => [m.id, m.id / 100]));
    const picked = selectMemories(list, { relevance, now: NOW });
    expect(picked).toHaveLength(30);
    expect(ids(picked)[0]).toBe(40);
    expect(Math.min(...ids(picked))).toBe(11);
  });

  it('respects the token cap, counted on formatted lines, skipping what does not fit', () => {
    const big = mem(1, { content: 'x'.repeat(400), importance: 5 });
    const small = [mem(2), mem(3), mem(4)];
    const relevance = new Map([[1, 1]]);
    const lineCost = (m: Memory) => formatMemoryLine(m).length;
    const cap = lineCost(small[0]!) * 2 + 1;
    const picked = selectMemories([big, ...small], {
      relevance,
      now: NOW,
      tokenCap: cap,
      estimateTokens: (t) => t.length,
    });
    expect(ids(picked)).toEqual([2, 3]);
    const total = picked.reduce((sum, m) => sum + lineCost(m), 0);
    expect(total).toBeLessThanOrEqual(cap);
  });

  it('uses chars/4 by default for the token cap', () => {
    const list = Array.from({ length: 10 }, (_, i) => mem(i + 1, { content: 'y'.repeat(380) }));
    // Each line is ~100 tokens by chars/4; a 250-token cap fits two.
    expect(selectMemories(list, { relevance: none, now: NOW, tokenCap: 250 })).toHaveLength(2);
  });

  it('skips inactive memories', () => {
    const list = [
      mem(1, { deletedAt: NOW - 5 }),
      mem(2, { supersededBy: 3, validTo: NOW - 5 }),
      mem(3),
      mem(4, { category: 'reminder', expiresAt: NOW - 1 }),
      mem(5, { priority: 0, deletedAt: NOW - 1 }),
    ];
    const relevance = new Map([
      [1, 1],
      [2, 1],
      [4, 1],
    ]);
    expect(ids(selectMemories(list, { relevance, now: NOW }))).toEqual([3]);
  });

  it('does not mutate its input', () => {
    const list = [mem(3, { priority: 0, createdAt: NOW - 5 }), mem(1), mem(2, { priority: 0 })];
    const before = structuredClone(list);
    selectMemories(list, { relevance: new Map([[1, 1]]), now: NOW });
    expect(list).toEqual(before);
  });

  it('returns nothing for max 0 or an empty pool', () => {
    expect(selectMemories([mem(1)], { relevance: none, now: NOW, max: 0 })).toEqual([]);
    expect(selectMemories([], { relevance: none, now: NOW })).toEqual([]);
  });
});
