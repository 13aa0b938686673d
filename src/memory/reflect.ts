/**
 * Reflection, the pure part: which recent memories are related enough to be
 * summarised together (clusters), the prompt asking the cheap model for one
 * summary, a tolerant reader of its answer, and the summary memory itself —
 * which never outranks the memories it was made from.
 *
 * Relatedness is lexical so it works offline and is deterministic: two memories
 * are related when they name the same specific subject, or share at least
 * RELATED_MIN_SHARED topic terms making up at least RELATED_MIN_OVERLAP of the
 * shorter one's terms. Generic words ("user", "prefers", "project", 用户, 喜欢…)
 * are no topic. A cluster is a seed plus memories related to it and to most of
 * the cluster so far, so unrelated memories are never chained together through
 * a third one (as single-link grouping would).
 */
import { jsonrepair } from 'jsonrepair';
import { normalizeText, STOPWORDS, stem } from './embed.js';
import { DAY_MS } from './select.js';
import {
  CATEGORIES,
  type Category,
  type Memory,
  type NewMemory,
  type Priority,
  REFLECTION_TAG,
} from './types.js';
import { segmentWordsOf } from './words.js';

export { REFLECTION_TAG } from './types.js';
export const REFLECT_WINDOW_MS = 30 * DAY_MS;
/** A cluster needs at least this many related memories. */
export const REFLECT_MIN_CLUSTER = 3;
/** At most this many memories go into one summary (the seed's closest ones). */
export const REFLECT_MAX_CLUSTER = 12;
export const REFLECTION_MAX_CHARS = 400;
/** Per scope and category, only the newest this many candidates are compared (pairwise). */
export const REFLECT_MAX_GROUP = 300;
export const RELATED_MIN_SHARED = 2;
export const RELATED_MIN_OVERLAP = 0.25;
/** Each memory is shown to the model with at most this many characters. */
const PROMPT_MEMORY_CHARS = 300;

/** Words that say how a memory is phrased, not what it is about. */
const GENERIC = new Set([
  'user',
  'prefer',
  'preference',
  'like',
  'love',
  'want',
  'need',
  'use',
  'usually',
  'always',
  'never',
  'often',
  'please',
  'remember',
  'project',
  'assistant',
  'everything',
  'something',
  '用户',
  '喜欢',
  '偏好',
  '希望',
  '想要',
  '需要',
  '使用',
  '总是',
  '从不',
  '记住',
  '项目',
  '我们',
]);
/** Subjects too broad to relate two memories ("user / home city" and "user / editor"). */
const GENERIC_SUBJECTS = new Set([
  'user',
  'the user',
  'i',
  'me',
  'myself',
  'assistant',
  'project',
  'the project',
  'this project',
  '用户',
  '我',
  '项目',
  '本项目',
]);

const HAN_OR_KANA = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

export function isReflection(memory: Memory): boolean {
  return memory.tags.includes(REFLECTION_TAG);
}

function isLive(memory: Memory): boolean {
  return memory.deletedAt === null && memory.supersededBy === null && memory.validTo === null;
}

/**
 * What reflection may summarise: live, unexpired, non-CRITICAL, non-summary
 * memories created in the last 30 days.
 */
export function reflectionCandidates(memories: readonly Memory[], now: number): Memory[] {
  return memories.filter(
    (m) =>
      isLive(m) &&
      m.priority !== 0 &&
      !isReflection(m) &&
      (m.expiresAt === null || m.expiresAt > now) &&
      now - m.createdAt <= REFLECT_WINDOW_MS,
  );
}

