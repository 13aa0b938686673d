/**
 * Migration 12 and the task evaluations repository: the memories table rebuilt for the
 * `lesson` category keeps every row, link, index and the id counter; evaluations are
 * stored once per prompt, revised, linked to a lesson, listed and counted.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryService } from '../../src/memory/service.js';
import { migrations, openDatabase, Store, StoreError } from '../../src/store/index.js';
import { steppingClock, useStore, useTempDirs } from './helpers.js';

const tempDir = useTempDirs();
const openStore = useStore({ now: steppingClock() });

describe('migration 12', () => {
  it('rebuilds memories for the lesson category and loses nothing', async () => {
    const path = join(tempDir(), 'tea.db');
    const v11 = openDatabase(path, { migrations: migrations.slice(0, 11) });
    const old = new MemoryService({ db: v11 });
    const a = await old.remember({
      content: 'The user lives in Paris',
      category: 'fact',
      subject: 'user',
      attribute: 'city',
      value: 'Paris',
    } as never);
    const b = await old.remember({
      content: 'The user lives in Berlin',
      category: 'fact',
      subject: 'user',
      attribute: 'city',
      value: 'Berlin',
    } as never);
    const c = await old.remember({ content: 'Always answer in metric units', category: 'instruction' });
    const gone = await old.remember({ content: 'A memory removed for good', category: 'general' });
    v11
      .prepare('INSERT INTO memory_sources (summary_id, source_id) VALUES (?, ?), (?, ?)')
      .run(c.memory.id, a.memory.id, c.memory.id, b.memory.id);
    v11.prepare('DELETE FROM memories WHERE id = ?').run(gone.memory.id);
    const before = v11.prepare('SELECT * FROM memories ORDER BY id').all();
    const sources = v11.prepare('SELECT * FROM memory_sources ORDER BY summary_id, source_id').all();
    const counter = v11.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'memories'").pluck().get();
    expect(v11.prepare('SELECT superseded_by FROM memories WHERE id = ?').pluck().get(a.memory.id)).toBe(
      b.memory.id,
    );
    v11.close();

    const store = Store.open(path);
    try {
      const db = store.db;
      expect(db.pragma('user_version', { simple: true })).toBe(migrations.length);
      expect(db.prepare('SELECT * FROM memories ORDER BY id').all()).toEqual(before);
      expect(db.prepare('SELECT * FROM memory_sources ORDER BY summary_id, source_id').all()).toEqual(
        sources,
      );
      expect(db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'memories'").pluck().get()).toBe(
        counter,
      );
      expect(db.pragma('foreign_key_check')).toEqual([]);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const indexes = db
        .prepare(
          "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'memories' ORDER BY name",
        )
        .pluck()
        .all();
      expect(indexes).toEqual([
        'memories_active',
        'memories_by_embedder',
        'memories_by_hash',
        'memories_by_priority',
        'memories_by_scope',
        'memories_by_subject',
        'memories_by_successor',
      ]);
      // Still searchable, the link to the newer version kept, and a lesson can be stored.
      const service = new MemoryService({ db });
      expect((await service.search('Berlin'))[0]?.memory.id).toBe(b.memory.id);
      expect(service.get(a.memory.id)?.supersededBy).toBe(b.memory.id);
      const lesson = await service.remember({
        content: 'Run the store tests after a migration',
        category: 'lesson',
      });
      expect(lesson.memory).toMatchObject({ category: 'lesson', priority: 2 });
      // The id counter did not go back: the removed memory's id is not reused.
      expect(lesson.memory.id).toBeGreaterThan(gone.memory.id);
      // A summary's sources still go with it.
      db.prepare('DELETE FROM memories WHERE id = ?').run(c.memory.id);
      expect(db.prepare('SELECT count(*) FROM memory_sources').pluck().get()).toBe(0);
    } finally {
      store.close();
    }
  });

  it('an unknown category is still refused by the table', () => {
    const { store } = openStore();
    expect(() =>
      store.db
        .prepare(
          `INSERT INTO memories (content, priority, category, content_hash, created_at, valid_from)
           VALUES ('x', 2, 'gossip', 'h', 1, 1)`,
        )
        .run(),
    ).toThrow(/CHECK constraint failed/);
  });
});

describe('TaskEvaluationRepo', () => {
  function setup() {
    const { store } = openStore();
    store.sessions.create({ id: 's1', cwd: '/w' });
    store.sessions.create({ id: 's2', cwd: '/w' });
    return store;
  }
  const signals = { reason: 'completed', errors: 0 };

  it('stores one evaluation per prompt, finds the previous one, revises it and links a lesson', async () => {
    const store = setup();
    const first = store.evaluations.add({
      sessionId: 's1',
      seq: 1,
      input: 'fix it',
      outcome: 'succeeded',
      signals,
    });
    expect(first).toMatchObject({ sessionId: 's1', seq: 1, input: 'fix it', outcome: 'succeeded', signals });
    expect(first.revisedAt).toBeUndefined();
    expect(first.lessonMemoryId).toBeUndefined();
    // Evaluated once: a second add of the same prompt returns the stored row unchanged.
    const again = store.evaluations.add({
      sessionId: 's1',
      seq: 1,
      input: 'other',
      outcome: 'failed',
      signals: {},
    });
    expect(again).toEqual(first);
    const second = store.evaluations.add({
      sessionId: 's1',
      seq: 5,
      input: 'that is wrong',
      outcome: 'succeeded',
      signals,
    });
    store.evaluations.add({ sessionId: 's2', seq: 3, input: 'elsewhere', outcome: 'succeeded', signals });
    expect(store.evaluations.previous('s1', 5)?.id).toBe(first.id);
    expect(store.evaluations.previous('s1', 1)).toBeUndefined();
    expect(store.evaluations.previous('s1', 99)?.id).toBe(second.id);

    const revised = store.evaluations.revise(first.id, 'failed', { ...signals, revisedFrom: 'succeeded' });
    expect(revised).toMatchObject({ outcome: 'failed', signals: { revisedFrom: 'succeeded' } });
    expect(revised.revisedAt).toBeGreaterThan(first.createdAt);

    const lesson = await new MemoryService({ db: store.db }).remember({
      content: 'a lesson',
      category: 'lesson',
    });
    expect(store.evaluations.setLesson(first.id, lesson.memory.id).lessonMemoryId).toBe(lesson.memory.id);
    // A memory removed for good leaves the evaluation without the link.
    store.db.prepare('DELETE FROM memories WHERE id = ?').run(lesson.memory.id);
    expect(store.evaluations.get(first.id)?.lessonMemoryId).toBeUndefined();
  });

  it('lists newest first (since, limit, session) and counts by outcome', () => {
    const store = setup();
    const ids = (['succeeded', 'failed', 'abandoned', 'failed'] as const).map(
      (outcome, i) =>
        store.evaluations.add({
          sessionId: i < 3 ? 's1' : 's2',
          seq: i + 1,
          input: `p${i}`,
          outcome,
          signals,
        }).id,
    );
    store.evaluations.revise(ids[0]!, 'failed', signals);
    expect(store.evaluations.list().map((r) => r.id)).toEqual([...ids].reverse());
    expect(store.evaluations.list({ limit: 2 }).map((r) => r.id)).toEqual([ids[3], ids[2]]);
    const third = store.evaluations.get(ids[2]!)!;
    expect(store.evaluations.list({ since: third.createdAt }).map((r) => r.id)).toEqual([ids[3], ids[2]]);
    expect(store.evaluations.list({ sessionId: 's2' }).map((r) => r.id)).toEqual([ids[3]]);
    expect(store.evaluations.counts()).toEqual({
      succeeded: 0,
      failed: 3,
      abandoned: 1,
      total: 4,
      revised: 1,
    });
    expect(store.evaluations.counts({ since: third.createdAt })).toEqual({
      succeeded: 0,
      failed: 1,
      abandoned: 1,
      total: 2,
      revised: 0,
    });
  });

  it('keeps an excerpt of a long input, refuses bad values with what to fix, and goes with its session', () => {
    const store = setup();
    const row = store.evaluations.add({
      sessionId: 's1',
      seq: 1,
      input: `${'x'.repeat(499)}😀tail`,
      outcome: 'succeeded',
      signals,
    });
    expect(row.input).toBe('x'.repeat(499));
    expect(() =>
      store.evaluations.add({ sessionId: 's1', seq: 2, input: 'x', outcome: 'great' as never, signals }),
    ).toThrow(new StoreError('unknown task outcome "great": use one of succeeded, failed, abandoned'));
    expect(() =>
      store.evaluations.add({ sessionId: 's1', seq: 0, input: 'x', outcome: 'failed', signals }),
    ).toThrow(/seq must be a whole number of at least 1, got 0/);
    expect(() => store.evaluations.list({ limit: 0 })).toThrow(/limit must be a whole number of at least 1/);
    expect(() => store.evaluations.revise(999, 'failed', {})).toThrow(/no task evaluation 999/);
    expect(() =>
      store.evaluations.add({ sessionId: 'nope', seq: 1, input: 'x', outcome: 'failed', signals }),
    ).toThrow(/FOREIGN KEY/);
    store.sessions.delete('s1');
    expect(store.evaluations.get(row.id)).toBeUndefined();
  });
});
