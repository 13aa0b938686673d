import type { Part } from '../llm/types.js';
import type { Store } from '../store/index.js';

/** How often streamed text is checkpointed by default. */
export const DRAFT_INTERVAL_MS = 200;

/**
 * Keeps a streaming assistant message durable: content marks the draft dirty,
 * and a flush shared by every draft of the same store writes all dirty drafts in
 * one transaction at most `intervalMs` after the first of them changed (the first
 * write creates a `partial` row, later ones rewrite it). `finish` writes the final
 * parts at once. A process killed mid-stream leaves the text streamed so far, less
 * at most one interval, in the store.
 */
export class DraftWriter {
  private id: number | undefined;
  private pending: (() => Part[]) | undefined;
  /** A failed background write, reported by the next `update`. */
  private failure: unknown;
  private readonly flusher: DraftFlusher;

  constructor(
    private readonly store: Store,
    private readonly sessionId: string,
    private readonly turnId: string,
    intervalMs = DRAFT_INTERVAL_MS,
  ) {
    this.flusher = DraftFlusher.for(store, intervalMs);
  }

  /** Notes new content; `parts` is called when the draft is written. Throws an earlier write's failure. */
  update(parts: () => Part[]): void {
    if (this.failure !== undefined) {
      const failure = this.failure;
      this.failure = undefined;
      throw failure;
    }
    this.pending = parts;
    this.flusher.schedule(this);
  }

  /**
   * Writes the final message (or nothing when it is empty and no draft exists); inside
   * a transaction, as part of it (a throw must roll it back whole).
   */
  finish(parts: Part[], status: 'complete' | 'partial'): void {
    this.pending = undefined;
    this.flusher.cancel(this);
    if (this.id === undefined) {
      if (parts.length === 0) return;
      this.id = this.store.messages.appendInTransaction(this.sessionId, {
        turnId: this.turnId,
        role: 'assistant',
        parts,
        status,
      }).id;
      return;
    }
    this.store.messages.update(this.id, { parts, status });
  }

  /**
   * The shared flush: writes the pending parts, creating the row on the first write.
   * Returns true when it created the row.
   */
  writePending(): boolean {
    const parts = this.pending;
    if (parts === undefined) return false;
    this.pending = undefined;
    try {
      if (this.id === undefined) {
        this.id = this.store.messages.append(this.sessionId, {
          turnId: this.turnId,
          role: 'assistant',
          parts: parts(),
          status: 'partial',
        }).id;
        return true;
      }
      this.store.messages.update(this.id, { parts: parts() });
    } catch (err) {
      this.failure = err;
    }
    return false;
  }

  /**
   * The shared transaction failed (e.g. the database is locked), so nothing of it
   * was kept: a row created in it does not exist. The next `update` reports `err`.
   */
  failed(err: unknown, createdRow: boolean): void {
    if (createdRow) this.id = undefined;
    this.failure ??= err;
  }
}

/** Drafts written per transaction; more wait for the next turn of the event loop. */
const FLUSH_SLICE = 250;

/**
 * One timer per store and interval: the drafts that changed since the last flush
 * are written together, up to `FLUSH_SLICE` per transaction, so a thousand
 * concurrent streams cost a few commits per interval instead of a thousand, and
 * one flush never holds the event loop for long. When no draft waits any more the
 * timer is not cleared but let go (unref: it keeps no process alive) and fires
 * empty; a stream starting before that uses it again, so a step of a fast agent loop
 * (a model call that streams a few deltas in a millisecond) costs no timer of its own.
 */
class DraftFlusher {
  private static readonly byStore = new WeakMap<Store, Map<number, DraftFlusher>>();
  private readonly dirty = new Set<DraftWriter>();
  private timer: ReturnType<typeof setTimeout> | undefined;

  private constructor(
    private readonly store: Store,
    private readonly intervalMs: number,
  ) {}

  static for(store: Store, intervalMs: number): DraftFlusher {
    let byInterval = DraftFlusher.byStore.get(store);
    if (!byInterval) {
      byInterval = new Map();
      DraftFlusher.byStore.set(store, byInterval);
    }
    let flusher = byInterval.get(intervalMs);
    if (!flusher) {
      flusher = new DraftFlusher(store, intervalMs);
      byInterval.set(intervalMs, flusher);
    }
    return flusher;
  }

  schedule(writer: DraftWriter): void {
    this.dirty.add(writer);
    // An idle timer fires within the interval too: the write comes no later than promised.
    if (this.timer) this.timer.ref();
    else this.timer = setTimeout(() => this.flush(), this.intervalMs);
  }

  cancel(writer: DraftWriter): void {
    this.dirty.delete(writer);
    if (this.dirty.size === 0) this.timer?.unref();
  }

  private flush(): void {
    this.timer = undefined;
    if (this.dirty.size === 0) return;
    if (!this.store.db.open) {
      this.dirty.clear();
      return;
    }
    const batch: DraftWriter[] = [];
    for (const writer of this.dirty) {
      if (batch.length === FLUSH_SLICE) break;
      batch.push(writer);
    }
    for (const writer of batch) this.dirty.delete(writer);
    // The rest right after pending I/O, not a whole interval later.
    if (this.dirty.size > 0) this.timer = setTimeout(() => this.flush(), 0);
    const created = new Set<DraftWriter>();
    try {
      // Each write catches its own failure, so one bad draft never rolls back the others.
      this.store.db.transaction(() => {
        for (const writer of batch) if (writer.writePending()) created.add(writer);
      })();
    } catch (err) {
      for (const writer of batch) writer.failed(err, created.has(writer));
    }
  }
}
