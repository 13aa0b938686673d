/**
 * Long-term memory that loads its service on first real use. A new home has no
 * memories, and then a turn's recall (and the after-turn jobs' search, tuning,
 * reflection and re-embedding) has nothing to find: one prepared
 * `SELECT 1 FROM memories LIMIT 1` says so, and none of the ~40 memory modules is
 * evaluated. Anything else (a write, a list, the profile), or a table with rows,
 * loads the service with a dynamic import once and hands every call to it from then on.
 */
import type Database from 'better-sqlite3';
import type { Provider } from '../llm/types.js';
import type {
  ImportableMemory,
  IngestInput,
  LongTermMemory,
  MemoryListOptions,
  MemoryPatch,
  MemorySearchHit,
  MemorySearchOptions,
  ReflectionResult,
  ReflectOptions,
  RememberOptions,
  TuningResult,
} from '../memory/api.js';
import type { ExtractedMemory } from '../memory/extract.js';
import type { Memory } from '../memory/types.js';
import { usedFeature } from '../util/code-cache-feature.js';

export interface LazyMemoryOptions {
  /** The database the memories live in (called when first needed). */
  db: () => Database.Database;
  /** Builds the real service; called once, on first real use. */
  load: () => Promise<LongTermMemory>;
}

type IngestContext = Parameters<LongTermMemory['ingest']>[1];

const noUsage = () => ({ inputTokens: 0, outputTokens: 0 });

export class LazyMemory implements LongTermMemory {
  private service: LongTermMemory | undefined;
  private loading: Promise<LongTermMemory> | undefined;
  private anyRow: Database.Statement<[], unknown> | undefined;

  constructor(private readonly opts: LazyMemoryOptions) {}

  /** Whether the real service has been loaded. */
  get loaded(): boolean {
    return this.service !== undefined;
  }

  /** The real service, loaded on the first call (a failed load is tried again next time). */
  open(): Promise<LongTermMemory> {
    if (this.service) return Promise.resolve(this.service);
    usedFeature('memory');
    this.loading ??= this.opts.load().then(
      (service) => {
        this.service = service;
        return service;
      },
      (err: unknown) => {
        this.loading = undefined;
        throw err;
      },
    );
    return this.loading;
  }

  /** True while the service is not loaded and the memories table has no row (deleted ones count). */
  private emptyUnloaded(): boolean {
    if (this.service || this.loading) return false;
    this.anyRow ??= this.opts.db().prepare<[], unknown>('SELECT 1 FROM memories LIMIT 1');
    return this.anyRow.get() === undefined;
  }

  // Reading: nothing to find in an empty table.

  async recall(
    query: string,
    opts: { scopes: string[]; max?: number; tokenCap?: number },
  ): Promise<{ text: string; memories: Memory[] }> {
    // As MemoryService.recall: no memory at all, no block (not even the profile).
    if (this.emptyUnloaded()) return { text: '', memories: [] };
    return (await this.open()).recall(query, opts);
  }

  async search(text: string, opts?: MemorySearchOptions): Promise<MemorySearchHit[]> {
    if (this.emptyUnloaded()) return [];
    return (await this.open()).search(text, opts);
  }

  async list(opts?: MemoryListOptions): Promise<Memory[]> {
    return (await this.open()).list(opts);
  }

  async get(id: number): Promise<Memory | undefined> {
    return (await this.open()).get(id);
  }

  async history(id: number): Promise<Memory[]> {
    return (await this.open()).history(id);
  }

  async profile(): Promise<string> {
    return (await this.open()).profile();
  }

  // Writing: always the service.

  async remember(m: IngestInput, opts?: RememberOptions): ReturnType<LongTermMemory['remember']> {
    return (await this.open()).remember(m, opts);
  }

  async ingest(extracted: ExtractedMemory[], ctx: IngestContext): ReturnType<LongTermMemory['ingest']> {
    // An extraction that found nothing adds nothing.
    if (extracted.length === 0 && this.emptyUnloaded()) return [];
    return (await this.open()).ingest(extracted, ctx);
  }

  async update(id: number, patch: MemoryPatch): Promise<Memory> {
    return (await this.open()).update(id, patch);
  }

  async forget(id: number): Promise<Memory> {
    return (await this.open()).forget(id);
  }

  async restore(id: number, opts?: { replace?: boolean }): Promise<{ memory: Memory; replaced?: Memory }> {
    return (await this.open()).restore(id, opts);
  }

  async importAll(memories: ImportableMemory[]): Promise<number> {
    return (await this.open()).importAll(memories);
  }

  async importStatements(
    items: ImportableMemory[],
    opts?: Parameters<LongTermMemory['importStatements']>[1],
  ): ReturnType<LongTermMemory['importStatements']> {
    return (await this.open()).importStatements(items, opts);
  }

  async setProfile(text: string): Promise<void> {
    return (await this.open()).setProfile(text);
  }

  // Upkeep: nothing to tune, summarise or re-embed in an empty table.

  async tune(
    provider: Provider,
    topics: string,
    opts: { scopes: readonly string[]; signal?: AbortSignal },
  ): Promise<TuningResult> {
    if (this.emptyUnloaded()) return { changed: [], usage: noUsage() };
    return (await this.open()).tune(provider, topics, opts);
  }

  async reflect(opts: ReflectOptions): Promise<ReflectionResult> {
    if (this.emptyUnloaded()) return { summaries: [], demoted: 0, calls: 0, usage: noUsage() };
    return (await this.open()).reflect(opts);
  }

  async reembed(limit?: number): Promise<number> {
    if (this.emptyUnloaded()) return 0;
    return (await this.open()).reembed(limit);
  }
}
