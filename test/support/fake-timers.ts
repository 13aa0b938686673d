/**
 * A fake clock for the model-call timers (`Timers` in src/llm/timers.ts): time only
 * moves when nothing else can happen, jumping straight to the next timer, so a
 * three-minute deadline is checked in milliseconds and to the millisecond.
 */
import type { Timers } from '../../src/llm/timers.js';

interface Pending {
  at: number;
  seq: number;
  fn: () => void;
}

export class FakeTimers implements Timers {
  private t = 0;
  private seq = 0;
  private readonly pending = new Map<number, Pending>();

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const seq = ++this.seq;
    this.pending.set(seq, { at: this.t + Math.max(0, ms), seq, fn });
    return seq;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  /**
   * Runs `work` to the end: lets promises and I/O callbacks run, and when nothing is
   * left but timers, moves the clock to the earliest one and fires it.
   */
  async run<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    const done = work.finally(() => {
      settled = true;
    });
    done.catch(() => {});
    for (;;) {
      for (let i = 0; i < 20 && !settled; i++) await new Promise((r) => setImmediate(r));
      if (settled) return done;
      const next = [...this.pending.values()].sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) throw new Error('FakeTimers: the work waits on something other than a timer');
      this.pending.delete(next.seq);
      this.t = Math.max(this.t, next.at);
      next.fn();
    }
  }
}
