import { describe, expect, it } from 'vitest';
import {
  bm25Only,
  isExactQuery,
  lexicalOnly,
  searchMemories,
  trigramQuery,
  wordsQuery,
} from '../../src/memory/search.js';
import { queryTerms, segmentWords } from '../../src/memory/segment.js';
import { axis, hashEmbed, useMemoryRepo } from './fixtures.js';

const open = useMemoryRepo();
const DAY = 86_400_000;

describe('segmentation', () => {
  it('lower-cases words and adds CJK bigrams', () => {
    const words = segmentWords('Deploy 数据库迁移失败了').split(' ');
    expect(words).toContain('deploy');
    expect(words).toContain('迁移');
    expect(words).toContain('据库');
    expect(queryTerms('迁移')).toEqual(['迁移']);
    expect(queryTerms('的迁移了')).not.toContain('的');
    expect(queryTerms('  ,, ')).toEqual([]);
  });

  it('builds safe FTS queries', () => {
    expect(trigramQuery('is "foo bar" ok?')).toBe('"foo bar"');
    expect(trigramQuery('ab cd')).toBeUndefined();
    expect(wordsQuery('say "hi"')).toBe('"say" OR "hi"');
    expect(trigramQuery('src/a"b.ts  v1.2.')).toBe('"src/a" OR "b.ts" OR "v1.2"');
  });

  it('recognises exact-looking queries', () => {
    for (const q of [
      '"lives in"',
      'max_retries',
      'fetchUser',
      'src/memory/repo.ts',
      'node 20.11',
      'config.yaml',
    ]) {
      expect(isExactQuery(q), q).toBe(true);
    }
    for (const q of ['where does the user live', '用户住在哪里', 'Paris'])
      expect(isExactQuery(q), q).toBe(false);
  });
});

