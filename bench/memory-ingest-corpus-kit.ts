/**
 * Shared types and helpers for the ingest benchmark corpus (see memory-ingest-corpus.ts):
 * the seeded PRNG, the shape of a template family and of one subject (entity) in it.
 */

import { prng } from './memory-corpus.js';

export type Lang = 'en' | 'zh';
export type IngestCategory = 'fact' | 'preference' | 'instruction' | 'reminder' | 'general';
export type Rng = () => number;

/** mulberry32, the seeded PRNG of the older corpus (one seed, one corpus). */
export const mulberry32 = (seed: number): Rng => prng(seed);

export const pick = <T>(rng: Rng, xs: readonly T[]): T => {
  if (xs.length === 0) throw new Error('pick from an empty list');
  return xs[Math.floor(rng() * xs.length)] as T;
};

export const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));

/** A shuffled copy (Fisher-Yates). */
export function shuffle<T>(rng: Rng, xs: readonly T[]): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/** `n` distinct items drawn from a list; throws when the list is too short. */
export function take<T>(rng: Rng, xs: readonly T[], n: number, what: string): T[] {
  if (xs.length < n) throw new Error(`ingest corpus: need ${n} ${what}, only ${xs.length} available`);
  return shuffle(rng, xs).slice(0, n);
}

/** `n` distinct (a, b) pairs drawn from the product of two lists. */
export function pairs<A, B>(rng: Rng, as: readonly A[], bs: readonly B[], n: number, what: string): [A, B][] {
  const all: [A, B][] = [];
  for (const a of as) for (const b of bs) all.push([a, b]);
  return take(rng, all, n, what);
}

/** A value different from every value in `used` (a fact never returns to an earlier value). */
export function fresh(used: readonly string[], gen: () => string): string {
  for (let i = 0; i < 200; i++) {
    const v = gen();
    if (!used.includes(v)) return v;
  }
  throw new Error(`ingest corpus: no fresh value after ${used.join(', ')}`);
}

/** One way to state a value; `prev` is the value it replaces (empty for a first version). */
export type Frame = (value: string, prev: string) => string;

/** Question wordings for one subject. None of them contains the current value. */
export interface Asks {
  lexical: string[];
  paraphrase: string[];
  /** Only for subjects named by an identifier (ticket id, domain, config key, package name). */
  identifier?: string[];
  /** `prev` is a superseded value, for "still ...?" questions. */
  current: (prev: string) => string[];
  past: (year: number) => string[];
}

/** One entity of a family: the thing a fact is about (a project's port, a person's city, ...). */
export interface Subject {
  /** ASCII slug, unique in the family; used in keys and fact ids. */
  slug: string;
  /** Human-readable subject, e.g. "Heron staging API" or "王磊". */
  name: string;
  value: (rng: Rng, used: readonly string[]) => string;
  /** Plain statements of the value (first versions, restatements, silent updates). */
  say: Frame[];
  /** Statements that mark a change ("now", "moved to", "从…改成…"). */
  update: Frame[];
  ask: Asks;
}

export interface Person {
  name: string;
  slug: string;
}

export interface ZhProject {
  /** Full name as used in sentences, e.g. "青鸟系统" or "Heron项目". */
  name: string;
  /** Short form for casual questions, e.g. "青鸟" or "Heron". */
  short: string;
  slug: string;
  /** Upper-case ticket prefix, e.g. "QN". */
  code: string;
}

/** Entity pools for one corpus, already shuffled and capped to the corpus size. */
export interface Pools {
  /** Project names used by English families. */
  enProjects: string[];
  /** Projects used by Chinese families (Chinese code names plus English names never used in English families). */
  zhProjects: ZhProject[];
  enPeople: Person[];
  zhPeople: Person[];
  /** A ticket id with this prefix that is unique in the corpus. */
  ticket: (rng: Rng, prefix: string) => string;
}

export interface Family {
  id: string;
  lang: Lang;
  category: IngestCategory;
  /** `n` distinct subjects; frames collide across them on purpose. */
  subjects: (pools: Pools, rng: Rng, n: number) => Subject[];
}

export const slugify = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
