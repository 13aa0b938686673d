import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { migrations, openDatabase, Store, schemaVersion } from '../../src/store/index.js';
import { useStore, useTempDirs } from './helpers.js';

const open = useStore();
const tempDir = useTempDirs();

describe('session state', () => {
  it('stores, replaces and deletes JSON values per session and key', () => {
    const { store } = open();
    const a = store.sessions.create({ cwd: '/w' });
    const b = store.sessions.create({ cwd: '/w' });
    expect(store.state.get(a.id, 'todos')).toBeUndefined();
    store.state.set(a.id, 'todos', [{ id: '1', content: 'x', status: 'pending' }]);
    store.state.set(b.id, 'todos', []);
    store.state.set(a.id, 'todos', [{ id: '1', content: 'x', status: 'completed' }]);
    expect(store.state.get(a.id, 'todos')).toEqual([{ id: '1', content: 'x', status: 'completed' }]);
    expect(store.state.get(b.id, 'todos')).toEqual([]);
    store.state.delete(a.id, 'todos');
    expect(store.state.get(a.id, 'todos')).toBeUndefined();
  });

  it('rejects an unknown session and goes away with its session', () => {
    const { store } = open();
    expect(() => store.state.set('nope', 'k', 1)).toThrow(/session not found/);
    const s = store.sessions.create({ cwd: '/w' });
    store.state.set(s.id, 'k', { deep: [1, 2] });
    store.sessions.delete(s.id);
    expect(store.state.get(s.id, 'k')).toBeUndefined();
  });

  it('finds the sessions whose value holds a field, and skips values that are not JSON objects', () => {
    const { store } = open();
    const [a, b, c] = [1, 2, 3].map(() => store.sessions.create({ cwd: '/w' }));
    store.state.set(a!.id, 'conv', { hash: 'h1', last: 3 });
    store.state.set(b!.id, 'conv', { hash: 'h2', last: 1 });
    store.state.set(c!.id, 'other', { hash: 'h1' });
    expect(store.state.withField('conv', 'hash', 'h1')).toEqual([a!.id]);
    expect(store.state.withField('conv', 'hash', 'h3')).toEqual([]);
    store.db.prepare("UPDATE session_state SET value = 'not json' WHERE session_id = ?").run(b!.id);
    expect(store.state.withField('conv', 'hash', 'h2')).toEqual([]);
  });
});

describe('migration 2', () => {
  it('keeps tool calls written under version 1 and accepts the denied status', () => {
    const path = join(tempDir(), 'tea.db');
    // A version-1 database with one finished tool call, written with plain SQL.
    const v1 = openDatabase(path, { migrations: migrations.slice(0, 1) });
    v1.prepare('INSERT INTO sessions (id, cwd, created_at, updated_at) VALUES (?, ?, 1, 1)').run('s1', '/w');
    v1.prepare(
      `INSERT INTO tool_calls (session_id, call_id, turn_id, name, args, status, output, started_at, finished_at, duration_ms)
       VALUES ('s1', 'c1', 't', 'bash', '{"command":"ls"}', 'ok', 'a
b', 1, 2, 3)`,
    ).run();
    expect(schemaVersion(v1)).toBe(1);
    v1.close();
    const s = { id: 's1' };

    const v2 = Store.open(path);
    try {
      expect(schemaVersion(v2.db)).toBe(migrations.length);
      // Migration 8 names the states: the old 'ok' reads as 'completed', its times kept.
      expect(v2.toolCalls.list(s.id)).toEqual([
        expect.objectContaining({
          callId: 'c1',
          name: 'bash',
          state: 'completed',
          output: 'a\nb',
          createdAt: 1,
          startedAt: 1,
          finishedAt: 2,
          durationMs: 3,
        }),
      ]);
      v2.toolCalls.start(s.id, { callId: 'c2', turnId: 't', name: 'bash', args: {} });
      v2.toolCalls.finish('c2', { state: 'denied', output: '[DENIED] no', durationMs: 0 }, s.id);
      expect(v2.toolCalls.list(s.id).map((c) => c.state)).toEqual(['completed', 'denied']);
      expect(v2.db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      v2.close();
    }
  });
});
