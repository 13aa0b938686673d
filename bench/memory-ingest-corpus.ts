/**
 * A generated, labeled corpus for benchmarking memory *ingest* (duplicate / update / new decisions),
 * built to break it: statements arrive one at a time in time order, and many subjects share one
 * sentence frame ("The staging API of Heron runs on port 9090." / "The staging API of Osprey runs on
 * port 7000."), so a frame match alone says nothing about whether two statements describe one fact.
 *
 * - 20 template families (11 English, 9 Chinese), each with at least 50 subjects at size 2000 and more
 *   at larger sizes; subjects and values sit at different places in the sentence per frame.
 * - About a quarter of the facts change 1-3 times (2-4 versions, weeks to months apart). An update is
 *   phrased with the same frame and a new value, with a different plain frame (no "now"), or with an
 *   update frame ("now listens on", "从…改成了…", sometimes naming the old value).
 * - About 3% of events restate an earlier version's value in other words (`paraphraseOf`), inside that
 *   version's validity interval, so they are true duplicates.
 * - Events span 2023-11-01 .. 2026-11-01 UTC. A version is valid from its `at` to the next version's `at`.
 *   A 'past' question about year Y expects the version valid at `yearMiddle(Y)` (July 2, 00:00 UTC); it
 *   is only asked when that version is not the latest and covers more than half of that year.
 *
 * Everything comes from one seeded PRNG: the same options always yield the same corpus.
 */
import { buildPools } from './memory-ingest-corpus-data.js';
import { EN_PROJECT_FAMILIES } from './memory-ingest-corpus-en.js';
import { EN_PEOPLE_FAMILIES } from './memory-ingest-corpus-en-people.js';
import {
  type Family,
  type Frame,
  type IngestCategory,
  int,
  type Lang,
  mulberry32,
  pick,
  type Rng,
  type Subject,
  shuffle,
} from './memory-ingest-corpus-kit.js';
import { ZH_PEOPLE_FAMILIES } from './memory-ingest-corpus-zh-people.js';
import { ZH_PROJECT_FAMILIES } from './memory-ingest-corpus-zh-projects.js';

export interface IngestEvent {
  /** Unique, e.g. "api-port-heron-staging-v2"; a restatement adds "-dup". */
  key: string;
  /** The statement as a user would type it. */
  content: string;
  category: IngestCategory;
  /** Epoch ms when it was said; events are sorted by `at` ascending. */
  at: number;
  /** Id of the fact this states; all versions (and restatements) of one fact share it. */
  fact: string;
  /** 1 = first version of the fact, 2 = its first update, ... */
  version: number;
  /** True when no later version of this fact exists in the corpus. */
  latest: boolean;
  /** The value this version states (e.g. "9090"). */
  value: string;
  lang: Lang;
  /** Template family id, e.g. "api-port". */
  family: string;
  /** Set when this event restates an earlier event's value in other words (a true duplicate). */
  paraphraseOf?: string;
}

export type QuestionKind = 'lexical' | 'paraphrase' | 'identifier' | 'current' | 'past';

export interface IngestQuestion {
  text: string;
  lang: Lang;
  kind: QuestionKind;
  family: string;
  fact: string;
  /** Key of the version that answers it (a `paraphraseOf` restatement of it is equally right). */
  expect: string;
  /** Keys of the other versions of the same fact; [] if none. */
  older: string[];
}

export interface IngestCorpus {
  events: IngestEvent[];
  questions: IngestQuestion[];
}

export interface IngestCorpusOptions {
  /** Total number of events. */
  size: number;
  seed?: number;
  /** Number of questions (default 300). */
  questions?: number;
}

export const CORPUS_START = Date.UTC(2023, 10, 1);
export const CORPUS_END = Date.UTC(2026, 10, 1);
/** Years that 'past' questions may ask about. */
export const PAST_YEARS = [2024, 2025, 2026];
/** The instant a 'past' question about `year` refers to: July 2, 00:00 UTC (mid-year). */
export const yearMiddle = (year: number): number => Date.UTC(year, 6, 2);

const DAY = 86_400_000;
const MINUTE = 60_000;
const CHAIN_SHARE = 0.25;
const DUP_SHARE = 0.03;
const ZH_QUESTION_SHARE = 0.42;
const KIND_SHARE: [QuestionKind, number][] = [
  ['lexical', 0.22],
  ['paraphrase', 0.22],
  ['identifier', 0.16],
  ['current', 0.22],
  ['past', 0.18],
];

/** All families, English and Chinese interleaved (fact quotas are dealt round-robin in this order). */
export const INGEST_FAMILIES: readonly Family[] = (() => {
  const en = [...EN_PROJECT_FAMILIES, ...EN_PEOPLE_FAMILIES];
  const zh = [...ZH_PEOPLE_FAMILIES, ...ZH_PROJECT_FAMILIES];
  const out: Family[] = [];
  for (let i = 0; i < Math.max(en.length, zh.length); i++) {
    const e = en[i];
    const z = zh[i];
    if (e) out.push(e);
    if (z) out.push(z);
  }
  return out;
})();

