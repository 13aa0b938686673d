import { describe, expect, it } from 'vitest';
import { contentHash } from '../../src/memory/repo.js';
import { searchMemories } from '../../src/memory/search.js';
import { Store } from '../../src/store/index.js';
import { storeError } from '../store/helpers.js';
import { axis, useMemoryRepo } from './fixtures.js';

const open = useMemoryRepo();

function ftsRows(repo: ReturnType<typeof open>['repo'], table: string, match: string): number[] {
  return repo.db
    .prepare<[string], number>(`SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rowid`)
    .pluck()
    .all(match);
}

describe('contentHash', () => {
  it('is 16 hex chars and ignores case, outer and repeated whitespace', () => {
    const h = contentHash('  User   lives in\nParis ');
    expect(h).toMatch(/^[0-9a-f]{16}$/);
    expect(contentHash('user lives in paris')).toBe(h);
    expect(contentHash('user lives in berlin')).not.toBe(h);
  });
});

describe('MemoryRepo CRUD', () => {
  it('adds with defaults from the category and reads it back', () => {
    const { repo, clock } = open();
    const m = repo.add({
      content: '  Always answer in English ',
      category: 'instruction',
      tags: ['lang', ' lang', ''],
    });
    expect(m).toMatchObject({
      content: 'Always answer in English',
      priority: 0,
      importance: 3,
      category: 'instruction',
      tags: ['lang'],
      contentHash: contentHash('always answer in english'),
      expiresAt: null,
      pinned: false,
      createdAt: clock(),
      validFrom: clock(),
      validTo: null,
      supersededBy: null,
      accessCount: 0,
      accessedAt: null,
      scope: 'user',
      deletedAt: null,
    });
    expect(repo.get(m.id)).toEqual(m);
    expect(repo.get(9999)).toBeUndefined();
    const fact = repo.add({
      content: 'db is postgres',
      category: 'fact',
      importance: 5,
      scope: 'project:/w',
    });
    expect(fact.priority).toBe(2);
    expect(fact.scope).toBe('project:/w');
  });

  it('rejects bad input with specific errors and writes nothing', () => {
    const { repo } = open();
    expect(storeError(() => repo.add({ content: '   ', category: 'fact' })).message).toMatch(/non-empty/);
    expect(storeError(() => repo.add({ content: 'x', category: 'nonsense' as 'fact' })).message).toMatch(
      /unknown memory category "nonsense"/,
    );
    expect(storeError(() => repo.add({ content: 'x', category: 'fact', importance: 9 })).message).toMatch(
      /importance must be an integer from 1 to 5, got 9/,
    );
    expect(
      storeError(() => repo.add({ content: 'x', category: 'fact', embedding: axis(0) })).message,
    ).toMatch(/needs the id of the embedder/);
    expect(storeError(() => repo.update(42, { content: 'y' })).code).toBe('not-found');
    expect(repo.count({ includeInactive: true })).toBe(0);
  });

  it('finds an active memory by content hash, optionally within a scope', () => {
    const { repo } = open();
    const a = repo.add({ content: 'Prefers tabs', category: 'preference', scope: 'user' });
    expect(repo.findByHash(contentHash('prefers   TABS'))?.id).toBe(a.id);
    expect(repo.findByHash(a.contentHash, 'user')?.id).toBe(a.id);
    expect(repo.findByHash(a.contentHash, 'global')).toBeUndefined();
    repo.softDelete(a.id);
    expect(repo.findByHash(a.contentHash)).toBeUndefined();
  });

  it('updates fields, re-indexes both FTS tables on content change and clears the embedding', () => {
    const { repo } = open();
    const m = repo.add({
      content: 'deploys go through jenkins',
      category: 'fact',
      embedding: axis(1),
      embedder: 'e1',
    });
    expect(repo.getEmbedding(m.id)?.embedder).toBe('e1');
    expect(ftsRows(repo, 'memories_fts_words', 'jenkins')).toEqual([m.id]);

    const updated = repo.update(m.id, { content: 'deploys go through github actions', importance: 4 });
    expect(updated.contentHash).toBe(contentHash('deploys go through github actions'));
    expect(updated.importance).toBe(4);
    expect(ftsRows(repo, 'memories_fts_words', 'jenkins')).toEqual([]);
    expect(ftsRows(repo, 'memories_fts_trigram', '"jenkins"')).toEqual([]);
    expect(ftsRows(repo, 'memories_fts_words', 'github')).toEqual([m.id]);
    expect(ftsRows(repo, 'memories_fts_trigram', '"hub act"')).toEqual([m.id]);
    expect(repo.getEmbedding(m.id)).toBeUndefined();
    expect(repo.withoutEmbedding('e1', 10).map((x) => x.id)).toEqual([m.id]);

    repo.update(m.id, { tags: ['ci'] });
    expect(ftsRows(repo, 'memories_fts_words', 'ci')).toEqual([m.id]);
  });

  it('supersede hides the old memory from list but get keeps its history', () => {
    const { repo, clock } = open();
    const paris = repo.add({
      content: 'User lives in Paris',
      category: 'fact',
      subject: 'user',
      attribute: 'city',
    });
    clock.advance(1000);
    const berlin = repo.add({
      content: 'User lives in Berlin',
      category: 'fact',
      subject: 'user',
      attribute: 'city',
    });
    clock.advance(1000);
    const old = repo.supersede(paris.id, berlin.id);
    expect(old.validTo).toBe(clock());
    expect(old.supersededBy).toBe(berlin.id);
    expect(repo.list().map((m) => m.id)).toEqual([berlin.id]);
    expect(
      repo
        .list({ includeInactive: true })
        .map((m) => m.id)
        .sort(),
    ).toEqual([paris.id, berlin.id].sort());
    expect(repo.get(paris.id)).toMatchObject({
      validTo: clock(),
      supersededBy: berlin.id,
      content: 'User lives in Paris',
    });
    expect(storeError(() => repo.supersede(paris.id, berlin.id)).code).toBe('conflict');
    expect(storeError(() => repo.supersede(berlin.id, berlin.id)).message).toMatch(/cannot supersede itself/);
  });

  it('soft delete, touch, priority, pin, expiry, scopes, categories, count and paging', () => {
    const { repo, clock } = open();
    const a = repo.add({ content: 'a rule', category: 'instruction' });
    const b = repo.add({ content: 'a pref', category: 'preference', scope: 'project:/x' });
    const c = repo.add({ content: 'a reminder', category: 'reminder', expiresAt: clock() + 5000 });
    const d = repo.add({ content: 'general note', category: 'general', scope: 'global' });

    expect(repo.count()).toBe(4);
    expect(repo.list({ scope: ['project:/x', 'global'] }).map((m) => m.id)).toEqual([b.id, d.id]);
    expect(repo.list({ category: 'reminder' }).map((m) => m.id)).toEqual([c.id]);
    expect(repo.list({ limit: 2, offset: 1 }).map((m) => m.id)).toEqual([c.id, b.id]); // priority 0, 1(c newer), 1, 3

    clock.advance(6000);
    expect(repo.list().map((m) => m.id)).not.toContain(c.id);
    expect(repo.get(c.id)?.expiresAt).toBeLessThan(clock());

    const deleted = repo.softDelete(d.id);
    expect(deleted.deletedAt).toBe(clock());
    expect(repo.count()).toBe(2);
    expect(repo.count({ includeInactive: true })).toBe(4);

    repo.touch([a.id, a.id, b.id]);
    repo.touch([a.id]);
    expect(repo.get(a.id)).toMatchObject({ accessCount: 2, accessedAt: clock() });
    expect(repo.get(b.id)?.accessCount).toBe(1);

    clock.advance(1000);
    expect(repo.setPriority(b.id, 0).createdAt).toBe(b.createdAt);
    expect(repo.setPriority(b.id, 1, { resetAge: true })).toMatchObject({ priority: 1, createdAt: clock() });
    expect(storeError(() => repo.setPriority(b.id, 7 as 0)).message).toMatch(/priority must be 0, 1, 2 or 3/);
    expect(repo.setPinned(a.id, true).pinned).toBe(true);
    expect(repo.setPinned(a.id, false).pinned).toBe(false);
  });
});

