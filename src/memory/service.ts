/**
 * MemoryService: the one object the agent talks to for long-term memory. It ties
 * together the repository, hybrid search, the three-outcome ingest (duplicate /
 * update / new), selection, decay and the injection format.
 */
import type Database from 'better-sqlite3';
import { criticalOverflow, decayChanges, expiredReminders } from './decay.js';
import { OfflineEmbedder } from './embed.js';
import type { ExtractedMemory } from './extract.js';
import { formatMemories } from './format.js';
import { decideIngest, hashContent, type IngestCandidate, type SimilarMemory } from './ingest.js';
import { ProfileRepo } from './profile.js';
import { MemoryRepo } from './repo.js';
import { COLUMNS, type MemoryRow, toMemory } from './repo-rows.js';
import { searchMemories } from './search.js';
import { DEFAULT_MAX_MEMORIES, DEFAULT_TOKEN_CAP, selectMemories } from './select.js';
import { type ImportableMemory, importMemories } from './service-import.js';
import {
  activeImportant,
  checkNew,
  fromExtracted,
  INGEST_NEIGHBOURS,
  liveMemories,
  sameKeyMemories,
} from './service-queries.js';
import type { Category, Embedder, Memory, NewMemory, Priority } from './types.js';

export type { ImportableMemory } from './service-import.js';
export { INGEST_NEIGHBOURS } from './service-queries.js';

export interface MemoryServiceOptions {
  db: Database.Database;
  /** Default: `new OfflineEmbedder()`. */
  embedder?: Embedder;
  now?: () => number;
  /** How often `recall` runs maintenance on its own (default one hour). */
  maintainEveryMs?: number;
}

export type IngestOutcome = 'duplicate' | 'update' | 'new';

export interface RememberResult {
  outcome: IngestOutcome;
  memory: Memory;
  /** The memory this one replaced (outcome `update`), now with `validTo` and `supersededBy` set. */
  superseded?: Memory;
}

export interface RememberOptions {
  /** Ask the ingest judge (a cheap model) about close candidates when one is set (default true). */
  judge?: boolean;
  /** When the statement was made (epoch ms; default now): its creation and validity start. */
  at?: number;
}

export const MAINTAIN_EVERY_MS = 60 * 60 * 1000;
/** Retrieval candidates considered by `recall`. */
export const RECALL_CANDIDATES = 50;
/** Memories embedded per embedder call by `reembed`. */
const EMBED_BATCH = 64;

export class MemoryService {
  readonly repo: MemoryRepo;
  readonly embedder: Embedder;
  private readonly db: Database.Database;
  private readonly now: () => number;
  private readonly profiles: ProfileRepo;
  private readonly maintainEveryMs: number;
  private lastMaintained: number | undefined;
  /** Set when a content edit dropped a vector that could not be rebuilt synchronously. */
  private vectorsStale = false;

  constructor(opts: MemoryServiceOptions) {
    this.db = opts.db;
    this.now = opts.now ?? Date.now;
    this.embedder = opts.embedder ?? new OfflineEmbedder();
    this.repo = new MemoryRepo(this.db, this.now);
    this.profiles = new ProfileRepo(this.db, this.now);
    this.maintainEveryMs = opts.maintainEveryMs ?? MAINTAIN_EVERY_MS;
  }

  /** Adds one memory through the three-outcome ingest, embedding it. */
  async remember(m: NewMemory & { value?: string }, _opts: RememberOptions = {}): Promise<RememberResult> {
    checkNew(m);
    const [vector] = await this.embedOrSkip([m.content]);
    return this.apply(m, vector);
  }

  /**
   * Ingests a batch from extraction (same pipeline), in order; one embedder call for
   * the batch. Items the model marked as about the project go to `projectScope` when given.
   */
  async ingest(
    extracted: ExtractedMemory[],
    ctx: { scope: string; projectScope?: string; sessionId?: string },
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
    const vectors = await this.embedOrSkip(items.map((i) => i.content));
    return items.map((item, index) => {
      const { outcome, memory } = this.apply(item, vectors[index]);
      return { outcome, memory };
    });
  }

  /** Hybrid search (embeds the query with the service's embedder). */
  async search(
    query: string,
    opts: { limit?: number; scopes?: string[] } = {},
  ): Promise<Array<{ memory: Memory; score: number }>> {
    if (query.trim() === '') return [];
    await this.refreshStaleVectors();
    const [queryVector] = await this.embedOrSkip([query]);
    const hits = searchMemories(this.repo, query, {
      limit: opts.limit ?? 10,
      ...(opts.scopes === undefined ? {} : { scopes: opts.scopes }),
      ...(queryVector === undefined ? {} : { queryVector }),
      embedder: this.embedder.id,
    });
    return hits.map(({ memory, score }) => ({ memory, score }));
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
    const now = this.now();
    if (this.lastMaintained === undefined || now - this.lastMaintained >= this.maintainEveryMs) {
      this.maintain();
    }
    const hits = await this.search(query, { limit: RECALL_CANDIDATES, scopes: opts.scopes });
    const top = hits[0]?.score ?? 0;
    const relevance = new Map(hits.map((h) => [h.memory.id, top > 0 ? h.score / top : 0]));
    const candidates = new Map(hits.map((h) => [h.memory.id, h.memory]));
    for (const m of activeImportant(this.repo, opts.scopes))
      if (!candidates.has(m.id)) candidates.set(m.id, m);

    const selected = selectMemories([...candidates.values()], {
      relevance,
      now: this.now(),
      max: opts.max ?? DEFAULT_MAX_MEMORIES,
      tokenCap: opts.tokenCap ?? DEFAULT_TOKEN_CAP,
    });
    const ids = selected.map((m) => m.id);
    this.repo.touch(ids);
    const memories = this.repo.getMany(ids);
    return { text: formatMemories(memories, this.profile()), memories };
  }

