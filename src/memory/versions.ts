/**
 * Newest-first answers: search hits that are versions of one fact (one update
 * chain, the same subject and attribute, or the same statement with one value
 * swapped) become one result. The newest version answers; the others are folded
 * under it with their validity dates. A question about a past time ("in 2023",
 * "去年") is answered by the version valid then, "used to" by the one before.
 */
import { newestFirst, predecessorsOf } from './history.js';
import { overlap, relate } from './relate.js';
import type { MemoryRepo } from './repo.js';
import type { MemoryHit, SearchRanks } from './search.js';
import { readStatement, type Statement } from './statement.js';
import type { TimeIntent } from './time-query.js';
import type { Memory } from './types.js';

export interface VersionedHit {
  /** The version that answers the question. */
  memory: Memory;
  score: number;
  ranks: SearchRanks;
  /** The other versions of the same fact, newest first (empty when it has none). */
  versions: Memory[];
  /** A newer rival answer moved above this one (see rivals.ts). */
  newer?: number;
}

/** Content-word overlap below which two hits are not compared in detail (a swap keeps most words). */
const MIN_OVERLAP = 0.3;

const keyed = (m: Memory): string | undefined =>
  m.subject && m.attribute
    ? `${m.subject.trim().toLowerCase()}\u0000${m.attribute.trim().toLowerCase()}`
    : undefined;

function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((word, i) => word === b[i]);
}

/** Are two active memories versions of one fact? */
export function areVersions(a: Memory, b: Memory, read: (m: Memory) => Statement): boolean {
  if (a.scope !== b.scope) return false;
  const [ka, kb] = [keyed(a), keyed(b)];
  if (ka !== undefined && kb !== undefined) return ka === kb;
  const [older, newer] = newestFirst(a, b) > 0 ? [a, b] : [b, a];
  const [so, sn] = [read(older), read(newer)];
  // Cheap tests first: a version has the same subject phrase and swaps one short value.
  if (so.boundary !== -1 && sn.boundary !== -1 && !sameWords(so.subject, sn.subject)) return false;
  if (overlap(so, sn) < MIN_OVERLAP) return false;
  return relate(so, sn).kind === 'slot';
}

/** Groups of hit indexes that are versions of one fact, in rank order of their best hit. */
function groups(hits: MemoryHit[]): number[][] {
  const parent = hits.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i] as number] as number;
    return i;
  };
  const cache = new Map<number, Statement>();
  const read = (m: Memory): Statement => {
    let s = cache.get(m.id);
    if (s === undefined) {
      s = readStatement(m.content);
      cache.set(m.id, s);
    }
    return s;
  };
  for (let i = 0; i < hits.length; i++) {
    for (let j = i + 1; j < hits.length; j++) {
      if (find(i) === find(j)) continue;
      if (areVersions((hits[i] as MemoryHit).memory, (hits[j] as MemoryHit).memory, read)) {
        parent[find(j)] = find(i);
      }
    }
  }
  const out = new Map<number, number[]>();
  hits.forEach((_, i) => {
    const root = find(i);
    out.set(root, [...(out.get(root) ?? []), i]);
  });
  return [...out.values()];
}

/** When version `v` stopped being the answer: its own end, or when the next version began. */
function validUntil(v: Memory, newer: Memory | undefined): number {
  return v.validTo ?? newer?.validFrom ?? Number.POSITIVE_INFINITY;
}

/** The version that answers, given the question's time. `versions` are newest first. */
export function pickVersion(versions: Memory[], intent: TimeIntent): Memory {
  const newest = versions.find((v) => v.validTo === null && v.deletedAt === null) ?? (versions[0] as Memory);
  if (intent.kind === 'before')
    return versions.find((v) => v !== newest && v.validFrom <= newest.validFrom) ?? newest;
  if (intent.kind !== 'at') return newest;
  for (let i = 0; i < versions.length; i++) {
    const v = versions[i] as Memory;
    if (v.validFrom <= intent.at && intent.at < validUntil(v, versions[i - 1])) return v;
  }
  return newest;
}

/**
 * Folds version families among `hits` (best first) and their update chains into
 * one result each, at most `limit`.
 */
export function foldVersions(
  repo: MemoryRepo,
  hits: MemoryHit[],
  intent: TimeIntent,
  limit: number,
): VersionedHit[] {
  const families = groups(hits);
  const shown = families.slice(0, limit);
  const earlier = predecessorsOf(
    repo,
    shown.flatMap((g) => g.map((i) => (hits[i] as MemoryHit).memory.id)),
  );
  return shown.map((family) => {
    const best = hits[family[0] as number] as MemoryHit;
    const all = new Map<number, Memory>();
    for (const i of family) {
      const m = (hits[i] as MemoryHit).memory;
      all.set(m.id, m);
      for (const p of earlier.get(m.id) ?? []) all.set(p.id, p);
    }
    const versions = [...all.values()].sort(newestFirst);
    const memory = pickVersion(versions, intent);
    return {
      memory,
      score: best.score,
      ranks: best.ranks,
      versions: versions.filter((v) => v.id !== memory.id),
    };
  });
}
