import type { Part } from '../llm/types.js';
import type { Store } from '../store/index.js';

/**
 * Keeps a streaming assistant message durable: the first content creates a
 * `partial` row, later content rewrites it at most every `intervalMs`, and
 * `finish` writes the final parts. A process killed mid-stream leaves the text
 * streamed so far (up to one interval) in the store.
 */
export class DraftWriter {
  private id: number | undefined;
  private lastWrite = 0;

  constructor(
    private readonly store: Store,
    private readonly sessionId: string,
    private readonly turnId: string,
    private readonly intervalMs = 200,
  ) {}

  update(parts: () => Part[]): void {
    const now = Date.now();
    if (this.id === undefined) {
      this.id = this.store.messages.append(this.sessionId, {
        turnId: this.turnId,
        role: 'assistant',
        parts: parts(),
        status: 'partial',
      }).id;
      this.lastWrite = now;
    } else if (now - this.lastWrite >= this.intervalMs) {
      this.store.messages.update(this.id, { parts: parts() });
      this.lastWrite = now;
    }
  }

  /** Writes the final message (or nothing when it is empty and no draft exists). */
  finish(parts: Part[], status: 'complete' | 'partial'): void {
    if (this.id === undefined) {
      if (parts.length === 0) return;
      this.store.messages.append(this.sessionId, { turnId: this.turnId, role: 'assistant', parts, status });
      return;
    }
    this.store.messages.update(this.id, { parts, status });
  }
}
