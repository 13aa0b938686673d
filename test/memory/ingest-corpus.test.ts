import { describe, expect, it } from 'vitest';
import {
  buildIngestCorpus,
  CORPUS_END,
  CORPUS_START,
  INGEST_FAMILIES,
  type IngestEvent,
  yearMiddle,
} from '../../bench/memory-ingest-corpus.js';
import { LIBS } from '../../bench/memory-ingest-corpus-data.js';

const CJK = /[\u4e00-\u9fff]/;

/** Versions of each fact (restatements left out), in version order. */
function chainsOf(events: IngestEvent[]): Map<string, IngestEvent[]> {
  const chains = new Map<string, IngestEvent[]>();
  for (const e of events) {
    if (e.paraphraseOf !== undefined) continue;
    chains.set(e.fact, [...(chains.get(e.fact) ?? []), e]);
  }
  for (const vs of chains.values()) vs.sort((a, b) => a.version - b.version);
  return chains;
}

describe('memory ingest bench corpus', () => {
  const corpus = buildIngestCorpus({ size: 2000 });
  const { events, questions } = corpus;
  const byKey = new Map(events.map((e) => [e.key, e]));
  const chains = chainsOf(events);

  it('is deterministic for a seed and differs across seeds', () => {
    expect(buildIngestCorpus({ size: 2000 })).toEqual(corpus);
    const other = buildIngestCorpus({ size: 2000, seed: 7 });
    expect(other.events.map((e) => e.content)).not.toEqual(events.map((e) => e.content));
  });

  it('has exactly `size` events with unique keys, sorted by time inside the corpus span', () => {
    expect(events).toHaveLength(2000);
    expect(byKey.size).toBe(events.length);
    for (let i = 1; i < events.length; i++) {
      expect(events[i]?.at ?? 0).toBeGreaterThanOrEqual(events[i - 1]?.at ?? 0);
    }
    for (const e of events) {
      expect(e.at).toBeGreaterThanOrEqual(CORPUS_START);
      expect(e.at).toBeLessThan(CORPUS_END);
    }
    expect(questions).toHaveLength(300);
    expect(buildIngestCorpus({ size: 2000, questions: 120 }).questions).toHaveLength(120);
  });

  it('spans at least 12 families, each with at least 50 subjects, and at least 40% Chinese events', () => {
    const families = new Map<string, Set<string>>();
    for (const e of events) families.set(e.family, (families.get(e.family) ?? new Set()).add(e.fact));
    expect(families.size).toBeGreaterThanOrEqual(12);
    expect(families.size).toBe(INGEST_FAMILIES.length);
    for (const [family, facts] of families) expect(facts.size, family).toBeGreaterThanOrEqual(50);
    const zh = events.filter((e) => e.lang === 'zh').length;
    expect(zh / events.length).toBeGreaterThanOrEqual(0.4);
    const langs = new Set(INGEST_FAMILIES.map((f) => f.lang));
    expect(langs).toEqual(new Set(['en', 'zh']));
  });

  it('writes clean sentences: no template leftovers, punctuation and script matching the language', () => {
    for (const e of events) {
      expect(e.content, e.key).not.toMatch(/[{}]|\$|undefined|NaN|\s{2}/);
      if (e.lang === 'zh') {
        expect(e.content, e.key).toMatch(CJK);
        expect(e.content.endsWith('。'), e.key).toBe(true);
      } else {
        expect(e.content, e.key).not.toMatch(CJK);
        expect(e.content.endsWith('.'), e.key).toBe(true);
        expect(e.content[0], e.key).toMatch(/[A-Za-z0-9@]/);
      }
      expect(e.content.includes(e.value), e.key).toBe(true);
    }
    for (const q of questions) {
      expect(q.text, q.text).not.toMatch(/[{}]|\$|undefined|NaN|\s{2}/);
      expect(CJK.test(q.text), q.text).toBe(q.lang === 'zh');
    }
  });

  it('builds update chains of 2-4 versions, ordered in time, each version worded differently', () => {
    const lengths = [...chains.values()].map((vs) => vs.length);
    for (const n of [2, 3, 4])
      expect(lengths.filter((l) => l === n).length, `chains of ${n}`).toBeGreaterThan(10);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(4);
    const multi = lengths.filter((l) => l >= 2).length / lengths.length;
    expect(multi).toBeGreaterThanOrEqual(0.2);
    expect(multi).toBeLessThanOrEqual(0.3);
    let reframed = 0;
    for (const vs of chains.values()) {
      expect(vs.map((v) => v.version)).toEqual(vs.map((_, i) => i + 1));
      for (let i = 1; i < vs.length; i++) {
        const [a, b] = [vs[i - 1] as IngestEvent, vs[i] as IngestEvent];
        expect(b.content).not.toBe(a.content);
        expect(b.value).not.toBe(a.value);
        expect(b.at - a.at).toBeGreaterThanOrEqual(14 * 86_400_000);
        // Same frame means the texts match once the values are blanked out.
        if (a.content.replace(a.value, '#') !== b.content.replace(b.value, '#')) reframed++;
      }
      expect(new Set(vs.map((v) => v.family)).size).toBe(1);
    }
    const updates = lengths.reduce((n, l) => n + l - 1, 0);
    expect(reframed / updates).toBeGreaterThan(0.5);
    expect(reframed / updates).toBeLessThan(0.95);
  });

  it('sets `latest` exactly on the last version of each fact (and on restatements of it)', () => {
    for (const e of events) {
      const vs = chains.get(e.fact) ?? [];
      expect(e.latest, e.key).toBe(e.version === vs.length);
    }
  });

  it('adds about 3% true duplicates inside the validity interval of the version they restate', () => {
    const dups = events.filter((e) => e.paraphraseOf !== undefined);
    expect(dups.length / events.length).toBeGreaterThanOrEqual(0.025);
    expect(dups.length / events.length).toBeLessThanOrEqual(0.035);
    for (const d of dups) {
      const orig = byKey.get(d.paraphraseOf ?? '');
      expect(orig, d.key).toBeDefined();
      if (!orig) continue;
      expect(orig.paraphraseOf).toBeUndefined();
      expect([d.fact, d.version, d.value, d.latest, d.family]).toEqual([
        orig.fact,
        orig.version,
        orig.value,
        orig.latest,
        orig.family,
      ]);
      expect(d.content).not.toBe(orig.content);
      expect(d.at).toBeGreaterThan(orig.at);
      const next = chains.get(d.fact)?.[d.version];
      if (next) expect(d.at).toBeLessThan(next.at);
    }
  });

  it('labels questions with existing keys of the right fact', () => {
    for (const q of questions) {
      const target = byKey.get(q.expect);
      expect(target, q.text).toBeDefined();
      expect(target?.fact).toBe(q.fact);
      expect(target?.family).toBe(q.family);
      expect(target?.lang).toBe(q.lang);
      expect(target?.paraphraseOf).toBeUndefined();
      const versions = (chains.get(q.fact) ?? []).map((v) => v.key);
      expect([...q.older].sort()).toEqual(versions.filter((k) => k !== q.expect).sort());
      for (const k of q.older) expect(byKey.get(k)?.fact).toBe(q.fact);
      if (q.kind !== 'past') expect(target?.latest, q.text).toBe(true);
      // The question never gives its answer away.
      if (q.kind !== 'current' && (target?.value.length ?? 0) >= 2) {
        expect(q.text.includes(target?.value ?? ''), q.text).toBe(false);
      }
    }
  });

  it('spreads questions over kinds, families and languages', () => {
    const kinds = new Map<string, number>();
    for (const q of questions) kinds.set(q.kind, (kinds.get(q.kind) ?? 0) + 1);
    for (const kind of ['lexical', 'paraphrase', 'identifier', 'current', 'past']) {
      expect(kinds.get(kind) ?? 0, kind).toBeGreaterThanOrEqual(30);
    }
    expect(new Set(questions.map((q) => q.family)).size).toBe(INGEST_FAMILIES.length);
    const zh = questions.filter((q) => q.lang === 'zh').length / questions.length;
    expect(zh).toBeGreaterThanOrEqual(0.35);
    expect(zh).toBeLessThanOrEqual(0.5);
    expect(new Set(questions.map((q) => `${q.kind}|${q.fact}`)).size).toBe(questions.length);
  });

  it('asks current questions about changed facts and identifier questions with identifiers', () => {
    const libs = LIBS.map(([name]) => name);
    for (const q of questions) {
      if (q.kind === 'current') expect(q.older.length, q.text).toBeGreaterThanOrEqual(1);
      if (q.kind === 'identifier') {
        const hasId =
          /[A-Z]{2,}-\d+|[a-z0-9]+(?:[_.-][a-z0-9]+)+|[\w/.-]+\.(?:yaml|toml|ini|production)/.test(q.text) ||
          libs.some((l) => q.text.includes(l));
        expect(hasId, q.text).toBe(true);
      }
    }
  });

  it('answers past questions with the older version valid in the middle of the asked year', () => {
    const past = questions.filter((q) => q.kind === 'past');
    const years = new Set<number>();
    for (const q of past) {
      const year = Number(q.text.match(/\b(20\d\d)\b/)?.[1]);
      years.add(year);
      const vs = chains.get(q.fact) ?? [];
      const target = byKey.get(q.expect);
      expect(target?.latest, q.text).toBe(false);
      const next = vs[target?.version ?? 0];
      expect(target?.at ?? Infinity).toBeLessThanOrEqual(yearMiddle(year));
      expect(next?.at ?? -Infinity).toBeGreaterThan(yearMiddle(year));
    }
    expect(years.size).toBeGreaterThanOrEqual(2);
  });

  it('scales subjects with size', () => {
    const big = buildIngestCorpus({ size: 10000, questions: 50 });
    expect(big.events).toHaveLength(10000);
    expect(big.questions).toHaveLength(50);
    expect(new Set(big.events.map((e) => e.key)).size).toBe(10000);
    expect(big.events.filter((e) => e.lang === 'zh').length / 10000).toBeGreaterThanOrEqual(0.4);
    const perFamily = (es: IngestEvent[]) => {
      const m = new Map<string, Set<string>>();
      for (const e of es) m.set(e.family, (m.get(e.family) ?? new Set()).add(e.fact));
      return Math.min(...[...m.values()].map((s) => s.size));
    };
    expect(perFamily(big.events)).toBeGreaterThan(2 * perFamily(events));
  });
});
