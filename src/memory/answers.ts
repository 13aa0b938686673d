/**
 * From ranked hits to answers: versions of one fact folded under the one that
 * answers (versions.ts), then rivals reordered so the newest answer — or the one
 * valid at the asked time — comes first (rivals.ts), reading the asked subject's
 * own statements beyond the hits when the words ranked the answer low.
 */
import type { MemoryRepo } from './repo.js';
import { rivalsNewestFirst } from './rivals.js';
import { type MemoryHit, namedMemories, normalizedScore } from './search.js';
import type { TimeIntent } from './time-query.js';
import { foldVersions, type VersionedHit } from './versions.js';

/** How many statements naming the asked subject are read for rival answers the words ranked low. */
const NAMED_RIVALS = 30;

/** A hit as search returns it: the score on a 0–1 scale, what versions and rivals it has. */
export function shownHit(h: VersionedHit): {
  memory: VersionedHit['memory'];
  score: number;
  versions: VersionedHit['versions'];
  newer?: number;
} {
  return {
    memory: h.memory,
    score: normalizedScore(h.score),
    versions: h.versions,
    ...(h.newer === undefined ? {} : { newer: h.newer }),
  };
}

export function answersFor(
  repo: MemoryRepo,
  query: string,
  hits: MemoryHit[],
  opts: { intent: TimeIntent; scopes?: string[] | undefined },
): VersionedHit[] {
  const folded = foldVersions(repo, hits, opts.intent, hits.length);
  const inFolds = new Set(folded.flatMap((h) => h.versions.map((v) => v.id)));
  const naming = (subject: string[]): VersionedHit[] =>
    namedMemories(repo, subject, {
      limit: NAMED_RIVALS,
      every: true,
      ...(opts.scopes === undefined ? {} : { scopes: opts.scopes }),
    })
      .filter((m) => !inFolds.has(m.id))
      .map((memory) => ({ memory, score: 0, ranks: {}, versions: [] }));
  return rivalsNewestFirst(folded, query, opts.intent, naming);
}
