/**
 * MemoryService: the one object the agent talks to for long-term memory. It ties
 * together the repository, hybrid search, the three-outcome ingest (duplicate /
 * update / new), selection, decay and the injection format.
 */
import type Database from 'better-sqlite3';
import type { Provider } from '../llm/types.js';
import { StoreError } from '../store/errors.js';
import { answersFor, shownHit } from './answers.js';
import type {
  LongTermMemory,
  MemoryListOptions,
  MemoryPatch,
  MemorySearchHit,
  MemorySearchOptions,
  RememberOptions,
} from './api.js';
import { OfflineEmbedder } from './embed.js';
import type { ExtractedMemory } from './extract.js';
import { formatMemories } from './format.js';
import { chainOf, restoreMemory } from './history.js';
import type { IngestJudge } from './judge.js';
import { lessonGate } from './lessons.js';
import { namesIn } from './names.js';
import { ProfileRepo } from './profile.js';
import { MemoryRepo } from './repo.js';
import { COLUMNS, type MemoryRow, toMemory } from './repo-rows.js';
import { isRelevant, querySlice, searchMemories } from './search.js';
import { DEFAULT_MAX_MEMORIES, DEFAULT_TOKEN_CAP, selectMemories } from './select.js';
import { type ImportableMemory, importMemories, ingestInTimeOrder } from './service-import.js';
import {
  type IngestContext,
  type IngestInput,
  type IngestOutcome,
  ingestOne,
  type RememberResult,
} from './service-ingest.js';
import { maintainMemories, reembedMissing } from './service-maintain.js';
import { activeImportant, checkNew, fromExtracted } from './service-queries.js';
import { dropCoveredSummaries, sourcesOf } from './sources.js';
import { readStatement } from './statement.js';
import { timeIntent } from './time-query.js';
import { type Embedder, type Memory, REFLECTION_TAG } from './types.js';
import {
  type ReflectionResult,
  type ReflectOptions,
  reflectMemories,
  type TuningResult,
  tunePriorities,
} from './upkeep.js';
import { areVersions } from './versions.js';

export type {
  ImportableMemory,
  IngestOutcome,
  LongTermMemory,
  MemorySearchHit,
  MemorySearchOptions,
  RememberOptions,
  RememberResult,
} from './api.js';
export { INGEST_NEIGHBOURS } from './service-queries.js';

export interface MemoryServiceOptions {
  db: Database.Database;
  /** Default: `new OfflineEmbedder()`. */
  embedder?: Embedder;
  now?: () => number;
  /** How often `recall` runs maintenance on its own (default one hour). */
  maintainEveryMs?: number;
  /** Settles close pairs at ingest (a cheap model); without one the offline rule decides alone. */
  judge?: IngestJudge;
}

export const MAINTAIN_EVERY_MS = 60 * 60 * 1000;
/** Retrieval candidates considered by `recall`. */
export const RECALL_CANDIDATES = 50;
/** Search hits examined for versions of one fact, at least. */
const FOLD_WINDOW = 20;
/** Memories embedded per embedder call by `reembed`. */
const EMBED_BATCH = 64;

export class MemoryService implements LongTermMemory {
  readonly repo: MemoryRepo;
  readonly embedder: Embedder;
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly profiles: ProfileRepo;
  private readonly maintainEveryMs: number;
  private lastMaintained: number | undefined;
  /** Set when a content edit dropped a vector that could not be rebuilt synchronously. */
  private vectorsStale = false;
  private readonly judge: IngestJudge | undefined;
  /** Ingests run one at a time: each decides against what the previous one wrote. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(opts: MemoryServiceOptions) {
    this.db = opts.db;
    this.now = opts.now ?? Date.now;
    this.embedder = opts.embedder ?? new OfflineEmbedder();
    this.repo = new MemoryRepo(this.db, this.now);
    this.profiles = new ProfileRepo(this.db, this.now);
    this.maintainEveryMs = opts.maintainEveryMs ?? MAINTAIN_EVERY_MS;
    this.judge = opts.judge;
  }

  /** Adds one memory through ingest (duplicate / update / new), embedding it. */
  async remember(m: IngestInput, opts: RememberOptions = {}): Promise<RememberResult> {
    checkNew(m);
    return this.serial(async () => {
      const [vector] = await this.embedOrSkip([m.content]);
      return ingestOne(this.ingestContext(opts.signal), m, vector, {
        useJudge: opts.judge !== false,
        at: opts.at,
      });
    });
  }