describe('searchMemories', () => {
  it('finds a 2-character Chinese word inside a longer Chinese sentence', () => {
    const { repo } = open();
    const hit = repo.add({ content: '数据库迁移失败了', category: 'fact' });
    repo.add({ content: '用户喜欢喝茶', category: 'preference' });
    const results = searchMemories(repo, '迁移');
    expect(results.map((r) => r.memory.id)).toEqual([hit.id]);
    expect(results[0]?.ranks.words).toBe(1);
    expect(results[0]?.ranks.trigram).toBeUndefined(); // a 2-char query cannot use the trigram index
  });

  it('finds an English substring through the trigram index', () => {
    const { repo } = open();
    const hit = repo.add({ content: 'The staging cluster uses Kubernetes', category: 'fact' });
    repo.add({ content: 'Prefers dark mode', category: 'preference' });
    const results = searchMemories(repo, 'bernet');
    expect(results.map((r) => r.memory.id)).toEqual([hit.id]);
    expect(results[0]?.ranks).toEqual({ trigram: 1 });
    // The baselines: plain word BM25 cannot see inside a word; the lexical fusion can.
    expect(bm25Only(repo, 'bernet')).toEqual([]);
    expect(lexicalOnly(repo, 'bernet').map((r) => r.memory.id)).toEqual([hit.id]);
    expect(bm25Only(repo, 'kubernetes').map((r) => r.memory.id)).toEqual([hit.id]);
  });

  it('matches tags as well as content', () => {
    const { repo } = open();
    const hit = repo.add({ content: 'use pnpm', category: 'preference', tags: ['packaging'] });
    expect(searchMemories(repo, 'packaging').map((r) => r.memory.id)).toEqual([hit.id]);
  });

  it('never returns superseded, deleted or expired memories', () => {
    const { repo, clock } = open();
    const paris = repo.add({ content: 'User lives in Paris', category: 'fact' });
    const berlin = repo.add({ content: 'User lives in Berlin', category: 'fact' });
    const gone = repo.add({ content: 'User lives in Rome', category: 'fact' });
    const brief = repo.add({
      content: 'User lives in a hotel this week',
      category: 'reminder',
      expiresAt: clock() + 10,
    });
    repo.supersede(paris.id, berlin.id);
    repo.softDelete(gone.id);
    clock.advance(100);
    const ids = searchMemories(repo, 'where does the user live', {
      queryVector: hashEmbed('user lives'),
    }).map((r) => r.memory.id);
    expect(ids).toEqual([berlin.id]);
    expect(bm25Only(repo, 'lives').map((r) => r.memory.id)).toEqual([berlin.id]);
    expect(lexicalOnly(repo, 'lives').map((r) => r.memory.id)).toEqual([berlin.id]);
    expect(searchMemories(repo, 'lives', { now: clock() - 1000 }).map((r) => r.memory.id)).toContain(
      brief.id,
    );
  });

  it('finds nearest vectors with sqlite-vec KNN', () => {
    const { repo } = open();
    const a = repo.add({ content: 'first', category: 'fact', embedding: axis(0, 8), embedder: 'e' });
    const b = repo.add({ content: 'second', category: 'fact', embedding: axis(1, 8), embedder: 'e' });
    const c = repo.add({ content: 'third', category: 'fact', embedding: axis(2, 8), embedder: 'e' });
    const results = searchMemories(repo, 'zz', { queryVector: axis(1, 8, 0.5) });
    expect(results.map((r) => r.memory.id)).toEqual([b.id, c.id, a.id]);
    expect(results.map((r) => r.ranks.vector)).toEqual([1, 2, 3]);
    // a vector of another dimension has no table to search
    expect(searchMemories(repo, 'zz', { queryVector: axis(1, 5) })).toEqual([]);
    // filtering by embedder id
    expect(searchMemories(repo, 'zz', { queryVector: axis(1, 8), embedder: 'other' })).toEqual([]);
  });

  it('ranks a memory found by two signals above one found by a single signal', () => {
    const { repo } = open();
    // only the vector list finds `vectorOnly` (rank 1); `both` is found by words and (rank 2) by vector
    const vectorOnly = repo.add({
      content: 'unrelated text',
      category: 'general',
      embedding: axis(0),
      embedder: 'e',
    });
    const both = repo.add({
      content: 'the CI release leaves fridays',
      category: 'fact',
      embedding: axis(1),
      embedder: 'e',
    });
    const results = searchMemories(repo, 'ci', { queryVector: axis(0, 8, 0.3) });
    expect(results.map((r) => r.memory.id)).toEqual([both.id, vectorOnly.id]);
    expect(results[0]?.ranks).toEqual({ words: 1, vector: 2 });
    expect(results[1]?.ranks).toEqual({ vector: 1 });
    expect(results[0]?.score).toBeGreaterThan(results[1]?.score ?? Number.POSITIVE_INFINITY);
  });

  it('weights full-text above vectors when the query looks exact', () => {
    const { repo } = open();
    const text = repo.add({
      content: 'set max_retries to 5',
      category: 'fact',
      embedding: axis(3),
      embedder: 'e',
    });
    const near = repo.add({
      content: 'something semantic',
      category: 'fact',
      embedding: axis(0),
      embedder: 'e',
    });
    const vector = axis(0, 8, 0.01);
    // "max_retries" is exact: the words hit outranks the vector's best match
    const exact = searchMemories(repo, 'max_retries', { queryVector: vector });
    expect(exact.map((r) => r.memory.id)).toEqual([text.id, near.id]);
    expect(exact[0]?.ranks.words).toBe(1);
    // a plain word gets equal weights: the text hit scores lower and the vector hit higher than above
    const plain = searchMemories(repo, 'retries', { queryVector: vector });
    const textScore = plain.find((r) => r.memory.id === text.id)?.score ?? 0;
    const exactTextScore = exact.find((r) => r.memory.id === text.id)?.score ?? 0;
    expect(exactTextScore).toBeGreaterThan(textScore);
    const nearPlain = plain.find((r) => r.memory.id === near.id)?.score ?? 0;
    const nearExact = exact.find((r) => r.memory.id === near.id)?.score ?? 0;
    expect(nearExact).toBeLessThan(nearPlain);
  });

  it('prefers newer memories when the signals tie, but a better match wins however old', () => {
    const { repo, clock } = open();
    const old = repo.add({ content: 'standup at nine', category: 'general', importance: 1 });
    clock.advance(200 * DAY);
    const fresh = repo.add({ content: 'standup at ten', category: 'general', importance: 1 });
    const withPriors = searchMemories(repo, 'standup');
    expect(withPriors[0]?.memory.id).toBe(fresh.id);
    const important = repo.add({ content: 'standup is mandatory', category: 'instruction', importance: 5 });
    // "nine" matches only the old one: first in every list, it stays first.
    expect(searchMemories(repo, 'standup nine')[0]?.memory.id).toBe(old.id);
    expect(searchMemories(repo, 'mandatory standup')[0]?.memory.id).toBe(important.id);
    for (const baseline of [bm25Only, lexicalOnly]) {
      expect(
        baseline(repo, 'standup')
          .map((r) => r.memory.id)
          .sort(),
      ).toEqual([old.id, fresh.id, important.id].sort());
    }
  });

  it('filters by scope and honours the limit', () => {
    const { repo } = open();
    const mine = repo.add({ content: 'lint with biome', category: 'fact', scope: 'project:/a' });
    repo.add({ content: 'lint with eslint', category: 'fact', scope: 'project:/b' });
    const global = repo.add({ content: 'lint before commit', category: 'instruction', scope: 'global' });
    const ids = searchMemories(repo, 'lint', { scopes: ['project:/a', 'global'] }).map((r) => r.memory.id);
    expect(ids.sort()).toEqual([mine.id, global.id].sort());
    expect(searchMemories(repo, 'lint', { limit: 1 })).toHaveLength(1);
    expect(searchMemories(repo.db, 'lint')).toHaveLength(3);
  });

  it('returns nothing for an empty query and survives FTS syntax in the input', () => {
    const { repo } = open();
    repo.add({ content: 'quotes " and stars * and NEAR(x y) and OR', category: 'general' });
    expect(searchMemories(repo, '   ')).toEqual([]);
    expect(searchMemories(repo, 'NEAR( OR * "').length).toBeGreaterThan(0);
  });
});