  /** Maintenance now: age decay, expired reminders and CRITICAL beyond the cap (per scope) soft-deleted. */
  maintain(): { decayed: number; expired: number; evicted: number } {
    const run = this.db.transaction(() => {
      const now = this.now();
      const live = liveMemories(this.repo);
      const changes = decayChanges(live, now);
      for (const change of changes) this.repo.setPriority(change.id, change.priority);
      const expired = new Set(expiredReminders(live, now));
      for (const id of expired) this.repo.softDelete(id);

      const priorityOf = new Map(changes.map((c) => [c.id, c.priority]));
      const byScope = new Map<string, Memory[]>();
      for (const m of live) {
        if (expired.has(m.id)) continue;
        const current = { ...m, priority: priorityOf.get(m.id) ?? m.priority };
        byScope.set(m.scope, [...(byScope.get(m.scope) ?? []), current]);
      }
      let evicted = 0;
      for (const group of byScope.values()) {
        for (const id of criticalOverflow(group)) {
          this.repo.softDelete(id);
          evicted += 1;
        }
      }
      return { decayed: changes.length, expired: expired.size, evicted };
    });
    const result = run.immediate();
    this.lastMaintained = this.now();
    return result;
  }

  /** Re-embeds up to `limit` active memories whose vector is missing or from another embedder. */
  async reembed(limit = 500): Promise<number> {
    let done = 0;
    while (done < limit) {
      const batch = this.repo.withoutEmbedding(this.embedder.id, Math.min(EMBED_BATCH, limit - done));
      if (batch.length === 0) break;
      const vectors = await this.embedder.embed(batch.map((m) => m.content));
      if (vectors.length !== batch.length) {
        throw new Error(
          `embedder ${this.embedder.id} returned ${vectors.length} vectors for ${batch.length} texts`,
        );
      }
      this.db.transaction(() => {
        batch.forEach((m, i) => {
          const vector = vectors[i];
          if (vector !== undefined) this.repo.setEmbedding(m.id, vector, this.embedder.id);
        });
      })();
      done += batch.length;
    }
    if (done < limit) this.vectorsStale = false;
    return done;
  }

  update(
    id: number,
    patch: { content?: string; priority?: Priority; importance?: number; tags?: string[]; pinned?: boolean },
  ): Memory {
    const before = this.repo.get(id);
    const updated = this.repo.update(id, patch);
    if (before !== undefined && before.content !== updated.content) this.embedNow([updated]);
    return updated;
  }

  /** Soft delete: the row stays for history and export. */
  forget(id: number): Memory {
    return this.repo.softDelete(id);
  }

  list(
    opts: { scopes?: string[]; category?: Category; includeInactive?: boolean; limit?: number } = {},
  ): Memory[] {
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

  /** The user profile block ('' when empty). */
  profile(): string {
    return this.profiles.get();
  }

  /** Replaces the user profile (≤ 1,500 characters, else an Error; '' clears it). */
  setProfile(text: string): void {
    this.profiles.set(text);
  }

  // ------------------------------------------------------------ internals

  /** Decides and writes one memory; synchronous so a batch cannot interleave with itself. */
  private apply(m: NewMemory & { value?: string }, vector: Float32Array | undefined): RememberResult {
    const scope = m.scope ?? 'user';
    const content = m.content.trim();
    const candidate: IngestCandidate = {
      content,
      category: m.category,
      hash: hashContent(content),
      ...(m.subject ? { subject: m.subject } : {}),
      ...(m.attribute ? { attribute: m.attribute } : {}),
      ...(m.value ? { value: m.value } : {}),
      ...(vector === undefined ? {} : { vector }),
    };
    const decision = decideIngest(candidate, this.similar(candidate, scope));
    if (decision.outcome === 'duplicate') {
      this.repo.touch([decision.id]);
      const memory = this.repo.get(decision.id);
      if (memory === undefined) throw new Error(`memory ${decision.id} vanished during ingest`);
      return { outcome: 'duplicate', memory };
    }
    const { value: _value, ...fields } = m;
    const input = {
      ...fields,
      content,
      scope,
      ...(vector === undefined ? {} : { embedding: vector, embedder: this.embedder.id }),
    };
    if (decision.outcome === 'new') return { outcome: 'new', memory: this.repo.add(input) };
    return this.db.transaction((): RememberResult => {
      const memory = this.repo.add(input);
      const superseded = this.repo.supersede(decision.supersedes, memory.id);
      return { outcome: 'update', memory, superseded };
    })();
  }

  /** The stored memories the ingest decision compares with: search neighbours, same hash, same key. */
  private similar(candidate: IngestCandidate, scope: string): SimilarMemory[] {
    const found = new Map<number, Memory>();
    const hits = searchMemories(this.repo, candidate.content, {
      limit: INGEST_NEIGHBOURS,
      scopes: [scope],
      ...(candidate.vector === undefined ? {} : { queryVector: candidate.vector }),
      embedder: this.embedder.id,
    });
    for (const hit of hits) found.set(hit.memory.id, hit.memory);
    const byHash = this.repo.findByHash(candidate.hash, scope);
    if (byHash !== undefined) found.set(byHash.id, byHash);
    if (candidate.subject && candidate.attribute) {
      for (const m of sameKeyMemories(this.repo, candidate.subject, candidate.attribute, scope))
        found.set(m.id, m);
    }
    return [...found.values()].map((memory) => {
      const stored = this.repo.getEmbedding(memory.id);
      return stored !== undefined && stored.embedder === this.embedder.id
        ? { memory, vector: stored.vector }
        : { memory };
    });
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
