import { describe, expect, it } from 'vitest';
import { criticalOverflow, decayChanges, expiredReminders } from '../../src/memory/decay.js';
import { DAY_MS } from '../../src/memory/select.js';
import type { Memory } from '../../src/memory/types.js';
import { mem, NOW } from './memory-factory.js';

describe('decayChanges', () => {
  it('steps each tier down after its age threshold, measured from createdAt', () => {
    const list = [
      mem(1, { priority: 0, createdAt: NOW - 31 * DAY_MS }),
      mem(2, { priority: 0, createdAt: NOW - 30 * DAY_MS }),
      mem(3, { priority: 1, createdAt: NOW - 61 * DAY_MS }),
      mem(4, { priority: 1, createdAt: NOW - 59 * DAY_MS }),
      mem(5, { priority: 2, createdAt: NOW - 91 * DAY_MS }),
      mem(6, { priority: 2, createdAt: NOW - 89 * DAY_MS }),
      mem(7, { priority: 3, createdAt: NOW - 900 * DAY_MS }),
    ];
    expect(decayChanges(list, NOW)).toEqual([
      { id: 1, priority: 1 },
      { id: 3, priority: 2 },
      { id: 5, priority: 3 },
    ]);
  });

  it('moves at most one step per call', () => {
    const old = mem(1, { priority: 0, createdAt: NOW - 200 * DAY_MS });
    expect(decayChanges([old], NOW)).toEqual([{ id: 1, priority: 1 }]);
    const after = { ...old, priority: 1 as const };
    expect(decayChanges([after], NOW)).toEqual([{ id: 1, priority: 2 }]);
  });

  it('exempts pinned memories and ignores deleted or superseded ones', () => {
    const list = [
      mem(1, { priority: 0, pinned: true, createdAt: NOW - 400 * DAY_MS }),
      mem(2, { priority: 1, deletedAt: NOW - 1, createdAt: NOW - 400 * DAY_MS }),
      mem(3, { priority: 2, supersededBy: 9, validTo: NOW - 5, createdAt: NOW - 400 * DAY_MS }),
    ];
    expect(decayChanges(list, NOW)).toEqual([]);
  });
});

describe('expiredReminders', () => {
  it('lists live reminders whose due time has passed', () => {
    const list = [
      mem(1, { category: 'reminder', expiresAt: NOW - 1 }),
      mem(2, { category: 'reminder', expiresAt: NOW }),
      mem(3, { category: 'reminder', expiresAt: NOW + 1 }),
      mem(4, { category: 'reminder', expiresAt: null }),
      mem(5, { category: 'fact', expiresAt: NOW - 1 }),
      mem(6, { category: 'reminder', expiresAt: NOW - 1, deletedAt: NOW - 1 }),
      mem(7, { category: 'reminder', expiresAt: NOW - 1, pinned: true }),
    ];
    expect(expiredReminders(list, NOW)).toEqual([1, 2, 7]);
  });
});

describe('criticalOverflow', () => {
  const critical = (id: number, ageDays: number, over: Partial<Memory> = {}) =>
    mem(id, { priority: 0, createdAt: NOW - ageDays * DAY_MS, ...over });

  it('returns nothing at or under the cap', () => {
    const list = Array.from({ length: 15 }, (_, i) => critical(i + 1, i));
    expect(criticalOverflow(list)).toEqual([]);
  });

  it('evicts the oldest beyond the cap, first in first out', () => {
    const list = Array.from({ length: 18 }, (_, i) => critical(i + 1, i)); // id 18 is oldest
    list.push(mem(50, { priority: 1, createdAt: NOW - 999 * DAY_MS }));
    expect(criticalOverflow(list)).toEqual([18, 17, 16]);
    expect(criticalOverflow(list, 16)).toEqual([18, 17]);
  });

  it('breaks equal ages by lower id first', () => {
    const list = [critical(3, 5), critical(1, 5), critical(2, 1)];
    expect(criticalOverflow(list, 1)).toEqual([1, 3]);
  });

  it('never evicts pinned memories, though they count toward the cap', () => {
    const list = [
      critical(1, 10, { pinned: true }),
      critical(2, 9, { pinned: true }),
      critical(3, 1),
      critical(4, 2),
    ];
    expect(criticalOverflow(list, 2)).toEqual([4, 3]);
    expect(criticalOverflow(list, 1)).toEqual([4, 3]);
  });

  it('ignores deleted and superseded CRITICAL memories', () => {
    const list = [
      critical(1, 10, { deletedAt: NOW - 1 }),
      critical(2, 9, { supersededBy: 3, validTo: NOW }),
      critical(3, 1),
    ];
    expect(criticalOverflow(list, 1)).toEqual([]);
  });
});
