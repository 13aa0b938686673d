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
import { KINDS, namesIn } from './names.js';
import { type Shape, type ShapedValue, shapedValues, shapeOf, shapesAsked } from './shapes.js';
import { readStatement as readText, type Statement } from './statement.js';
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

/** Readings of the texts rivals compare, kept across searches: a search reads each hit several times. */
const READ_CACHE = 2048;
const readings = new Map<string, { statement: Statement; values?: ShapedValue[] }>();

function reading(text: string): { statement: Statement; values?: ShapedValue[] } {
  let r = readings.get(text);
  if (r === undefined) {
    if (readings.size >= READ_CACHE) readings.clear();
    r = { statement: readText(text) };
    readings.set(text, r);
  }
  return r;
}

const readStatement = (text: string): Statement => reading(text).statement;

/** The values of known kinds a memory's text holds (read once per text). */
function valuesOf(text: string): ShapedValue[] {
  const r = reading(text);
  r.values ??= shapedValues(r.statement);
  return r.values;
}

export interface Rival {
  memory: Memory;
  score: number;
  /** A newer rival answer moved above this one (this one is probably an older version). */
  newer?: number;
}

/** A rival that a newer answer passed ranks visibly below it. */
const PASSED = 0.97;

/** Content keys of a statement that are not part of the anchors. */
function attributeKeys(s: Statement, anchors: readonly string[]): Set<string> {
  const keys = new Set<string>();
  for (const t of s.content) {
    const raw = t.raw.toLowerCase();
    if (anchors.some((a) => a.includes(raw) || raw.includes(a))) continue;
    if (QUESTION_WORDS.has(t.key) || QUESTION_WORDS.has(t.raw)) continue;
    // 平台 in 雷泉平台 is part of the name, not what is said of it; a lone character (用, 在) is glue.
    if (KINDS.has(t.raw) || /^\p{Script=Han}$/u.test(t.raw)) continue;
    keys.add(t.key);
  }
  return keys;
}

function shares(a: Set<string>, b: Set<string>): boolean {
  for (const k of a) if (b.has(k)) return true;
  return false;
}

/** Memory ids of rival groups, each in rank order. */
type Groups = number[][];

/**
 * Rivals by what the statements say: hits holding every name of the question,
 * scoring at least RIVAL_SCORE of the best of them, and speaking of the same
 * thing (a word besides the names in common with each other or with the question).
 */
function wordGroups<T extends Rival>(hits: T[], q: Statement, anchors: string[], asked: Set<string>): Groups {
  const text = (m: Memory) => m.content.normalize('NFKC').toLowerCase();
  const named = hits.flatMap((h, i) => (anchors.every((a) => text(h.memory).includes(a)) ? [i] : []));
  if (named.length < 2) return [];
  const best = Math.max(...named.map((i) => (hits[i] as T).score));
  const strong = named.filter((i) => (hits[i] as T).score >= RIVAL_SCORE * best);
  const keys = new Map(
    strong.map((i) => [i, attributeKeys(readStatement((hits[i] as T).memory.content), anchors)]),
  );
  // A key named beside the subject ("Kestrel rate_limit_per_minute", "鹤帆项目的batch_size") already says what is asked.
  const keyed =
    anchors.length > 1 && q.tokens.some((t) => t.kind === 'ident' && anchors.includes(t.key) && !shapeOf(t));
  const related = (i: number, j: number): boolean => {
    const [mine, theirs] = [keys.get(i) as Set<string>, keys.get(j) as Set<string>];
    return keyed || shares(mine, theirs) || (shares(mine, asked) && shares(theirs, asked));
  };
  const groups: Groups = [];
  for (const i of strong) {
    const group = groups.find((g) => g.some((j) => related(i, j)));
    if (group) group.push(i);
    else groups.push([i]);
  }
  return groups.filter((g) => g.length > 1).map((g) => g.map((i) => (hits[i] as T).memory.id));
}

/**
 * Rivals by the kind of value asked for: hits holding the question's subject
 * names and a value of the kind it asks for — by a question word ("who" → a
 * person) or by naming a value ("still on app-21.tyo2?" → a host; the last
 * value named is the one asked about, the names before it the subject).
 */
function shapeGroups<T extends Rival>(
  hits: T[],
  q: Statement,
  anchors: string[],
  more: (subject: string[]) => T[],
): Groups {
  const named = shapedValues(q);
  const asked = shapesAsked(q.text);
  // The value asked about is the last one named — but a ticket is a thing people work on: named
  // beside a person ("Is Wanda still working on STAR-3235?") it is the subject, the person the value.
  const person = named.find((v) => v.shape === 'person');
  const last = named.at(-1)?.shape === 'ticket' && person ? person : named.at(-1);
  const wanted = new Set<Shape>([...asked, ...(last ? [last.shape] : [])]);
  const groups: Groups = [];
  for (const shape of wanted) {
    // The value named in the question is no subject; names that are values of the kind asked are none either.
    const valueKeys = named.filter((v) => v.shape === shape).map((v) => v.key);
    // A value that is the only name is what the question is about ("What does mail.example.com point to?").
    const rest = anchors.filter((a) => !valueKeys.some((k) => k.includes(a)));
    const subject = rest.length > 0 ? rest : anchors;
    const holds = (m: Memory): boolean => {
      const s = readStatement(m.content);
      const text = s.text.normalize('NFKC').toLowerCase();
      if (!subject.every((a) => text.includes(a))) return false;
      return valuesOf(m.content).some((v) => v.shape === shape && !subject.some((a) => v.key.includes(a)));
    };
    const members = hits.flatMap((h, i) => (holds(h.memory) ? [i] : []));
    if (members.length === 0) continue;
    const best = Math.max(...members.map((i) => (hits[i] as T).score));
    const strong = members.filter((i) => (hits[i] as T).score >= RIVAL_SCORE * best);
    // The subject's other statements holding such a value, though the words ranked them low.
    const shown = new Set(hits.map((h) => h.memory.id));
    const others = more(subject).filter((h) => !shown.has(h.memory.id) && holds(h.memory));
    const group = [...strong.map((i) => (hits[i] as T).memory.id), ...others.map((h) => h.memory.id)];
    if (group.length > 1) groups.push(group);
  }
  return groups;
}