  /**
   * Ingests a batch from extraction (same pipeline), in order; one embedder call for
   * the batch. Items the model marked as about the project go to `projectScope` when given.
   */
  async ingest(
    extracted: ExtractedMemory[],
    ctx: { scope: string; projectScope?: string; sessionId?: string; signal?: AbortSignal },
  ): Promise<Array<{ outcome: IngestOutcome; memory: Memory }>> {
    const items = extracted.map((e) =>
      fromExtracted(e, {
        scope: e.about === 'project' && ctx.projectScope ? ctx.projectScope : ctx.scope,
        ...(ctx.sessionId === undefined ? {} : { sessionId: ctx.sessionId }),
      }),
    );
    items.forEach((item, index) => {
      try {
        checkNew(item);
      } catch (err) {
        throw new Error(`extracted memory ${index + 1} of ${items.length}: ${(err as Error).message}`, {
          cause: err,
        });
      }
    });
    if (items.length === 0) return [];
    return this.serial(async () => {
      const vectors = await this.embedOrSkip(items.map((i) => i.content));
      const out: Array<{ outcome: IngestOutcome; memory: Memory }> = [];
      for (const [index, item] of items.entries()) {
        const { outcome, memory } = await ingestOne(this.ingestContext(ctx.signal), item, vectors[index], {
          useJudge: true,
        });
        out.push({ outcome, memory });
      }
      return out;
    });
  }

  /**
   * Hybrid search (the query embedded with the service's embedder), weak matches
   * cut off, versions of one fact folded under the one that answers.
   */
  async search(text: string, opts: MemorySearchOptions = {}): Promise<MemorySearchHit[]> {
    const query = querySlice(text); // a long text is searched by its two ends
    if (query.trim() === '') return [];
    await this.refreshStaleVectors();
    const [queryVector] = await this.embedOrSkip([query]);
    const limit = opts.limit ?? 10;
    const hits = searchMemories(this.repo, query, {
      names: namesIn(readStatement(query)),
      limit: Math.max(limit * 2, FOLD_WINDOW),
      ...(opts.scopes === undefined ? {} : { scopes: opts.scopes }),
      ...(queryVector === undefined ? {} : { queryVector }),
      embedder: this.embedder.id,
    });
    const kept = opts.all === true ? hits : hits.filter(isRelevant);
    const intent = opts.intent ?? timeIntent(query, this.now());
    return answersFor(this.repo, query, kept, { intent, scopes: opts.scopes }).slice(0, limit).map(shownHit);
  }

  /**
   * The memory block for one turn: maintenance (at most once per `maintainEveryMs`),
   * retrieval for `query` plus every active CRITICAL/HIGH memory of the scopes,
   * selection under the count and token caps, then the selected are touched.
   */
  async recall(
    query: string,
    opts: { scopes: string[]; max?: number; tokenCap?: number },
  ): Promise<{ text: string; memories: Memory[] }> {
    // No memory at all (a new home): nothing to search, select or maintain.
    if (this.repo.isEmpty()) return { text: '', memories: [] };
    const now = this.now();
    if (this.lastMaintained === undefined || now - this.lastMaintained >= this.maintainEveryMs) {
      this.maintain();
    }
    // Every candidate competes (the selector weighs relevance), so no cut-off here.
    const hits = await this.search(query, {
      limit: RECALL_CANDIDATES,
      scopes: opts.scopes,
      intent: { kind: 'any' },
      all: true,
    });
    const top = hits[0]?.score ?? 0;
    const relevance = new Map(hits.map((h) => [h.memory.id, top > 0 ? h.score / top : 0]));
    const candidates = new Map(hits.map((h) => [h.memory.id, h.memory]));
    for (const m of activeImportant(this.repo, opts.scopes))
      if (!candidates.has(m.id)) candidates.set(m.id, m);

    // Lessons only for prompts they are about (lessons.ts).
    const chosen = selectMemories([...candidates.values()].filter(lessonGate(query)), {
      relevance,
      now: this.now(),
      max: opts.max ?? DEFAULT_MAX_MEMORIES,
      tokenCap: opts.tokenCap ?? DEFAULT_TOKEN_CAP,
    });
    // A reflection summary next to the very facts it summarises says nothing new.
    const summaries = chosen.filter((m) => m.tags.includes(REFLECTION_TAG)).map((m) => m.id);
    const selected = dropCoveredSummaries(chosen, sourcesOf(this.db, summaries));
    const ids = selected.map((m) => m.id);
    this.repo.touch(ids);
    const memories = this.repo.getMany(ids);
    const versions = new Map(hits.map((h) => [h.memory.id, h.versions]));
    return { text: formatMemories(memories, this.profile(), versions), memories };
  }

  /** Maintenance now: age decay, expired reminders and CRITICAL beyond the cap (per scope) soft-deleted. */
  maintain(): { decayed: number; expired: number; evicted: number } {
    const result = maintainMemories(this.repo, this.now());
    this.lastMaintained = this.now();
    return result;
  }

  /** Re-embeds up to `limit` active memories whose vector is missing or from another embedder. */
  async reembed(limit = 500): Promise<number> {
    const done = await reembedMissing(this.repo, this.embedder, limit, EMBED_BATCH);
    if (done < limit) this.vectorsStale = false;
    return done;
  }

  /** One memory by id (deleted ones too), or undefined. */
  get(id: number): Memory | undefined {
    return this.repo.get(id);
  }

  update(id: number, patch: MemoryPatch): Memory {
    const before = this.repo.get(id);
    const updated = this.repo.update(id, patch);
    if (before !== undefined && before.content !== updated.content) this.embedNow([updated]);
    return updated;
  }

  /** Soft delete: the row stays for history and export. */
  forget(id: number): Memory {
    return this.repo.softDelete(id);
  }

