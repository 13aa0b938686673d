/**
 * Newest first among rival answers. Versions of one fact are often worded so
 * differently that nothing in the text ties them together ("Tundra is maintained
 * by Anika Petrov." / "Tundra has a new maintainer: Bruno Quinlan."). A question
 * ties them: both name what it asks about (its names: "Tundra", "PROJ-142",
 * "黄梦瑶") and both speak of the same thing. Among such rivals the one valid at
 * the asked time — by default the newest — moves up to the best place the rivals
 * hold; the others shift down by one. Nothing is hidden: this only reorders.
 */

import { newestFirst } from './history.js';
import { namesIn } from './names.js';
import { readStatement, type Statement } from './statement.js';
import type { TimeIntent } from './time-query.js';
import type { Memory } from './types.js';
import { pickVersion } from './versions.js';

/** A rival must score at least this share of the best rival: a faint match does not jump ahead. */
export const RIVAL_SCORE = 0.5;

/** Question words that say nothing about the attribute asked for. */
const QUESTION_WORDS = new Set(
  'what which who whom whose where when why how does did do is are was were 哪个 哪些 什么 谁 哪里 哪儿 哪 吗 呢 多少 几 怎么 如何 是否'.split(
    ' ',
  ),
);

export interface Rival {
  memory: Memory;
  score: number;
}

/** Content keys of a statement that are not part of the anchors. */
function attributeKeys(s: Statement, anchors: readonly string[]): Set<string> {
  const keys = new Set<string>();
  for (const t of s.content) {
    const raw = t.raw.toLowerCase();
    if (anchors.some((a) => a.includes(raw) || raw.includes(a))) continue;
    if (QUESTION_WORDS.has(t.key) || QUESTION_WORDS.has(t.raw)) continue;
    keys.add(t.key);
  }
  return keys;
}

function shares(a: Set<string>, b: Set<string>): boolean {
  for (const k of a) if (b.has(k)) return true;
  return false;
}

/**
 * Reorders `hits` (best first) so that among rivals for `query` the one that
 * answers comes first. Rivals: hits whose text contains every name of the
 * question, scoring at least RIVAL_SCORE of the best of them, and speaking of the
 * same thing (a word besides the names in common with each other or with the
 * question). Other hits keep their places.
 */
export function rivalsNewestFirst<T extends Rival>(hits: T[], query: string, intent: TimeIntent): T[] {
  const q = readStatement(query);
  const text = (m: Memory) => m.content.normalize('NFKC').toLowerCase();
  // A name no hit contains is a misreading of the question (e.g. a question word taken for a name).
  const anchors = namesIn(q).filter((a) => hits.some((h) => text(h.memory).includes(a)));
  if (anchors.length === 0) return hits;
  const named = hits.flatMap((h, i) => (anchors.every((a) => text(h.memory).includes(a)) ? [i] : []));
  if (named.length < 2) return hits;
  const best = Math.max(...named.map((i) => (hits[i] as T).score));
  const strong = named.filter((i) => (hits[i] as T).score >= RIVAL_SCORE * best);
  const asked = attributeKeys(q, anchors);
  const keys = new Map(
    strong.map((i) => [i, attributeKeys(readStatement((hits[i] as T).memory.content), anchors)]),
  );
  // Connected groups of rivals, in rank order.
  const related = (i: number, j: number): boolean => {
    const [mine, theirs] = [keys.get(i) as Set<string>, keys.get(j) as Set<string>];
    return shares(mine, theirs) || (shares(mine, asked) && shares(theirs, asked));
  };
  const groupOf = new Map<number, number[]>();
  for (const i of strong) {
    const group = [...groupOf.values()].find((g) => g.some((j) => related(i, j))) ?? [];
    if (group.length === 0) groupOf.set(i, group);
    group.push(i);
  }
  let out = [...hits];
  for (const group of groupOf.values()) {
    if (group.length < 2) continue;
    // The answer moves up to the best place the rivals hold; everything between shifts down by one.
    const members = group.map((i) => (hits[i] as T).memory).sort(newestFirst);
    const answer = pickVersion(members, intent);
    const from = out.findIndex((h) => h.memory.id === answer.id);
    const to = out.findIndex((h) => group.some((i) => (hits[i] as T).memory.id === h.memory.id));
    if (from <= to) continue;
    // An answer whose subject names another thing than the one asked about does not pass the
    // leader ("the staging API" asked: "the production API … now …" stays below "the staging API …").
    const [mine, leader] = [
      readStatement((out[from] as T).memory.content),
      readStatement((out[to] as T).memory.content),
    ];
    const asksLeader = leader.subject.some((k) => asked.has(k) && !mine.subject.includes(k));
    const ownQualifier = mine.subject.some((k) => !leader.subject.includes(k) && !anchors.includes(k));
    if (asksLeader && ownQualifier) continue;
    // Rivals are one answer: the one moved up shows the best score among them.
    const moved = { ...(out[from] as T), score: Math.max((out[from] as T).score, (out[to] as T).score) };
    out = [...out.slice(0, to), moved, ...out.slice(to, from), ...out.slice(from + 1)];
  }
  return out;
}
