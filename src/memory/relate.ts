/**
 * How two memory statements relate, read from their text alone: the same fact
 * (nothing new), two versions of one fact (same subject, one value swapped),
 * about different subjects, or close but unclear. Ingest turns this into
 * duplicate / update / new (unclear → new, or the judge model); search uses it to
 * fold versions of one fact under the newest.
 */
import { diffArrays } from 'diff';
import { namesIn } from './names.js';
import { isNegation, isValueToken, type Statement, type Token } from './statement.js';
import { OWNER_PREPOSITIONS, SINGLE_VALUED_EN, SINGLE_VALUED_ZH, ZH_SURNAMES } from './statement-words.js';

export type Relation =
  /** `newer` states nothing that `older` does not (a restatement or a narrower one). */
  | { kind: 'same' }
  /**
   * Same subject, same frame, one value swapped (or negated): two versions of one
   * fact. `single` when the attribute holds one value at a time (or the newer
   * statement says it changed), so the newer replaces the older.
   */
  | { kind: 'slot'; single: boolean }
  /** Alike, but the text cannot tell whether they are one fact: keep both (or ask the judge). */
  | { kind: 'close' }
  /** About different subjects (another person, project, ticket…): never one fact. */
  | { kind: 'apart' }
  /** Little in common. */
  | { kind: 'unrelated' };

/** Overlap of content words above which two statements count as close. */
export const CLOSE_JACCARD = 0.4;
/** A swapped value longer than this many tokens is not one value. */
const MAX_UNIT_TOKENS = 4;
const COPULA_VERBS = new Set(['is', 'are', 'was', 'were', 'be', 'am', '是']);

interface Hunk {
  /** Tokens only one side has, by content index. */
  a: Array<{ token: Token; at: number }>;
  b: Array<{ token: Token; at: number }>;
}

/**
 * Where the two content sequences differ, as hunks of tokens the other side lacks
 * (a word that only moved, "Heron's API" / "the API of Heron", is not a difference).
 */
function hunks(older: Statement, newer: Statement): Hunk[] {
  const a = older.content;
  const b = newer.content;
  const inA = new Set(a.map((t) => t.key));
  const inB = new Set(b.map((t) => t.key));
  const out: Hunk[] = [];
  let current: Hunk = { a: [], b: [] };
  let ia = 0;
  let ib = 0;
  const close = () => {
    if (current.a.length > 0 || current.b.length > 0) out.push(current);
    current = { a: [], b: [] };
  };
  for (const part of diffArrays(
    a.map((t) => t.key),
    b.map((t) => t.key),
  )) {
    const n = part.count ?? part.value.length;
    if (part.removed) {
      for (let k = 0; k < n; k++, ia++) {
        const token = a[ia] as Token;
        if (!inB.has(token.key)) current.a.push({ token, at: ia });
      }
    } else if (part.added) {
      for (let k = 0; k < n; k++, ib++) {
        const token = b[ib] as Token;
        if (!inA.has(token.key)) current.b.push({ token, at: ib });
      }
    } else {
      close();
      ia += n;
      ib += n;
    }
  }
  close();
  return out;
}

const unitClass = (t: Token): string =>
  t.kind === 'entity' || t.kind === 'ident' ? 'name' : t.kind === 'number' ? 'number' : t.kind;

/**
 * Values in a hunk side: runs of adjacent tokens of one kind ("New York", "豆浆",
 * "green tea", "30 minutes"); "Redis … caching" is two.
 */
function units(side: Array<{ token: Token; at: number }>): number {
  let count = 0;
  let last: { token: Token; at: number } | undefined;
  for (const item of side) {
    const glued =
      last !== undefined &&
      item.at === last.at + 1 &&
      (unitClass(item.token) === unitClass(last.token) ||
        (unitClass(last.token) === 'number' && item.token.kind === 'word'));
    if (!glued) count += 1;
    last = item;
  }
  return count;
}

