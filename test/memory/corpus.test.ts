import { describe, expect, it } from 'vitest';
import { buildCorpus, fillerMemory, fillerProject, PROJECTS, prng } from '../../bench/memory-corpus.js';

describe('memory bench corpus', () => {
  const corpus = buildCorpus();
  const byKey = new Map(corpus.memories.map((m) => [m.key, m]));

  it('is deterministic for a seed and differs across seeds', () => {
    expect(buildCorpus()).toEqual(corpus);
    expect(buildCorpus({ seed: 99 }).queries).not.toEqual(corpus.queries);
    const a = prng(5);
    const b = prng(5);
    expect([a(), a(), a()]).toEqual([b(), b(), b()]);
    expect(fillerMemory(1234)).toEqual(fillerMemory(1234));
  });

  it('has unique keys and about 300 targets, each with 1-3 queries pointing at a stored memory', () => {
    expect(byKey.size).toBe(corpus.memories.length);
    const targets = new Set(corpus.queries.map((q) => q.expect));
    expect(targets.size).toBeGreaterThanOrEqual(250);
    for (const q of corpus.queries) {
      expect(byKey.has(q.expect), q.expect).toBe(true);
      expect(q.text.trim().length).toBeGreaterThan(0);
      if (q.older !== undefined) expect(byKey.has(q.older), q.older).toBe(true);
    }
    const perTarget = new Map<string, number>();
    for (const q of corpus.queries) perTarget.set(q.expect, (perTarget.get(q.expect) ?? 0) + 1);
    for (const n of perTarget.values()) expect(n).toBeGreaterThanOrEqual(1);
    for (const n of perTarget.values()) expect(n).toBeLessThanOrEqual(3);
    expect(corpus.queries.some((q) => q.lang === 'zh')).toBe(true);
  });

  it('labels update chains and near-stale pairs consistently', () => {
    const chains = corpus.queries.filter((q) => q.kind === 'chain');
    const near = corpus.queries.filter((q) => q.kind === 'near-stale');
    expect(chains.length).toBeGreaterThan(0);
    expect(near.length).toBeGreaterThan(0);
    const superseded = new Map(corpus.supersedes);
    for (const [oldKey, newKey] of corpus.supersedes) {
      const old = byKey.get(oldKey);
      const current = byKey.get(newKey);
      expect(old?.subject).toBe(current?.subject);
      expect(old?.attribute).toBe(current?.attribute);
      expect(old?.content).not.toBe(current?.content);
      expect(old?.ageDays ?? 0).toBeGreaterThan(current?.ageDays ?? 0);
    }
    for (const q of chains) expect(superseded.get(q.older ?? '')).toBe(q.expect);
    for (const q of near) {
      const older = byKey.get(q.older ?? '');
      const newer = byKey.get(q.expect);
      expect(superseded.has(q.older ?? '')).toBe(false);
      expect(older?.attribute).toBe(newer?.attribute);
      expect(older?.content).not.toBe(newer?.content);
      expect(older?.ageDays ?? 0).toBeGreaterThan(newer?.ageDays ?? 0);
    }
    // Apart from near-stale pairs, each (subject, attribute) has one active value.
    const active = corpus.memories.filter(
      (m) => !superseded.has(m.key) && !near.some((q) => q.older === m.key),
    );
    const slots = active.map((m) => `${m.subject}|${m.attribute}`);
    expect(new Set(slots).size).toBe(slots.length);
  });

  it('fillers never name a target project and never repeat target content', () => {
    const contents = new Set(corpus.memories.map((m) => m.content));
    const lower = PROJECTS.map((p) => p.toLowerCase());
    for (let i = 0; i < 4000; i++) {
      const name = fillerProject(i).toLowerCase();
      expect(lower.some((p) => name.includes(p))).toBe(false);
    }
    for (let i = 0; i < 3000; i++) {
      const f = fillerMemory(i);
      expect(contents.has(f.content)).toBe(false);
      const text = f.content.toLowerCase();
      expect(
        lower.some((p) => text.includes(p)),
        f.content,
      ).toBe(false);
    }
  });
});