/** One word as a topic term, or undefined for stopwords, generic words, numbers and single CJK characters. */
function term(word: string): string | undefined {
  const lower = word.toLowerCase().replace(/['’]s$/u, '');
  if (HAN_OR_KANA.test(lower)) return Array.from(lower).length < 2 || GENERIC.has(lower) ? undefined : lower;
  if (lower.length < 2 || /^[\d.,]+$/.test(lower) || STOPWORDS.has(lower) || GENERIC.has(lower))
    return undefined;
  const stemmed = stem(lower);
  return GENERIC.has(stemmed) ? undefined : stemmed;
}

/** The topic terms of a memory's content and tags (the reflection tag left out). */
export function topicTerms(memory: Pick<Memory, 'content' | 'tags'>): Set<string> {
  const text = [memory.content, ...memory.tags.filter((t) => t !== REFLECTION_TAG)].join('\n');
  const out = new Set<string>();
  for (const part of segmentWordsOf(text.normalize('NFKC'))) {
    if (!part.isWordLike) continue;
    const t = term(part.segment);
    if (t !== undefined) out.add(t);
  }
  return out;
}

function specificSubject(memory: Memory): string | undefined {
  if (memory.subject === null) return undefined;
  const subject = normalizeText(memory.subject);
  return subject === '' || GENERIC_SUBJECTS.has(subject) ? undefined : subject;
}

interface Profile {
  memory: Memory;
  terms: Set<string>;
  subject: string | undefined;
}

function profile(memory: Memory): Profile {
  return { memory, terms: topicTerms(memory), subject: specificSubject(memory) };
}

function sharedTerms(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const t of a) if (b.has(t)) shared += 1;
  return shared;
}

/** How strongly two memories are related: 0 when they are not (see the module comment). */
function relatedness(a: Profile, b: Profile): number {
  const shared = sharedTerms(a.terms, b.terms);
  if (a.subject !== undefined && a.subject === b.subject) return shared + 1;
  const shorter = Math.min(a.terms.size, b.terms.size);
  if (shared < RELATED_MIN_SHARED || shared / shorter < RELATED_MIN_OVERLAP) return 0;
  return shared;
}

/** Are these two memories about the same thing (lexically)? */
export function related(a: Memory, b: Memory): boolean {
  return relatedness(profile(a), profile(b)) > 0;
}

export interface Cluster {
  scope: string;
  category: Category;
  /** Related memories, ascending by id. */
  members: Memory[];
}

/**
 * Grows a cluster around `seed` from the free memories related to it, strongest
 * first; each joins only when related to more than half of the members so far,
 * so a seed that mentions two topics cannot pull both into one cluster.
 */
function grow(seed: number, links: number[][], free: (i: number) => boolean): number[] {
  const strength = links[seed] ?? [];
  const near = strength
    .flatMap((s, j) => (j !== seed && s > 0 && free(j) ? [j] : []))
    .sort((x, y) => (strength[y] ?? 0) - (strength[x] ?? 0) || x - y);
  const members = [seed];
  for (const j of near) {
    if (members.length >= REFLECT_MAX_CLUSTER) break;
    const linked = members.filter((i) => (links[i]?.[j] ?? 0) > 0).length;
    if (linked * 2 > members.length) members.push(j);
  }
  return members;
}

/**
 * Clusters of one scope and category, greedily: seeds by most related free
 * memories (ties: lowest id); the first seed that grows a big enough cluster
 * takes its members, and the rest is clustered again.
 */
function clustersOfGroup(group: Memory[]): Memory[][] {
  const newest = [...group]
    .sort((a, b) => b.createdAt - a.createdAt || b.id - a.id)
    .slice(0, REFLECT_MAX_GROUP);
  const profiles = newest.sort((a, b) => a.id - b.id).map(profile);
  const links = profiles.map((p) => profiles.map((q) => (p === q ? 0 : relatedness(p, q))));
  const taken = new Set<number>();
  const free = (i: number) => !taken.has(i);
  const out: Memory[][] = [];
  for (;;) {
    const degree = links.map((row, i) => (free(i) ? row.filter((s, j) => s > 0 && free(j)).length : -1));
    const seeds = degree
      .flatMap((d, i) => (d + 1 >= REFLECT_MIN_CLUSTER ? [i] : []))
      .sort((x, y) => (degree[y] ?? 0) - (degree[x] ?? 0) || x - y);
    let members: number[] | undefined;
    for (const seed of seeds) {
      const grown = grow(seed, links, free);
      if (grown.length >= REFLECT_MIN_CLUSTER) {
        members = grown;
        break;
      }
    }
    if (members === undefined) return out;
    for (const i of members) taken.add(i);
    out.push(members.map((i) => profiles[i]!.memory).sort((a, b) => a.id - b.id));
  }
}

/**
 * Clusters of related reflection candidates, per scope (a project's memories
 * never mix with the user's) and category. Deterministic: clusters with the
 * newest memory first, then by scope, category and lowest id.
 */
export function findClusters(memories: readonly Memory[], now: number): Cluster[] {
  const groups = new Map<string, Memory[]>();
  for (const m of reflectionCandidates(memories, now)) {
    const key = JSON.stringify([m.scope, m.category]);
    const group = groups.get(key);
    if (group) group.push(m);
    else groups.set(key, [m]);
  }
  const clusters: Cluster[] = [];
  for (const group of groups.values()) {
    if (group.length < REFLECT_MIN_CLUSTER) continue;
    const { scope, category } = group[0]!;
    for (const members of clustersOfGroup(group)) clusters.push({ scope, category, members });
  }
  const newest = (c: Cluster) => Math.max(...c.members.map((m) => m.createdAt));
  return clusters.sort(
    (a, b) =>
      newest(b) - newest(a) ||
      a.scope.localeCompare(b.scope) ||
      CATEGORIES.indexOf(a.category) - CATEGORIES.indexOf(b.category) ||
      a.members[0]!.id - b.members[0]!.id,
  );
}

function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** The prompt asking the cheap model for one summary of a cluster, or NONE. */
export function reflectionPrompt(cluster: Cluster): { system: string; user: string } {
  const system = [
    'You maintain the long-term memory of an AI assistant.',
    'You are given a few stored memories that may all be about one common topic.',
    'If they are, write ONE short summary that combines what they say:',
    `- at most ${REFLECTION_MAX_CHARS} characters, one self-contained statement;`,
    '- in the same language as the memories;',
    '- only what the memories say: add nothing, and keep names, numbers and versions exact.',
    'If they are not about one common topic, or a summary would add nothing, answer NONE.',
    'Answer with the summary text only (or NONE), without any introduction.',
  ].join('\n');
  const list = cluster.members.map((m) => `- ${clip(m.content, PROMPT_MEMORY_CHARS)}`).join('\n');
  const user = `Category: ${cluster.category}\nMemories:\n${list}`;
  return { system, user };
}

const JSON_KEYS = ['summary', 'text', 'content', 'memory'];

/** The summary inside a JSON answer; undefined when there is none (or it is null). */
function fromJson(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    try {
      value = JSON.parse(jsonrepair(text));
    } catch {
      return undefined;
    }
  }
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const record = value as Record<string, unknown>;
  const key = JSON_KEYS.find((k) => typeof record[k] === 'string');
  return key === undefined ? undefined : (record[key] as string);
}