interface FactRecord {
  family: Family;
  subject: Subject;
  fact: string;
  versions: IngestEvent[];
  /** The frame each version was written with. */
  frames: Frame[];
}

const chainLength = (rng: Rng): number => {
  const r = rng();
  return r < 0.5 ? 2 : r < 0.83 ? 3 : 4;
};

/** Times for `len` versions: gaps of 3 weeks to ~10 months, somewhere in the corpus span. */
function chainTimes(rng: Rng, len: number): number[] {
  const gaps = Array.from({ length: len - 1 }, () => int(rng, 21, 320));
  const span = gaps.reduce((a, b) => a + b, 0);
  const days = Math.floor((CORPUS_END - CORPUS_START) / DAY);
  let day = int(rng, 0, days - 1 - span);
  const out: number[] = [];
  for (let i = 0; i < len; i++) {
    out.push(CORPUS_START + day * DAY + int(rng, 7 * 60, 22 * 60) * MINUTE);
    day += gaps[i] ?? 0;
  }
  return out;
}

/** The frame for version >= 2: the same frame (value swapped), another plain frame, or an update frame. */
function nextFrame(rng: Rng, s: Subject, prev: Frame): Frame {
  const r = rng();
  if (r < 0.3) return prev;
  const pool = r < 0.5 ? s.say : s.update;
  const others = pool.filter((f) => f !== prev);
  return pick(rng, others.length > 0 ? others : pool);
}

function makeFact(rng: Rng, family: Family, s: Subject, len: number): FactRecord {
  const fact = `${family.id}:${s.slug}`;
  const times = chainTimes(rng, len);
  const used: string[] = [];
  const versions: IngestEvent[] = [];
  const frames: Frame[] = [];
  for (let v = 1; v <= len; v++) {
    const prev = used[used.length - 1] ?? '';
    const value = s.value(rng, used);
    used.push(value);
    const last = frames[frames.length - 1];
    const frame = last === undefined ? pick(rng, s.say) : nextFrame(rng, s, last);
    frames.push(frame);
    versions.push({
      key: `${family.id}-${s.slug}-v${v}`,
      content: frame(value, prev),
      category: family.category,
      at: times[v - 1] ?? CORPUS_START,
      fact,
      version: v,
      latest: v === len,
      value,
      lang: family.lang,
      family: family.id,
    });
  }
  return { family, subject: s, fact, versions, frames };
}

/** `count` restatements of earlier versions, each inside the restated version's validity interval. */
function makeDuplicates(rng: Rng, facts: FactRecord[], count: number): IngestEvent[] {
  const out: IngestEvent[] = [];
  const candidates = facts.flatMap((f) => f.versions.map((_, i) => ({ f, i })));
  for (const { f, i } of shuffle(rng, candidates)) {
    if (out.length >= count) break;
    const e = f.versions[i];
    if (e === undefined) continue;
    const room = (f.versions[i + 1]?.at ?? CORPUS_END) - e.at;
    if (room < 2 * DAY) continue;
    const prev = f.versions[i - 1]?.value ?? '';
    const texts = f.subject.say
      .filter((fr) => fr !== f.frames[i])
      .map((fr) => fr(e.value, prev))
      .filter((t) => !f.versions.some((v) => v.content === t));
    if (texts.length === 0) continue;
    const at = e.at + int(rng, DAY / MINUTE, Math.min(room - DAY, 120 * DAY) / MINUTE) * MINUTE;
    out.push({ ...e, key: `${e.key}-dup`, content: pick(rng, texts), at, paraphraseOf: e.key });
  }
  if (out.length < count) throw new Error(`ingest corpus: only ${out.length} of ${count} duplicates fit`);
  return out;
}

/** Index of the version valid at the middle of `year`, when it is not the latest and covers most of it. */
export function pastVersionIndex(versions: readonly { at: number }[], year: number): number | undefined {
  const mid = yearMiddle(year);
  const idx = versions.findLastIndex((v) => v.at <= mid);
  const from = versions[idx]?.at;
  const to = versions[idx + 1]?.at;
  if (from === undefined || to === undefined) return undefined;
  const y0 = Date.UTC(year, 0, 1);
  const y1 = Date.UTC(year + 1, 0, 1);
  return Math.min(to, y1) - Math.max(from, y0) > (y1 - y0) / 2 ? idx : undefined;
}

interface Candidate {
  rec: FactRecord;
  /** Index of the expected version. */
  idx: number;
  year?: number;
}

