import { describe, expect, it } from 'vitest';
import { Store } from '../../src/store/index.js';
import { steppingClock, storeError, useStore } from './helpers.js';

const openStore = useStore({ now: steppingClock() });
const text = (t: string) => [{ type: 'text' as const, text: t }];

describe('sessions', () => {
  it('creates with a random uuid by default and reads it back', () => {
    const { store } = openStore();
    const created = store.sessions.create({
      cwd: '/work/a',
      title: 'first',
      model: 'gpt-x',
      profile: 'main',
    });
    expect(created.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(created.createdAt).toBe(created.updatedAt);
    expect(store.sessions.get(created.id)).toEqual(created);
    const bare = store.sessions.create({ id: 'bare-one', cwd: '/work/b' });
    expect(bare).toMatchObject({ id: 'bare-one', title: null, model: null, profile: null });
    expect(store.sessions.get('missing')).toBeUndefined();
  });

  it('rejects a duplicate id and bad input with specific errors', () => {
    const { store } = openStore();
    store.sessions.create({ id: 'dup', cwd: '/w', title: 'original' });
    const dup = storeError(() => store.sessions.create({ id: 'dup', cwd: '/other' }));
    expect(dup.code).toBe('conflict');
    expect(dup.message).toBe('a session with id dup already exists');
    expect(store.sessions.get('dup')?.title).toBe('original');
    expect(storeError(() => store.sessions.create({ cwd: '' })).message).toMatch(
      /session cwd must be a non-empty/,
    );
  });

  it('updates fields, keeps absent ones, and bumps updatedAt', () => {
    const { store } = openStore();
    const s = store.sessions.create({ id: 's1', cwd: '/w', title: 'old', model: 'm1' });
    store.sessions.update('s1', { title: 'new', profile: 'cheap' });
    const after = store.sessions.get('s1')!;
    expect(after).toMatchObject({ title: 'new', model: 'm1', profile: 'cheap', createdAt: s.createdAt });
    expect(after.updatedAt).toBeGreaterThan(s.updatedAt);
    store.sessions.touch('s1');
    expect(store.sessions.get('s1')!.updatedAt).toBeGreaterThan(after.updatedAt);
    expect(storeError(() => store.sessions.update('nope', { title: 'x' })).code).toBe('not-found');
    expect(storeError(() => store.sessions.touch('nope')).code).toBe('not-found');
  });

  it('resolves an exact id or a unique prefix, and explains misses and ambiguity', () => {
    const { store } = openStore();
    store.sessions.create({ id: 'abcd1111', cwd: '/w' });
    store.sessions.create({ id: 'abcd2222', cwd: '/w' });
    store.sessions.create({ id: 'ab', cwd: '/w' });
    store.sessions.create({ id: 'x%_y-literal', cwd: '/w' });

    expect(store.sessions.resolve('abcd2222').id).toBe('abcd2222');
    expect(store.sessions.resolve('abcd1').id).toBe('abcd1111');
    expect(store.sessions.resolve(' abcd2 ').id).toBe('abcd2222');
    expect(store.sessions.resolve('ab').id).toBe('ab'); // exact ids of any length
    expect(store.sessions.resolve('x%_y').id).toBe('x%_y-literal'); // no LIKE wildcards

    const ambiguous = storeError(() => store.sessions.resolve('abcd'));
    expect(ambiguous.code).toBe('ambiguous');
    expect(ambiguous.message).toMatch(/ambiguous prefix: matches abcd1111, abcd2222$/);

    const missing = storeError(() => store.sessions.resolve('zzzz'));
    expect(missing.code).toBe('not-found');
    expect(missing.message).toContain('not found');
    expect(missing.message).toContain('zzzz');
    expect(storeError(() => store.sessions.resolve('x%_')).message).toMatch(/at least 4 characters/);
    expect(storeError(() => store.sessions.resolve('abc')).code).toBe('not-found');
  });

  it('finds the latest session, overall and per cwd, by last activity', () => {
    const { store } = openStore();
    expect(store.sessions.latest()).toBeUndefined();
    store.sessions.create({ id: 'a1', cwd: '/a' });
    store.sessions.create({ id: 'b1', cwd: '/b' });
    store.sessions.create({ id: 'a2', cwd: '/a' });
    expect(store.sessions.latest()?.id).toBe('a2');
    expect(store.sessions.latest({ cwd: '/b' })?.id).toBe('b1');
    // appending to an older session makes it the latest
    store.messages.append('a1', { turnId: 't', role: 'user', parts: text('back again') });
    expect(store.sessions.latest({ cwd: '/a' })?.id).toBe('a1');
    expect(store.sessions.latest()?.id).toBe('a1');
    expect(store.sessions.latest({ cwd: '/nowhere' })).toBeUndefined();
  });

  it('lists newest first with message counts, paging and cwd filter', () => {
    const { store } = openStore();
    for (const [id, cwd, n] of [
      ['s1', '/a', 3],
      ['s2', '/b', 0],
      ['s3', '/a', 1],
    ] as const) {
      store.sessions.create({ id, cwd });
      for (let i = 0; i < n; i++)
        store.messages.append(id, { turnId: 't', role: 'user', parts: text(`${i}`) });
    }
    const all = store.sessions.list();
    expect(all.map((s) => [s.id, s.messageCount])).toEqual([
      ['s3', 1],
      ['s2', 0],
      ['s1', 3],
    ]);
    expect(store.sessions.list({ limit: 1, offset: 1 }).map((s) => s.id)).toEqual(['s2']);
    expect(store.sessions.list({ cwd: '/a' }).map((s) => s.id)).toEqual(['s3', 's1']);
    expect(store.sessions.list({ offset: 5 })).toEqual([]);
    expect(storeError(() => store.sessions.list({ limit: -2 })).message).toMatch(
      /list limit must be an integer/,
    );
  });

  it('delete cascades to messages, tool calls and usage', () => {
    const { store } = openStore();
    store.sessions.create({ id: 'gone', cwd: '/w' });
    store.sessions.create({ id: 'stays', cwd: '/w' });
    for (const id of ['gone', 'stays']) {
      store.messages.append(id, { turnId: 't1', role: 'user', parts: text('hi') });
      store.toolCalls.start(id, { callId: 'c1', turnId: 't1', name: 'read', args: {} });
      store.usage.record({
        sessionId: id,
        turnId: 't1',
        profile: 'p',
        model: 'm',
        inputTokens: 1,
        outputTokens: 1,
        cachedInputTokens: 0,
        reasoningTokens: 0,
        costUsd: 0.1,
      });
    }
    expect(store.sessions.delete('gone')).toBe(true);
    expect(store.sessions.delete('gone')).toBe(false);
    expect(store.sessions.get('gone')).toBeUndefined();
    const count = (table: string, id: string) =>
      store.db.prepare(`SELECT COUNT(*) FROM ${table} WHERE session_id = ?`).pluck().get(id);
    for (const table of ['messages', 'tool_calls', 'usage']) {
      expect(count(table, 'gone')).toBe(0);
      expect(count(table, 'stays')).toBe(1);
    }
  });
});

describe('session ordering with a coarse clock', () => {
  it('never ties, even when every write lands in the same millisecond', () => {
    const store = Store.open(':memory:', { now: () => 1_000 });
    try {
      store.sessions.create({ id: 'first', cwd: '/w' });
      store.sessions.create({ id: 'second', cwd: '/w' });
      expect(store.sessions.latest()?.id).toBe('second');
      store.sessions.touch('first');
      expect(store.sessions.latest()?.id).toBe('first');
      expect(store.sessions.list().map((s) => s.id)).toEqual(['first', 'second']);
    } finally {
      store.close();
    }
  });
});

describe('sessions people started, and the others', () => {
  it('leaves sub-agents’ and workflow steps’ sessions out of latest, list and count', () => {
    const { store } = openStore();
    const mine = store.sessions.create({ cwd: '/w', title: 'mine' });
    const child = store.sessions.create({
      cwd: '/w',
      title: 'reviewer #1',
      role: 'reviewer',
      parent: { id: mine.id, callId: 'call_1', depth: 1 },
    });
    // A workflow step: a role session without a parent, written after the person's session.
    const step = store.sessions.create({
      cwd: '/w',
      title: 'workflow ab12 · judge (reviewer)',
      role: 'reviewer',
    });
    expect(store.sessions.latest()?.id).toBe(mine.id);
    expect(store.sessions.latest({ cwd: '/w' })?.id).toBe(mine.id);
    expect(store.sessions.list().map((s) => s.id)).toEqual([mine.id]);
    expect(store.sessions.count()).toBe(1);
    expect(new Set(store.sessions.list({ children: true }).map((s) => s.id))).toEqual(
      new Set([mine.id, child.id, step.id]),
    );
    expect(store.sessions.get(child.id)).toMatchObject({
      parentId: mine.id,
      parentCallId: 'call_1',
      role: 'reviewer',
      depth: 1,
    });
    expect(store.sessions.children(mine.id).map((s) => s.id)).toEqual([child.id]);
  });
});