/** Drops an introduction line ("Here is the summary:"), a label and wrapping quotes. */
function stripFrame(text: string): string {
  let body = text.trim();
  const lines = body.split('\n');
  if (lines.length > 1 && /[:：]\s*$/.test(lines[0] ?? '')) body = lines.slice(1).join('\n').trim();
  body = body.replace(/^(?:summary|摘要|总结)\s*[:：]\s*/i, '').replace(/^[-*•]\s+/, '');
  const quoted = /^(["“「'`])([\s\S]*)(["”」'`])$/.exec(body);
  if (quoted?.[2] !== undefined) body = quoted[2];
  return body.replace(/\s+/g, ' ').trim();
}

const NONE = /^(?:none|null|n\/a|无|没有)[.!。]?$/i;

/**
 * Reads the model's answer to `reflectionPrompt`: plain text, a JSON string or
 * `{"summary": …}`, possibly fenced or introduced. Undefined for NONE, empty or
 * unusable answers, and summaries longer than REFLECTION_MAX_CHARS. Never throws.
 */
export function parseSummary(answer: string): string | undefined {
  let body = answer.replace(/<think>[\s\S]*?<\/think>/gi, '').trim();
  const fenced = /```[\w-]*[ \t]*\n?([\s\S]*?)```/.exec(body);
  if (fenced?.[1] !== undefined) body = fenced[1].trim();
  if (/^[[{"]/.test(body)) {
    const inner = fromJson(body);
    if (inner === undefined) return undefined;
    body = inner;
  }
  const summary = stripFrame(body);
  if (/^NONE\b/.test(summary) || NONE.test(summary)) return undefined;
  if (!/\p{L}/u.test(summary) || /^[[{]/.test(summary)) return undefined;
  if (summary.length > REFLECTION_MAX_CHARS) return undefined;
  return summary;
}

/**
 * The summary memory of a cluster: same scope and category, tagged reflection,
 * never more important than its sources — the numerically largest (least
 * important) priority of the members and the smallest importance, read through
 * `importanceOf` (the members' importance after any demotion). A reminder
 * summary expires with its last reminder when all of them expire.
 */
export function summaryMemory(
  cluster: Cluster,
  content: string,
  importanceOf: (m: Memory) => number,
): NewMemory {
  const dues = cluster.members.map((m) => m.expiresAt);
  return {
    content,
    category: cluster.category,
    priority: Math.max(...cluster.members.map((m) => m.priority)) as Priority,
    importance: Math.min(...cluster.members.map(importanceOf)),
    tags: [REFLECTION_TAG],
    expiresAt: dues.every((d): d is number => d !== null) ? Math.max(...dues) : null,
    scope: cluster.scope,
  };
}