function candidates(kind: QuestionKind, rec: FactRecord): Candidate[] {
  const last = rec.versions.length - 1;
  switch (kind) {
    case 'lexical':
    case 'paraphrase':
      return [{ rec, idx: last }];
    case 'identifier':
      return rec.subject.ask.identifier ? [{ rec, idx: last }] : [];
    case 'current':
      return last >= 1 ? [{ rec, idx: last }] : [];
    case 'past':
      return PAST_YEARS.flatMap((year) => {
        const idx = pastVersionIndex(rec.versions, year);
        return idx === undefined ? [] : [{ rec, idx, year }];
      });
  }
}

function questionText(rng: Rng, kind: QuestionKind, c: Candidate): string {
  const ask = c.rec.subject.ask;
  const vs = c.rec.versions;
  switch (kind) {
    case 'lexical':
      return pick(rng, ask.lexical);
    case 'paraphrase':
      return pick(rng, ask.paraphrase);
    case 'identifier':
      return pick(rng, ask.identifier ?? ask.lexical);
    case 'current':
      return pick(rng, ask.current(vs[vs.length - 2]?.value ?? ''));
    case 'past':
      return pick(rng, ask.past(c.year ?? PAST_YEARS[0] ?? 2024));
  }
}

function makeQuestions(rng: Rng, facts: FactRecord[], total: number): IngestQuestion[] {
  const quota = new Map(KIND_SHARE.map(([kind, share]) => [kind, Math.round(total * share)]));
  // Rounding slack goes to lexical, so the quotas add up to `total`.
  quota.set(
    'lexical',
    total - KIND_SHARE.reduce((n, [k]) => n + (k === 'lexical' ? 0 : (quota.get(k) ?? 0)), 0),
  );
  const out: Record<QuestionKind, IngestQuestion[]> = {
    lexical: [],
    paraphrase: [],
    identifier: [],
    current: [],
    past: [],
  };
  let zh = 0;
  let asked = 0;
  let carry = 0;
  // Scarce kinds first; any shortfall is carried over to the next kind, ending with lexical.
  for (const kind of ['past', 'current', 'identifier', 'paraphrase', 'lexical'] as const) {
    const want = (quota.get(kind) ?? 0) + carry;
    const lists = new Map<Family, Candidate[]>();
    for (const rec of facts) {
      const cs = candidates(kind, rec);
      if (cs.length > 0) lists.set(rec.family, [...(lists.get(rec.family) ?? []), pick(rng, cs)]);
    }
    const turn: Record<Lang, number> = { en: 0, zh: 0 };
    let made = 0;
    while (made < want) {
      const open = (lang: Lang) =>
        INGEST_FAMILIES.filter((f) => f.lang === lang && (lists.get(f)?.length ?? 0) > 0);
      const wantZh = zh < ZH_QUESTION_SHARE * (asked + 1);
      const langs: Lang[] = wantZh ? ['zh', 'en'] : ['en', 'zh'];
      const lang = langs.find((l) => open(l).length > 0);
      if (lang === undefined) break;
      const fams = open(lang);
      const family = fams[turn[lang]++ % fams.length] as Family;
      const list = lists.get(family) ?? [];
      const c = list.splice(Math.floor(rng() * list.length), 1)[0];
      if (c === undefined) continue;
      const expect = c.rec.versions[c.idx]?.key ?? '';
      out[kind].push({
        text: questionText(rng, kind, c),
        lang,
        kind,
        family: family.id,
        fact: c.rec.fact,
        expect,
        older: c.rec.versions.map((v) => v.key).filter((k) => k !== expect),
      });
      made++;
      asked++;
      if (lang === 'zh') zh++;
    }
    carry = want - made;
  }
  return KIND_SHARE.flatMap(([kind]) => out[kind]);
}

/** Builds the corpus: exactly `size` events sorted by time, plus labeled questions. */
export function buildIngestCorpus(opts: IngestCorpusOptions): IngestCorpus {
  const size = Math.max(0, Math.floor(opts.size));
  const rng = mulberry32(opts.seed ?? 20261101);
  const dupCount = Math.round(size * DUP_SHARE);
  const lengths: number[][] = INGEST_FAMILIES.map(() => []);
  let total = 0;
  for (let i = 0; total < size - dupCount; i++) {
    const len = Math.min(rng() < CHAIN_SHARE ? chainLength(rng) : 1, size - dupCount - total);
    lengths[i % INGEST_FAMILIES.length]?.push(len);
    total += len;
  }
  const pools = buildPools(rng, Math.max(1, ...lengths.map((l) => l.length)));
  const facts: FactRecord[] = [];
  INGEST_FAMILIES.forEach((family, fi) => {
    const lens = lengths[fi] ?? [];
    if (lens.length === 0) return;
    const subjects = family.subjects(pools, rng, lens.length);
    lens.forEach((len, j) => {
      const s = subjects[j];
      if (s) facts.push(makeFact(rng, family, s, len));
    });
  });
  const events = [...facts.flatMap((f) => f.versions), ...makeDuplicates(rng, facts, dupCount)].sort(
    (a, b) => a.at - b.at,
  );
  return { events, questions: makeQuestions(rng, facts, opts.questions ?? 300) };
}