  /** Every version of the fact memory `id` belongs to, newest first (a StoreError when there is no such memory). */
  history(id: number): Memory[] {
    const chain = chainOf(this.repo, id);
    if (chain === undefined) throw new StoreError(`no memory with id ${id}`, 'not-found');
    return chain;
  }

  /**
   * Brings an old version back: active again beside the newer one (undoing a wrong
   * update), or with `replace` its statement becomes the current version from now on.
   */
  restore(id: number, opts: { replace?: boolean } = {}): { memory: Memory; replaced?: Memory } {
    const newerVersions = (m: Memory): Memory[] =>
      searchMemories(this.repo, m.content, { limit: FOLD_WINDOW, scopes: [m.scope] })
        .map((h) => h.memory)
        .filter((o) => o.validFrom >= m.validFrom && areVersions(m, o, (x) => readStatement(x.content)));
    const result = restoreMemory(this.repo, id, { ...opts, newerVersions });
    if (this.repo.getEmbedding(result.memory.id) === undefined) this.embedNow([result.memory]);
    return result;
  }

  list(opts: MemoryListOptions = {}): Memory[] {
    return this.repo.list({
      ...(opts.scopes === undefined ? {} : { scope: opts.scopes }),
      ...(opts.category === undefined ? {} : { category: opts.category }),
      ...(opts.includeInactive === undefined ? {} : { includeInactive: opts.includeInactive }),
      ...(opts.limit === undefined ? {} : { limit: opts.limit }),
    });
  }

  /** Every row, oldest first, including superseded and deleted ones (history). */
  exportAll(): Memory[] {
    return this.db
      .prepare<[], MemoryRow>(`SELECT ${COLUMNS} FROM memories ORDER BY id ASC`)
      .all()
      .map(toMemory);
  }

  /**
   * Adds the given memories as new rows (history fields such as `validTo`,
   * `deletedAt` and `supersededBy` links inside the batch are kept), skipping exact
   * duplicates by hash. All items are checked first: one bad item adds nothing.
   */
  importAll(memories: ImportableMemory[]): number {
    const added = importMemories(this.repo, memories);
    this.embedNow(added.filter((m) => m.deletedAt === null && m.validTo === null));
    return added.length;
  }

  /**
   * Ingests statements one at a time in time order (oldest first; items without a
   * time last, as said now), each through the ingest decisions as if added then.
   */
  async importStatements(
    items: ImportableMemory[],
    opts: { judge?: boolean; onProgress?: (done: number, total: number) => void } = {},
  ): Promise<Record<IngestOutcome, number>> {
    return ingestInTimeOrder(
      items,
      (statement, at) =>
        this.remember(statement, {
          ...(opts.judge === undefined ? {} : { judge: opts.judge }),
          ...(at === undefined ? {} : { at }),
        }),
      opts.onProgress,
    );
  }

  /** The user profile block ('' when empty). */
  profile(): string {
    return this.profiles.get();
  }

  /** Replaces the user profile (≤ 1,500 characters, else an Error; '' clears it). */
  setProfile(text: string): void {
    this.profiles.set(text);
  }

  /** Priority tuning on `provider` (see upkeep.ts). */
  tune(
    provider: Provider,
    topics: string,
    opts: { scopes: readonly string[]; signal?: AbortSignal },
  ): Promise<TuningResult> {
    return tunePriorities(this, provider, topics, opts);
  }

  /** Reflection: summaries of related memories (see upkeep.ts). */
  reflect(opts: ReflectOptions): Promise<ReflectionResult> {
    return reflectMemories(this, opts);
  }

  // ------------------------------------------------------------ internals

  private ingestContext(signal?: AbortSignal): IngestContext {
    return { db: this.db, repo: this.repo, embedderId: this.embedder.id, judge: this.judge, signal };
  }

  /** Runs `task` after every ingest queued before it (a failure does not stop the queue). */
  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Embeds at once when the embedder can do it synchronously; otherwise the next search does. */
  private embedNow(memories: Memory[]): void {
    if (memories.length === 0) return;
    const embedder = this.embedder;
    if (!(embedder instanceof OfflineEmbedder)) {
      this.vectorsStale = true;
      return;
    }
    this.db.transaction(() => {
      for (const m of memories) this.repo.setEmbedding(m.id, embedder.embedOne(m.content), embedder.id);
    })();
  }

  private async refreshStaleVectors(): Promise<void> {
    if (!this.vectorsStale) return;
    try {
      await this.reembed(EMBED_BATCH);
    } catch {
      // The embedder is still unavailable; full-text search works meanwhile.
    }
  }

  /**
   * Vectors for `texts`, or none when the embedder fails (e.g. a remote one is
   * down): memories are still stored and found by full-text search, and
   * `reembed` (or the next search) adds the vectors later.
   */
  private async embedOrSkip(texts: string[]): Promise<Array<Float32Array | undefined>> {
    try {
      const vectors = await this.embedder.embed(texts);
      if (vectors.length === texts.length) return vectors;
    } catch {
      // fall through
    }
    this.vectorsStale = true;
    return [];
  }
}
