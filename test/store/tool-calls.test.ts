import { describe, expect, it } from 'vitest';
import { steppingClock, storeError, useStore } from './helpers.js';

const openStore = useStore({ now: steppingClock(1_000_000) });

describe('tool calls', () => {
  it('records start and finish, and lists unfinished calls as running', () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    store.toolCalls.start('s', { callId: 'c1', turnId: 't1', name: 'read_file', args: { path: 'a.ts' } });
    store.toolCalls.start('s', { callId: 'c2', turnId: 't1', name: 'bash', args: { cmd: 'ls', n: [1, 2] } });
    store.toolCalls.start('s', { callId: 'c3', turnId: 't1', name: 'write', args: {} });

    expect(store.toolCalls.running('s').map((c) => c.callId)).toEqual(['c1', 'c2', 'c3']);
    const started = store.toolCalls.list('s')[1]!;
    expect(started).toEqual({
      callId: 'c2',
      sessionId: 's',
      turnId: 't1',
      name: 'bash',
      args: { cmd: 'ls', n: [1, 2] },
      state: 'running',
      output: null,
      createdAt: started.createdAt,
      startedAt: started.createdAt,
      finishedAt: null,
      durationMs: null,
    });

    store.toolCalls.finish('c1', { state: 'completed', output: 'contents', durationMs: 12 });
    store.toolCalls.finish('c3', { state: 'cancelled', output: 'cancelled by user', durationMs: 3.5 }, 's');

    expect(store.toolCalls.running('s').map((c) => c.callId)).toEqual(['c2']);
    const [c1, , c3] = store.toolCalls.list('s');
    expect(c1).toMatchObject({ state: 'completed', output: 'contents', durationMs: 12 });
    expect(c1!.finishedAt).toBeGreaterThan(c1!.startedAt!);
    expect(c3).toMatchObject({ state: 'cancelled', output: 'cancelled by user', durationMs: 3.5 });
  });

  it('lists the calls of some turns only, in order, and none for no turns', () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    store.sessions.create({ id: 'other', cwd: '/w' });
    for (const [callId, turnId] of [
      ['a', 't1'],
      ['b', 't2'],
      ['c', 't3'],
      ['d', 't1'],
    ] as const) {
      store.toolCalls.start('s', { callId, turnId, name: 'read_file', args: {} });
    }
    store.toolCalls.start('other', { callId: 'e', turnId: 't1', name: 'read_file', args: {} });
    expect(store.toolCalls.listForTurns('s', ['t1', 't3']).map((c) => c.callId)).toEqual(['a', 'c', 'd']);
    expect(store.toolCalls.listForTurns('s', ["t1' OR 1=1 --"])).toEqual([]);
    expect(store.toolCalls.listForTurns('s', [])).toEqual([]);
  });

  it('keeps the same call id apart in different sessions', () => {
    const { store } = openStore();
    store.sessions.create({ id: 'a', cwd: '/w' });
    store.sessions.create({ id: 'b', cwd: '/w' });
    store.toolCalls.start('a', { callId: 'call_0', turnId: 't', name: 'x', args: { from: 'a' } });
    store.toolCalls.start('b', { callId: 'call_0', turnId: 't', name: 'x', args: { from: 'b' } });

    store.toolCalls.finish('call_0', { state: 'error', output: '[ERROR] a failed', durationMs: 1 }, 'a');
    expect(store.toolCalls.list('a')[0]).toMatchObject({ state: 'error', args: { from: 'a' } });
    expect(store.toolCalls.running('b').map((c) => c.args)).toEqual([{ from: 'b' }]);

    // without a session id, the unfinished one is picked
    store.toolCalls.finish('call_0', { state: 'skipped', output: 'skipped', durationMs: 0 });
    expect(store.toolCalls.list('b')[0]).toMatchObject({ state: 'skipped' });
    expect(store.toolCalls.list('a')[0]).toMatchObject({ state: 'error' });
  });

  it("save: a record's first sight inserts its row, later states update it, an ended call stays ended", () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    store.sessions.create({ id: 'other', cwd: '/w' });
    const record = {
      callId: 'c1',
      turnId: 't',
      name: 'read_file',
      args: { path: 'a.ts' },
      title: 'read a.ts',
      kind: 'read' as const,
      content: [],
      createdAt: 1_000,
    };
    store.toolCalls.save('s', { ...record, state: 'pending' });
    // The same pending record again (a retried write) keeps one row.
    store.toolCalls.save('s', { ...record, state: 'pending' });
    store.toolCalls.save('other', { ...record, state: 'pending' });
    expect(store.toolCalls.list('s').map((c) => [c.state, c.startedAt])).toEqual([['pending', null]]);
    store.toolCalls.save('s', { ...record, state: 'awaiting_approval' });
    store.toolCalls.save('s', { ...record, state: 'running', startedAt: 2_000 });
    expect(store.toolCalls.running('s').map((c) => [c.state, c.startedAt])).toEqual([['running', 2_000]]);
    const text = { type: 'text' as const, text: 'contents' };
    const end = { state: 'completed' as const, content: [text], finishedAt: 3_000, durationMs: 7 };
    store.toolCalls.save('s', { ...record, ...end, startedAt: 2_000 });
    expect(store.toolCalls.get('s', 'c1')).toMatchObject({
      state: 'completed',
      output: 'contents',
      createdAt: 1_000,
      startedAt: 2_000,
      finishedAt: 3_000,
      durationMs: 7,
    });
    for (const state of ['pending', 'running', 'error'] as const) {
      const again = storeError(() => store.toolCalls.save('s', { ...record, state }));
      expect(again.code).toBe('conflict');
      expect(again.message).toMatch(
        /c1 already exists in session 's' and has already finished with state 'completed'/,
      );
    }
    expect(store.toolCalls.get('other', 'c1')).toMatchObject({ state: 'pending' });
    const ghost = storeError(() => store.toolCalls.save('ghost', { ...record, state: 'pending' }));
    expect(ghost.code).toBe('not-found');
  });

  it('rejects duplicates, unknown calls, double finishes and bad results clearly', () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    store.toolCalls.start('s', { callId: 'c1', turnId: 't', name: 'x', args: { v: 1 } });

    const dup = storeError(() =>
      store.toolCalls.start('s', { callId: 'c1', turnId: 't2', name: 'y', args: {} }),
    );
    expect(dup.code).toBe('conflict');
    expect(dup.message).toMatch(/tool call id c1 already exists in session 's'/);
    expect(store.toolCalls.list('s')).toHaveLength(1);

    const ghost = storeError(() =>
      store.toolCalls.start('ghost', { callId: 'c', turnId: 't', name: 'x', args: {} }),
    );
    expect(ghost.code).toBe('not-found');
    expect(ghost.message).toMatch(/session not found: 'ghost'/);

    const badArgs = storeError(() =>
      store.toolCalls.start('s', {
        callId: 'c9',
        turnId: 't',
        name: 'x',
        args: [1] as unknown as Record<string, unknown>,
      }),
    );
    expect(badArgs.message).toBe('args of tool call c9 must be an object, got an array');

    const unknown = storeError(() =>
      store.toolCalls.finish('nope', { state: 'completed', output: '', durationMs: 1 }),
    );
    expect(unknown.code).toBe('not-found');
    expect(unknown.message).toBe('tool call not found: nope');

    const badStatus = storeError(() =>
      store.toolCalls.finish('c1', { state: 'running' as 'completed', output: '', durationMs: 1 }),
    );
    expect(badStatus.message).toMatch(
      /state must be one of completed, error, denied, cancelled, skipped, interrupted/,
    );
    const badDuration = storeError(() =>
      store.toolCalls.finish('c1', { state: 'completed', output: '', durationMs: Number.NaN }),
    );
    expect(badDuration.message).toMatch(/durationMs of tool call c1 must be a finite number/);
    expect(store.toolCalls.running('s')).toHaveLength(1);

    store.toolCalls.finish('c1', { state: 'completed', output: 'first', durationMs: 5 });
    const twice = storeError(() =>
      store.toolCalls.finish('c1', { state: 'error', output: 'second', durationMs: 6 }),
    );
    expect(twice.code).toBe('conflict');
    expect(twice.message).toBe("tool call c1 has already finished with state 'completed'");
    expect(store.toolCalls.list('s')[0]).toMatchObject({ state: 'completed', output: 'first' });
  });
});
