/**
 * Long-term memory as the agent, the server and ACP use it: exactly the methods they
 * call. `MemoryService` (SQLite) implements it; another backend (e.g. PostgreSQL
 * with pgvector) implements the same methods. Faces and the agent import this type,
 * never the class.
 *
 * The methods SQLite answers at once may answer with a promise instead (`Answer`):
 * the runtime's memory loads the service on first use, and a networked backend
 * cannot answer synchronously. Callers await every method.
 */
import type { Provider } from '../llm/types.js';
import type { ExtractedMemory } from './extract.js';
import type { ImportableMemory } from './service-import.js';
import type { IngestInput, IngestOutcome, RememberResult } from './service-ingest.js';
import type { TimeIntent } from './time-query.js';
import type { Category, Memory, Priority } from './types.js';
import type { ReflectionResult, ReflectOptions, TuningResult } from './upkeep.js';

export type {
  ImportableMemory,
  IngestInput,
  IngestOutcome,
  ReflectionResult,
  ReflectOptions,
  RememberResult,
  TuningResult,
};

export interface RememberOptions {
  /** Ask the ingest judge (a cheap model) about close candidates when one is set (default true). */
  judge?: boolean;
  /** When the statement was made (epoch ms; default now): its creation and validity start. */
  at?: number;
  signal?: AbortSignal;
}

/** One search result: the version that answers, its 0–1 score, and the fact's other versions. */
export interface MemorySearchHit {
  memory: Memory;
  score: number;
  /** Other versions of the same fact, newest first. */
  versions: Memory[];
  /** A newer answer ranked above this one that is probably a later version of it. */
  newer?: number;
}

export interface MemorySearchOptions {
  limit?: number;
  scopes?: string[];
  /** Keep weak matches too (no relevance cut-off). */
  all?: boolean;
  /** Which version answers (default: read from the query: "now", "in 2023", "used to"…). */
  intent?: TimeIntent;
}

export interface MemoryListOptions {
  scopes?: string[];
  category?: Category;
  includeInactive?: boolean;
  limit?: number;
}

export interface MemoryPatch {
  content?: string;
  priority?: Priority;
  importance?: number;
  tags?: string[];
  pinned?: boolean;
}

/** A value now, or a promise of it: what a backend may return from a quick method. */
export type Answer<T> = T | Promise<T>;

export interface LongTermMemory {
  // Reading
  /** The memory block for one turn and the memories in it. */
  recall(
    query: string,
    opts: { scopes: string[]; max?: number; tokenCap?: number },
  ): Promise<{ text: string; memories: Memory[] }>;
  /** Ranked matches, versions of one fact folded under the one that answers. */
  search(text: string, opts?: MemorySearchOptions): Promise<MemorySearchHit[]>;
  list(opts?: MemoryListOptions): Answer<Memory[]>;
  /** One memory by id (deleted ones too), or undefined. */
  get(id: number): Answer<Memory | undefined>;
  /** Every version of the fact memory `id` belongs to, newest first (throws when there is no such memory). */
  history(id: number): Answer<Memory[]>;
  /** The user profile block ('' when empty). */
  profile(): Answer<string>;

  // Writing
  /** Adds one memory: a duplicate, an update of an older version, or new. */
  remember(m: IngestInput, opts?: RememberOptions): Promise<RememberResult>;
  /** A batch from extraction, through the same decisions, in order. */
  ingest(
    extracted: ExtractedMemory[],
    ctx: { scope: string; projectScope?: string; sessionId?: string; signal?: AbortSignal },
  ): Promise<Array<{ outcome: IngestOutcome; memory: Memory }>>;
  update(id: number, patch: MemoryPatch): Answer<Memory>;
  /** Soft delete: the row stays for history and export. */
  forget(id: number): Answer<Memory>;
  /** Brings an old version back, beside the newer one or (`replace`) as the current one. */
  restore(id: number, opts?: { replace?: boolean }): Answer<{ memory: Memory; replaced?: Memory }>;
  /** Adds memories as they are (history kept), skipping exact duplicates; returns how many were added. */
  importAll(memories: ImportableMemory[]): Answer<number>;
  /** Ingests statements in time order, each as if said then; counts by outcome. */
  importStatements(
    items: ImportableMemory[],
    opts?: { judge?: boolean; onProgress?: (done: number, total: number) => void },
  ): Promise<Record<IngestOutcome, number>>;
  /** Replaces the user profile (throws when too long; '' clears it). */
  setProfile(text: string): Answer<void>;

  // Upkeep (after a turn, in the background)
  /** Lets `provider` nudge the priorities of the scopes' memories given recent topics. */
  tune(
    provider: Provider,
    topics: string,
    opts: { scopes: readonly string[]; signal?: AbortSignal },
  ): Promise<TuningResult>;
  /** Summarises clusters of related memories on `opts.provider`. */
  reflect(opts: ReflectOptions): Promise<ReflectionResult>;
  /** Re-embeds up to `limit` memories whose vector is missing or from another embedder; returns how many. */
  reembed(limit?: number): Promise<number>;
}
