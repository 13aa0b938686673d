import type Database from 'better-sqlite3';
import { nearestFromCopy } from './knn-mirror.js';
import { ACTIVE_SQL, MemoryRepo } from './repo.js';
import { queryTerms } from './segment.js';
import { UPDATE_MARKERS } from './statement-words.js';
import { cached } from './statements.js';
import { STOPWORDS } from './stopwords.js';
import type { Memory } from './types.js';
import { ensureVectorIndex, hasVectorIndex, unitBytes } from './vector-index.js';

export { querySlice } from './query-slice.js';

/** Which ranked list found a memory, and at which 1-based rank. */
export interface SearchRanks {
  trigram?: number;
  words?: number;
  vector?: number;
  /** Memories that name everything the query names ("Heron", "PROJ-142", "黄梦瑶"). */
  names?: number;
}

export interface MemoryHit {
  memory: Memory;
  score: number;
  ranks: SearchRanks;
  /** Cosine similarity with the query vector, when the vector list found it. */
  similarity?: number;
}

export interface SearchOptions {
  /** Results to return (default 10). */
  limit?: number;
  /** Only memories in one of these scopes; all scopes when omitted. */
  scopes?: string[];
  /** The query's embedding; used when a vec0 table of its dimension exists. */
  queryVector?: Float32Array;
  /** Only compare against vectors made by this embedder (recommended when embedders changed). */
  embedder?: string;
  /** "Now" for expiry and recency, epoch ms (default: the repo's clock). */
  now?: number;
  /**
   * Names the query is about: memories that contain all of them form one more
   * ranked list, so a question about "Heron" finds Heron's facts before other
   * projects' facts that share its sentence frame.
   */
  names?: readonly string[];
}

/** Reciprocal rank fusion constant. */
export const RRF_K = 60;
/** How many candidates each ranked list contributes. */
export const CANDIDATES_PER_LIST = 50;
/** List weights: exact-looking queries trust the full-text lists more than vectors. */
export const FUSION_WEIGHTS = {
  normal: { trigram: 1, words: 1, vector: 1, names: 1 },
  exact: { trigram: 1.5, words: 1.5, vector: 0.5, names: 1 },
} as const;
/**
 * Each prior can lift a score by at most this fraction, so priors only break
 * near-ties. Being one rank better in all four lists is worth ~1.6%: at 4% a
 * newer statement about another thing outranked the one asked about. Which
 * version of one fact comes first is the version logic's job (versions.ts, rivals.ts).
 */
const PRIOR_WEIGHT = 0.01;
const RECENCY_HALF_LIFE_DAYS = 60;
const DAY_MS = 86_400_000;
/** Over-fetch of the full-text lists: inactive or out-of-scope rows are filtered after ranking. */
const OVERFETCH = 4;
/**
 * Neighbours the KNN returns. Rank fusion barely counts ranks beyond ~40, and a
 * larger k costs (sqlite-vec keeps its top-k sorted): 64 → 40 left recall@5 the
 * same on both memory benches and took ~0.5 ms off a search at 10k.
 */
const VECTOR_K = 40;

type Source = MemoryRepo | Database.Database;
type ListName = keyof SearchRanks;

function repoOf(source: Source): MemoryRepo {
  return source instanceof MemoryRepo ? source : new MemoryRepo(source);
}

/**
 * True when the query looks like it wants an exact match: a quoted phrase, an
 * identifier (snake_case, camelCase, a path or file name) or a version number.
 */
export function isExactQuery(query: string): boolean {
  return (
    /"[^"]+"/.test(query) ||
    /\b[A-Za-z0-9]+_[A-Za-z0-9_]+\b/.test(query) ||
    /\b[a-z]+[A-Z][A-Za-z0-9]*\b/.test(query) ||
    /[\w.-]*\/[\w./-]+/.test(query) ||
    /\b[\w-]+\.(?:[cm]?[jt]sx?|py|rs|go|md|json|ya?ml|toml|sql|sh|txt)\b/.test(query) ||
    /\bv?\d+\.\d+(?:\.\d+)*\b/.test(query)
  );
}

