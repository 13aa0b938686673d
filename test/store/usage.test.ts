import { describe, expect, it } from 'vitest';
import type { UsageRow } from '../../src/store/index.js';
import { steppingClock, storeError, useStore } from './helpers.js';

const openStore = useStore({ now: steppingClock() });

const call = (overrides: Partial<UsageRow> = {}): Omit<UsageRow, 'createdAt'> => ({
  sessionId: 's',
  turnId: 't1',
  profile: 'main',
  model: 'gpt-x',
  inputTokens: 1000,
  outputTokens: 200,
  cachedInputTokens: 300,
  reasoningTokens: 50,
  costUsd: 0.0125,
  ...overrides,
});

describe('usage', () => {
  it('starts at zero and sums recorded calls per session', () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    store.sessions.create({ id: 'other', cwd: '/w' });
    expect(store.usage.totals('s')).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      cachedInputTokens: 0,
      reasoningTokens: 0,
      costUsd: 0,
      calls: 0,
    });

    store.usage.record(call());
    store.usage.record(
      call({
        turnId: 't2',
        profile: 'cheap',
        model: 'mini',
        inputTokens: 10,
        outputTokens: 5,
        cachedInputTokens: 0,
        reasoningTokens: 0,
        costUsd: 0.0005,
      }),
    );
    store.usage.record(call({ sessionId: 'other', inputTokens: 7 }));

    const totals = store.usage.totals('s');
    expect(totals).toMatchObject({
      inputTokens: 1010,
      outputTokens: 205,
      cachedInputTokens: 300,
      reasoningTokens: 50,
      calls: 2,
    });
    expect(totals.costUsd).toBeCloseTo(0.013, 10);
    expect(store.usage.totals('other')).toMatchObject({ inputTokens: 7, calls: 1 });

    const rows = store.usage.bySession('s');
    expect(rows.map((r) => [r.turnId, r.model, r.inputTokens])).toEqual([
      ['t1', 'gpt-x', 1000],
      ['t2', 'mini', 10],
    ]);
    expect(rows[0]).toEqual({ ...call(), createdAt: rows[0]!.createdAt });
    expect(rows[1]!.createdAt).toBeGreaterThan(rows[0]!.createdAt);
  });

  it("last: the session's newest model call of a turn (not a background job's), none before the first", () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    store.sessions.create({ id: 'other', cwd: '/w' });
    expect(store.usage.last('s')).toBeUndefined();
    store.usage.record(call({ inputTokens: 1000 }));
    store.usage.record(call({ turnId: 't2', inputTokens: 4000 }));
    store.usage.record(call({ sessionId: 'other', inputTokens: 9 }));
    store.usage.record(call({ turnId: 'background:memory', inputTokens: 50 }));
    expect(store.usage.last('s')).toMatchObject({ turnId: 't2', inputTokens: 4000, outputTokens: 200 });
    expect(store.usage.last('other')).toMatchObject({ inputTokens: 9 });
  });

  it('rejects unknown sessions and bad numbers, recording nothing', () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    expect(storeError(() => store.usage.record(call({ sessionId: 'ghost' }))).message).toBe(
      "cannot record usage: session not found: 'ghost'",
    );
    expect(storeError(() => store.usage.record(call({ inputTokens: -1 }))).message).toMatch(
      /inputTokens must be an integer >= 0, got -1/,
    );
    expect(storeError(() => store.usage.record(call({ outputTokens: 1.5 }))).message).toMatch(/outputTokens/);
    expect(storeError(() => store.usage.record(call({ costUsd: Number.POSITIVE_INFINITY }))).message).toMatch(
      /costUsd must be a finite number/,
    );
    expect(store.usage.totals('s').calls).toBe(0);
  });
});