describe('MemoryRepo vectors', () => {
  it('keeps vectors in the row and in a per-dimension int8 vec0 table', () => {
    const { repo } = open();
    const a = repo.add({ content: 'alpha', category: 'fact', embedding: axis(0), embedder: 'e8' });
    const b = repo.add({ content: 'beta', category: 'fact' });
    repo.setEmbedding(b.id, axis(3, 4), 'e4');
    expect(Array.from(repo.getEmbedding(a.id)?.vector ?? [])).toEqual(Array.from(axis(0)));
    const tables = repo.db
      .prepare<[], string>("SELECT name FROM sqlite_master WHERE name IN ('memory_knn_8', 'memory_knn_4')")
      .pluck()
      .all()
      .sort();
    expect(tables).toEqual(['memory_knn_4', 'memory_knn_8']);
    expect(repo.db.prepare<[], number>('SELECT count(*) FROM memory_knn_8').pluck().get()).toBe(1);

    // re-embedding with a new embedder replaces the vector
    repo.setEmbedding(a.id, axis(1, 4), 'e4');
    expect(repo.db.prepare<[], number>('SELECT count(*) FROM memory_knn_8').pluck().get()).toBe(0);
    expect(repo.db.prepare<[], number>('SELECT count(*) FROM memory_knn_4').pluck().get()).toBe(2);
    expect(repo.withoutEmbedding('e4', 10)).toEqual([]);
    expect(repo.withoutEmbedding('e8', 10).map((m) => m.id)).toEqual([a.id, b.id]);
    expect(storeError(() => repo.setEmbedding(a.id, new Float32Array([Number.NaN]), 'e1')).message).toMatch(
      /NaN/,
    );

    repo.softDelete(b.id);
    expect(repo.db.prepare<[], number>('SELECT count(*) FROM memory_knn_4').pluck().get()).toBe(1);
    expect(repo.getEmbedding(b.id)?.embedder).toBe('e4');
  });

  it('converts a float vec0 table of an earlier version into the int8 index on first use', () => {
    const { repo, path } = open();
    const near = repo.add({ content: 'near', category: 'fact', embedding: axis(0, 8, 0.1), embedder: 'e8' });
    const far = repo.add({ content: 'far', category: 'fact', embedding: axis(5), embedder: 'e8' });
    // What an older version left behind: a float table and no int8 one.
    repo.db.exec('DROP TABLE memory_knn_8');
    repo.db.exec('CREATE VIRTUAL TABLE memory_vec_8 USING vec0 (embedding float[8] distance_metric=cosine)');
    const again = Store.open(path);
    try {
      const hits = searchMemories(again.db, 'zzz', { queryVector: axis(0) });
      expect(hits.map((h) => h.memory.id)).toEqual([near.id, far.id]);
      const tables = again.db
        .prepare<[], string>("SELECT name FROM sqlite_master WHERE name IN ('memory_vec_8', 'memory_knn_8')")
        .pluck()
        .all();
      expect(tables).toEqual(['memory_knn_8']);
    } finally {
      again.close();
    }
  });

  it('survives reopening the file: rows, FTS and vectors persist', () => {
    const { repo, path } = open();
    const m = repo.add({ content: '数据库迁移失败了', category: 'fact', embedding: axis(2), embedder: 'e8' });
    const again = Store.open(path);
    try {
      expect(again.db.prepare('SELECT content FROM memories WHERE id = ?').pluck().get(m.id)).toBe(m.content);
      expect(
        again.db
          .prepare("SELECT rowid FROM memories_fts_words WHERE memories_fts_words MATCH '迁移'")
          .pluck()
          .all(),
      ).toEqual([m.id]);
    } finally {
      again.close();
    }
  });
});