/** FTS5 string literal. */
function quote(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/**
 * The trigram MATCH expression: quoted phrases whole, other chunks split on spaces
 * and punctuation; chunks under 3 characters cannot match a trigram index and are
 * dropped. Undefined when nothing is left.
 */
export function trigramQuery(query: string): string | undefined {
  const chunks: string[] = [];
  const rest = query.replace(/"([^"]+)"/g, (_, phrase: string) => {
    chunks.push(phrase.trim());
    return ' ';
  });
  for (const raw of rest.split(/[\s,;:!?()[\]{}"'`<>，。！？；：、（）“”‘’《》]+/u)) {
    chunks.push(raw.replace(/^[.\-/]+|[.\-/]+$/g, ''));
  }
  const long = [...new Set(chunks.filter((c) => Array.from(c).length >= 3))];
  // Stopwords ("the", "what", "which") match most rows: ranking them is slow and tells nothing.
  const meaningful = long.filter(
    (c) => !STOPWORDS.has(c.toLowerCase()) && !UPDATE_MARKERS.has(c.toLowerCase()),
  );
  const usable = (meaningful.length > 0 ? meaningful : long).slice(0, 64);
  return usable.length === 0 ? undefined : usable.map(quote).join(' OR ');
}

/** The word-index MATCH expression: every query term, OR-ed. */
export function wordsQuery(query: string): string | undefined {
  const terms = queryTerms(query);
  return terms.length === 0 ? undefined : terms.map(quote).join(' OR ');
}

/**
 * Any (or every) of the names, each as all of its word-index terms:
 * `("heron") OR ("黄梦" AND "梦瑶")`.
 */
export function namesQuery(names: readonly string[], join: 'OR' | 'AND' = 'OR'): string | undefined {
  const parts = names
    .map((name) => queryTerms(name).map(quote))
    .filter((terms) => terms.length > 0)
    .map((terms) => `(${terms.join(' AND ')})`);
  return parts.length === 0 ? undefined : parts.join(` ${join} `);
}

function scopeSql(scopes: string[] | undefined): string {
  return scopes === undefined ? '' : ' AND m.scope IN (SELECT value FROM json_each(@scopes))';
}

/**
 * Keeps, in each ranked list, the ids (in their order) that are active and in
 * scope — and for the vector list, made by `embedder` — at most
 * CANDIDATES_PER_LIST each. One query for all lists: filtering after ranking
 * keeps the full-text and KNN queries on their fast paths.
 */
function activeLists(
  db: Database.Database,
  raw: Partial<Record<ListName, number[]>>,
  filter: { now: number; scopes?: string[] | undefined; embedder?: string | undefined },
): Partial<Record<ListName, number[]>> {
  const all = [...new Set(Object.values(raw).flat())];
  if (all.length === 0) return raw;
  const rows = cached(
    db,
    `SELECT m.id, m.embedder FROM memories m WHERE m.id IN (SELECT value FROM json_each(@ids))
       AND ${ACTIVE_SQL}${scopeSql(filter.scopes)}`,
  ).all({
    ids: JSON.stringify(all),
    now: filter.now,
    ...(filter.scopes === undefined ? {} : { scopes: JSON.stringify(filter.scopes) }),
  }) as Array<{ id: number; embedder: string | null }>;
  const embedderOf = new Map(rows.map((r) => [r.id, r.embedder]));
  const out: Partial<Record<ListName, number[]>> = {};
  for (const [name, ids] of Object.entries(raw) as [ListName, number[]][]) {
    const keep = (id: number) =>
      embedderOf.has(id) &&
      (name !== 'vector' || filter.embedder === undefined || embedderOf.get(id) === filter.embedder);
    out[name] = ids.filter(keep).slice(0, CANDIDATES_PER_LIST);
  }
  return out;
}

/** One full-text list, ranked on FTS5's fast path (filtered later, so over-fetched). */
function ftsIds(db: Database.Database, table: string, match: string): number[] {
  return cached(db, `SELECT rowid FROM ${table} WHERE ${table} MATCH ? ORDER BY rank LIMIT ?`, {
    pluck: true,
  }).all(match, CANDIDATES_PER_LIST * OVERFETCH) as number[];
}

/**
 * Exact KNN over the unit-vector index (inactive memories are not indexed, so a
 * small over-fetch covers the few the filter drops), with each neighbour's cosine.
 */
function vectorIds(db: Database.Database, vector: Float32Array, similarity: Map<number, number>): number[] {
  if (!hasVectorIndex(db, vector.length)) return [];
  const table = ensureVectorIndex(db, vector.length);
  const unit = unitBytes(vector);
  const knn =
    nearestFromCopy(
      db,
      table,
      vector.length,
      new Float32Array(unit.buffer, unit.byteOffset, vector.length),
      VECTOR_K,
    ) ??
    (cached(db, `SELECT rowid, distance FROM ${table} WHERE embedding MATCH ? AND k = ?`).all(
      unit,
      VECTOR_K,
    ) as Array<{ rowid: number; distance: number }>);
  // Unit vectors: cosine = 1 − L2² / 2.
  for (const { rowid, distance } of knn) similarity.set(rowid, 1 - (distance * distance) / 2);
  return knn.map((r) => r.rowid);
}

/** Fuses ranked id lists with weighted reciprocal rank fusion. */
function fuse(lists: Partial<Record<ListName, number[]>>, weights: Record<ListName, number>) {
  const fused = new Map<number, { rrf: number; ranks: SearchRanks }>();
  for (const [name, ids] of Object.entries(lists) as [ListName, number[]][]) {
    ids.forEach((id, index) => {
      const entry = fused.get(id) ?? { rrf: 0, ranks: {} };
      entry.rrf += weights[name] / (RRF_K + index + 1);
      entry.ranks[name] = index + 1;
      fused.set(id, entry);
    });
  }
  return fused;
}

/**
 * Cosine similarity with the query at which a vector-only match still counts
 * (calibrated on the offline embedder: unrelated statements sit below it).
 */
export const VECTOR_RELEVANCE = 0.35;

/**
 * Is a hit a real match, not just a neighbour the vector list always returns? It
 * shares a word with the query (word index), or its vector is close enough.
 */
export function isRelevant(hit: MemoryHit): boolean {
  return hit.ranks.words !== undefined || (hit.similarity ?? 0) >= VECTOR_RELEVANCE;
}

/** A fused score on a 0–1 scale: 1 is first in every list with the best priors. */
export function normalizedScore(score: number): number {
  const weights = FUSION_WEIGHTS.normal;
  const lists = weights.trigram + weights.words + weights.vector + weights.names;
  const best = (lists / (RRF_K + 1)) * (1 + 2 * PRIOR_WEIGHT);
  return Math.min(1, score / best);
}

/** A multiplier in [1, 1 + 2 × PRIOR_WEIGHT]: newer and more important memories rank slightly higher. */
function prior(memory: Memory, now: number): number {
  const ageDays = Math.max(0, now - memory.createdAt) / DAY_MS;
  const recency = 0.5 ** (ageDays / RECENCY_HALF_LIFE_DAYS);
  const importance = ((memory.importance - 1) / 4 + (3 - memory.priority) / 3) / 2;
  return 1 + PRIOR_WEIGHT * recency + PRIOR_WEIGHT * importance;
}

function ranked(
  repo: MemoryRepo,
  fused: Map<number, { rrf: number; ranks: SearchRanks }>,
  limit: number,
  now: number | undefined,
  similarity?: Map<number, number>,
): MemoryHit[] {
  // Priors lift a score by at most 1 + 2 × PRIOR_WEIGHT: only candidates that close to
  // the limit-th fused score can still make the cut, so only those rows are read.
  const order = [...fused.entries()].sort((a, b) => b[1].rrf - a[1].rrf);
  const floor = now === undefined ? 0 : (order[limit - 1]?.[1].rrf ?? 0) / (1 + 2 * PRIOR_WEIGHT);
  const memories = repo.getMany(order.filter(([, e], i) => i < limit || e.rrf >= floor).map(([id]) => id));
  const hits = memories.map((memory): MemoryHit => {
    const entry = fused.get(memory.id) ?? { rrf: 0, ranks: {} };
    const score = now === undefined ? entry.rrf : entry.rrf * prior(memory, now);
    const cos = similarity?.get(memory.id);
    return { memory, score, ranks: entry.ranks, ...(cos === undefined ? {} : { similarity: cos }) };
  });
  hits.sort((a, b) => b.score - a.score || b.memory.id - a.memory.id);
  return hits.slice(0, limit);
}

/** The two full-text ranked lists (trigram and words), unfiltered; a list is absent when the query has no usable term. */
function textLists(repo: MemoryRepo, query: string): Partial<Record<ListName, number[]>> {
  const lists: Partial<Record<ListName, number[]>> = {};
  const trigram = trigramQuery(query);
  if (trigram !== undefined) lists.trigram = ftsIds(repo.db, 'memories_fts_trigram', trigram);
  const words = wordsQuery(query);
  if (words !== undefined) lists.words = ftsIds(repo.db, 'memories_fts_words', words);
  return lists;
}

/**
 * Hybrid retrieval over active memories: trigram FTS, word FTS and (given a query
 * vector) sqlite-vec KNN, fused by reciprocal rank fusion with small recency and
 * importance priors. Superseded, deleted and expired memories never appear.
 */
export function searchMemories(source: Source, query: string, options: SearchOptions = {}): MemoryHit[] {
  const repo = repoOf(source);
  const now = options.now ?? repo.now();
  const limit = options.limit ?? 10;
  if (limit <= 0) return [];
  const raw = textLists(repo, query);
  const similarity = new Map<number, number>();
  if (options.queryVector !== undefined && options.queryVector.length > 0) {
    raw.vector = vectorIds(repo.db, options.queryVector, similarity);
  }
  const named = namesQuery(options.names ?? []);
  if (named !== undefined) raw.names = ftsIds(repo.db, 'memories_fts_words', named);
  const lists = activeLists(repo.db, raw, { now, scopes: options.scopes, embedder: options.embedder });
  const weights = isExactQuery(query) ? FUSION_WEIGHTS.exact : FUSION_WEIGHTS.normal;
  if (lists.names !== undefined) lists.names = byOtherLists(lists, weights);
  return ranked(repo, fuse(lists, weights), limit, now, similarity);
}

/**
 * The names list lifts memories that name what the query names above those that
 * do not, without reordering them among themselves: its order is the order the
 * other lists give them (then BM25 for those no other list found). On its own its
 * BM25 order favours the shortest statement naming "Heron", whatever it says.
 */
function byOtherLists(
  lists: Partial<Record<ListName, number[]>>,
  weights: Record<ListName, number>,
): number[] {
  const { names = [], ...others } = lists;
  const fused = fuse(others, weights);
  const score = (id: number) => fused.get(id)?.rrf ?? 0;
  return names
    .map((id, bm25) => ({ id, bm25 }))
    .sort((a, b) => score(b.id) - score(a.id) || a.bm25 - b.bm25)
    .map((x) => x.id);
}

/**
 * Active memories of the scopes that name any (or, with `every`, all) of `names`,
 * those naming more first (BM25): what the ingest judge should see of a subject,
 * however it was worded.
 */
export function namedMemories(
  source: Source,
  names: readonly string[],
  options: { scopes?: string[]; limit: number; now?: number; every?: boolean },
): Memory[] {
  const repo = repoOf(source);
  const match = namesQuery(names, options.every === true ? 'AND' : 'OR');
  if (match === undefined || options.limit <= 0) return [];
  const raw = { names: ftsIds(repo.db, 'memories_fts_words', match) };
  const filter = { now: options.now ?? repo.now(), scopes: options.scopes };
  return repo.getMany((activeLists(repo.db, raw, filter).names ?? []).slice(0, options.limit));
}

/**
 * Baseline for benchmarks: BM25 over the word index alone (the textbook lexical
 * baseline), active and in-scope memories, no priors.
 */
export function bm25Only(
  source: Source,
  query: string,
  options: Pick<SearchOptions, 'limit' | 'scopes' | 'now'> = {},
): MemoryHit[] {
  const repo = repoOf(source);
  const now = options.now ?? repo.now();
  const limit = options.limit ?? 10;
  const match = wordsQuery(query);
  if (limit <= 0 || match === undefined) return [];
  const raw = { words: ftsIds(repo.db, 'memories_fts_words', match) };
  const ids = (activeLists(repo.db, raw, { now, scopes: options.scopes }).words ?? []).slice(0, limit);
  return ranked(repo, fuse({ words: ids }, FUSION_WEIGHTS.normal), limit, undefined);
}

/** A stronger baseline for benchmarks: word + trigram full-text fused, equal weights, no priors. */
export function lexicalOnly(
  source: Source,
  query: string,
  options: Pick<SearchOptions, 'limit' | 'scopes' | 'now'> = {},
): MemoryHit[] {
  const repo = repoOf(source);
  const now = options.now ?? repo.now();
  const limit = options.limit ?? 10;
  if (limit <= 0) return [];
  const lists = activeLists(repo.db, textLists(repo, query), { now, scopes: options.scopes });
  return ranked(repo, fuse(lists, FUSION_WEIGHTS.normal), limit, undefined);
}