function sameList(x: readonly string[], y: readonly string[]): boolean {
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** Both name values, and the same ones. */
function sameValues(a: Statement, b: Statement): boolean {
  const values = (s: Statement) => [...new Set(s.content.filter(isValueToken).map((t) => t.key))].sort();
  const [x, y] = [values(a), values(b)];
  return x.length > 0 && sameList(x, y);
}

/** Both read, with one non-empty subject phrase. */
function sameSubject(a: Statement, b: Statement): boolean {
  return a.boundary !== -1 && b.boundary !== -1 && a.subject.length > 0 && sameList(a.subject, b.subject);
}

/** The names, identifiers and numbers in a subject phrase (CJK words count: Chinese names have no capitals). */
function subjectValues(s: Statement): string[] {
  const before = s.boundary === -1 ? [] : s.content.slice(0, s.boundary);
  return before.filter((t) => isValueToken(t) || (t.kind === 'cjk' && t.key !== 'user')).map((t) => t.key);
}

/** Does the attribute (the frame both statements share) hold one value at a time? */
function singleValued(older: Statement, newer: Statement, swapped: Token[]): boolean {
  if (newer.updates) return true;
  if (swapped.every((t) => t.kind === 'number')) return true;
  if (swapped.some(isNegation)) return true;
  const copula = (s: Statement) => s.verb !== undefined && COPULA_VERBS.has(s.verb.raw.toLowerCase());
  if (copula(older) && copula(newer)) return true;
  const frame = new Set(newer.content.map((t) => t.key));
  if (older.content.some((t) => frame.has(t.key) && SINGLE_VALUED_EN.has(t.key))) return true;
  return SINGLE_VALUED_ZH.some((w) => older.text.includes(w) && newer.text.includes(w));
}

const contentKeys = new WeakMap<Statement, Set<string>>();

/** A statement's content-word keys (read statements are cached, and so are these). */
function keysOf(s: Statement): Set<string> {
  let keys = contentKeys.get(s);
  if (keys === undefined) {
    keys = new Set(s.content.map((t) => t.key));
    contentKeys.set(s, keys);
  }
  return keys;
}

/** Jaccard overlap of the two statements' content words. */
export function overlap(older: Statement, newer: Statement): number {
  const a = keysOf(older);
  const b = keysOf(newer);
  let shared = 0;
  for (const k of a) if (b.has(k)) shared++;
  const union = a.size + b.size - shared;
  return union === 0 ? 1 : shared / union;
}

/** The token written `offset` places from `token` (stopwords included), if any. */
function near(s: Statement, token: Token, offset: number): Token | undefined {
  return s.tokens[s.tokens.indexOf(token) + offset];
}

/**
 * Does the swapped value own the attribute rather than fill it? "the database of
 * Heron", "used by Heron", "Heron's port", "沈秀英的常住城市".
 */
function owns(s: Statement, first: Token, last: Token): boolean {
  const previous = near(s, first, -1);
  const next = near(s, last, 1);
  return (
    last.possessive ||
    (previous !== undefined && OWNER_PREPOSITIONS.has(previous.key)) ||
    (next !== undefined && next.raw === '的')
  );
}

const WH_WORDS = new Set(['when', 'where', 'what', 'who', 'which', 'how', 'why']);

/**
 * Is the subject after the copula? "Tuesdays at 16:30 is when the team holds X",
 * "乌龙茶是王磊每天早上必喝的", "每周三是Heron开评审的时间": what comes first is the
 * value, and a swap after the copula may be the subject.
 */
function inverted(s: Statement, last: Token): boolean {
  const verb = s.verb;
  if (verb === undefined || !COPULA_VERBS.has(verb.raw.toLowerCase())) return false;
  const after = s.tokens.indexOf(verb) + 1;
  if (WH_WORDS.has(s.tokens[after]?.key ?? '')) return true;
  return verb.raw === '是' && s.tokens.slice(s.tokens.indexOf(last) + 1).some((t) => t.raw === '的');
}

/**
 * Does a swapped value look like a name? Capitalised names and identifiers; in
 * Chinese, a run of single characters the word segmenter could not group (a
 * personal name such as 马娟: real words like 豆浆 or 上海 come out whole).
 */
function nameLike(s: Statement, side: Array<{ token: Token }>): boolean {
  if (side.some((x) => x.token.kind === 'entity' || x.token.kind === 'ident')) return true;
  const first = side[0]?.token;
  if (first === undefined || first.kind !== 'cjk') return false;
  const surname = (t: Token | undefined): boolean =>
    t !== undefined &&
    t.kind === 'cjk' &&
    (ZH_SURNAMES.has(t.raw) || ZH_SURNAMES.has(Array.from(t.raw)[0] ?? ''));
  const loose = (t: Token | undefined): boolean =>
    t !== undefined && t.kind === 'cjk' && !t.stop && Array.from(t.raw).length === 1;
  // 杨|美玲 swapped whole, 海燕 of 曾|海燕 when the surname is shared, or 马|娟 (two loose characters).
  return (
    surname(first) ||
    surname(near(s, first, -1)) ||
    side.some((x) => loose(x.token) && (loose(near(s, x.token, -1)) || loose(near(s, x.token, 1))))
  );
}

/** How many names (projects, people, tickets, hosts) the two statements have in common. */
export function sharedNames(a: Statement, b: Statement): number {
  const theirs = new Set(namesIn(b));
  return new Set(namesIn(a).filter((n) => theirs.has(n))).size;
}

const shareName = (a: Statement, b: Statement): boolean => sharedNames(a, b) > 0;

/** Is the token at content index `at` the statement's verb (a verb that is content, not a copula)? */
function verbSwapped(s: Statement, at: number): boolean {
  return s.verb !== undefined && !s.verb.stop && s.content[at] === s.verb;
}

/** One swapped value: where it sits decides whether the two statements are versions of one fact. */
function swapRelation(older: Statement, newer: Statement, hunk: Hunk): Relation {
  const [firstA, firstB] = [hunk.a[0], hunk.b[0]];
  if (firstA === undefined || firstB === undefined) return { kind: 'close' };
  const verbless = older.boundary === -1 && newer.boundary === -1;
  if (!verbless) {
    if (older.boundary === -1 || newer.boundary === -1) return { kind: 'close' };
    // The swap is in the subject phrase: another person, project or ticket — unless a
    // name both share says what the fact is about ("Dana / Marco is the owner of Heron").
    if (firstA.at < older.boundary || firstB.at < newer.boundary) {
      return shareName(older, newer) ? { kind: 'close' } : { kind: 'apart' };
    }
    // The verb itself changed ("uses vim" / "likes tea"): another attribute, maybe.
    if (verbSwapped(older, firstA.at) || verbSwapped(newer, firstB.at)) return { kind: 'close' };
    if (!sameList(older.subject, newer.subject)) return { kind: 'close' };
  }
  const lastA = (hunk.a.at(-1) as { at: number }).at;
  const lastB = (hunk.b.at(-1) as { at: number }).at;
  const final = lastA === older.content.length - 1 && lastB === newer.content.length - 1;
  // Without a verb only "label value" reads safely: the value must close the statement.
  if (verbless && !final) return { kind: 'close' };
  const swapped = [...hunk.a, ...hunk.b].map((x) => x.token);
  // "the database of Heron" / "Osprey": the name owns the attribute, it is not its value.
  const lastTokenA = (hunk.a.at(-1) as { token: Token }).token;
  const lastTokenB = (hunk.b.at(-1) as { token: Token }).token;
  if (owns(older, firstA.token, lastTokenA) || owns(newer, firstB.token, lastTokenB))
    return { kind: 'close' };
  if (inverted(older, lastTokenA) || inverted(newer, lastTokenB)) return { kind: 'close' };
  // A name swapped mid-sentence may be the topic ("we use X in Heron", "乌龙茶是马娟每天…"): unclear.
  if (!final && (nameLike(older, hunk.a) || nameLike(newer, hunk.b))) return { kind: 'close' };
  // Every value (number, name, identifier) kept, only wording swapped ("接口跑在5000端口" /
  // "服务端口是5000"): a restatement or another attribute with the same value — not a change.
  const valueSwapped = swapped.some(isValueToken) || nameLike(older, hunk.a) || nameLike(newer, hunk.b);
  if (!valueSwapped && sameValues(older, newer)) return { kind: 'close' };
  const single = singleValued(older, newer, swapped);
  // "罗伟负责夜翼平台" / "罗伟负责龙帆项目": two names on a relation that may hold both are two facts.
  if (!single && (nameLike(older, hunk.a) || nameLike(newer, hunk.b))) return { kind: 'close' };
  return { kind: 'slot', single };
}

/** How `newer` relates to `older` (the order matters only for "same": newer adds nothing). */
export function relate(older: Statement, newer: Statement): Relation {
  const diff = hunks(older, newer);
  const onlyNew = diff.flatMap((h) => h.b);
  const onlyOld = diff.flatMap((h) => h.a);
  const negationFlip = [...onlyNew, ...onlyOld].some((x) => isNegation(x.token));
  // Nothing new, and nothing dropped but plain words: "four thirty" → "four" (四点半 → 四点) is a change.
  const droppedValue = onlyOld.some((x) => isValueToken(x.token) || x.token.kind === 'cjk');
  if (onlyNew.length === 0 && !negationFlip && !droppedValue && overlap(older, newer) >= 0.6) {
    return { kind: 'same' };
  }
  // A retraction: the newer denies what the older says, in fewer words ("王磊不再喝豆浆了",
  // "Heron no longer uses Redis" after "Heron uses Redis for caching").
  if (onlyNew.length > 0 && onlyNew.every((x) => isNegation(x.token)) && sameSubject(older, newer)) {
    return { kind: 'slot', single: true };
  }

  if (diff.length === 1) {
    const hunk = diff[0] as Hunk;
    const clean =
      units(hunk.a) <= 1 &&
      units(hunk.b) <= 1 &&
      hunk.a.length <= MAX_UNIT_TOKENS &&
      hunk.b.length <= MAX_UNIT_TOKENS &&
      (hunk.a.length > 0 || hunk.b.length > 0);
    if (clean && hunk.a.length > 0 && hunk.b.length > 0) return swapRelation(older, newer, hunk);
    if (clean && negationFlip && sameList(older.subject, newer.subject) && older.boundary !== -1) {
      return { kind: 'slot', single: true };
    }
  }
  const bothRead = older.boundary !== -1 && newer.boundary !== -1;
  const [sa, sb] = [subjectValues(older), subjectValues(newer)];
  if (bothRead && sa.length > 0 && sb.length > 0 && !sa.some((k) => sb.includes(k))) {
    return shareName(older, newer) ? { kind: 'close' } : { kind: 'apart' };
  }
  // The same subject phrase in other words ("Heron's staging API now listens on 9191").
  if (bothRead && older.subject.length > 0 && sameList(older.subject, newer.subject))
    return { kind: 'close' };
  return overlap(older, newer) >= CLOSE_JACCARD ? { kind: 'close' } : { kind: 'unrelated' };
}