/**
 * Reorders `hits` (best first) so that among rivals for `query` the one that
 * answers comes first. Rivals are found by words (wordGroups) and by the kind of
 * value asked for (shapeGroups). Other hits keep their places.
 */
export function rivalsNewestFirst<T extends Rival>(
  hits: T[],
  query: string,
  intent: TimeIntent,
  /** Statements naming all of `subject` beyond the hits (none when not given). */
  naming: (subject: string[]) => T[] = () => [],
): T[] {
  const q = readText(query);
  const text = (m: Memory) => m.content.normalize('NFKC').toLowerCase();
  // A name no hit contains is a misreading of the question (e.g. a question word taken for a name).
  const anchors = namesIn(q).filter((a) => hits.some((h) => text(h.memory).includes(a)));
  if (anchors.length === 0) return hits;
  const asked = attributeKeys(q, anchors);
  // A question asking for a kind of value ("who") is not answered by a rival holding none.
  const kinds = shapesAsked(q.text);
  const answers = (m: Memory): boolean =>
    kinds.size === 0 || valuesOf(m.content).some((v) => kinds.has(v.shape));
  const pool = new Map<number, T>();
  const more = (subject: string[]): T[] => {
    const found = naming(subject);
    for (const h of found) pool.set(h.memory.id, h);
    return found;
  };
  let out = [...hits];
  for (const group of [...wordGroups(hits, q, anchors, asked), ...shapeGroups(hits, q, anchors, more)]) {
    out = promote(out, group, intent, { asked, anchors, answers, pool });
  }
  return out;
}

/** A word that can qualify a thing: not a number (a value), a lone Chinese character (glue) or a kind word (雷泉|平台). */
const qualifier = (k: string): boolean => !/^\d/.test(k) && !/^\p{Script=Han}$/u.test(k) && !KINDS.has(k);

/**
 * Whether `mine` names another thing than the `leader` the question asked about:
 * "the staging API" asked, "the production API … now …" is no rival of "the
 * staging API …". Both speak of one kind of thing besides the names (the API),
 * the leader's qualifier is asked for, and mine has its own.
 */
function contrasts(mine: Statement, leader: Statement, asked: Set<string>, anchors: string[]): boolean {
  const asksLeader = leader.subject.some((k) => asked.has(k) && !mine.subject.includes(k));
  const ownQualifier = mine.subject.some(
    (k) => qualifier(k) && !leader.subject.includes(k) && !anchors.includes(k) && !asked.has(k),
  );
  const sameKind = mine.subject.some(
    (k) => qualifier(k) && leader.subject.includes(k) && !anchors.includes(k),
  );
  return asksLeader && ownQualifier && sameKind;
}

/**
 * The rival that answers (by default the newest) moves up to the best place the
 * rivals hold; everything between shifts down by one.
 */
function promote<T extends Rival>(
  out: T[],
  group: number[],
  intent: TimeIntent,
  question: {
    asked: Set<string>;
    anchors: string[];
    answers: (m: Memory) => boolean;
    /** Rivals from beyond the hits, by id. */
    pool: ReadonlyMap<number, T>;
  },
): T[] {
  const { asked, anchors } = question;
  const to = out.findIndex((h) => group.includes(h.memory.id));
  if (to < 0) return out;
  const leader = readStatement((out[to] as T).memory.content);
  // Held to the kind of value asked for only when the leader holds one: else the question's kind was misread.
  const answers = question.answers((out[to] as T).memory) ? question.answers : () => true;
  const shown = new Set(out.map((h) => h.memory.id));
  const beyond = group.flatMap((id) => (shown.has(id) ? [] : [question.pool.get(id) as T]));
  const members = [...out.filter((h) => group.includes(h.memory.id)), ...beyond]
    .filter(
      (h, i) =>
        i === 0 || (answers(h.memory) && !contrasts(readStatement(h.memory.content), leader, asked, anchors)),
    )
    .map((h) => h.memory);
  const answer = pickVersion(members.sort(newestFirst), intent);
  const from = out.findIndex((h) => h.memory.id === answer.id);
  if (from >= 0 && from <= to) return out;
  // Rivals are one answer: the one moved up (or found beyond the hits) shows the best score among them.
  const best = Math.max((out[to] as T).score, from < 0 ? 0 : (out[from] as T).score);
  const moved = { ...(from < 0 ? (question.pool.get(answer.id) as T) : (out[from] as T)), score: best };
  const rest = from < 0 ? out.slice(to) : [...out.slice(to, from), ...out.slice(from + 1)];
  // The older rivals it passed say so, and rank visibly below it.
  const passed = new Set(members.filter((m) => m.validFrom < answer.validFrom).map((m) => m.id));
  const marked = rest.map((h) =>
    passed.has(h.memory.id) ? { ...h, newer: answer.id, score: Math.min(h.score, best * PASSED) } : h,
  );
  return [...out.slice(0, to), moved, ...marked];
}
