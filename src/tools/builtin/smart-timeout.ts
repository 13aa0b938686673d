/**
 * A deadline that bends for busy work: at the base deadline a command that is still
 * using CPU, doing I/O or printing gets more time, up to a hard cap (a multiple of
 * the base); once past the base, it is stopped when it has been idle for a grace
 * period. Without an activity monitor it is a plain timeout.
 */

export interface SmartTimeoutOptions {
  /** How often the process tree is sampled (default 1 000 ms). */
  sampleMs?: number;
  /** Past the base deadline, stop after this long without activity (default 30 000 ms). */
  idleGraceMs?: number;
  /** The hard cap as a multiple of the base deadline (default 4). */
  maxFactor?: number;
}

export const SMART_TIMEOUT_DEFAULTS = {
  sampleMs: 1000,
  idleGraceMs: 30_000,
  maxFactor: 4,
} as const satisfies Required<SmartTimeoutOptions>;

/** Why a deadline stopped the work. */
export type DeadlineStop =
  /** Plain timeout (no activity monitor). */
  | { reason: 'timeout'; ranMs: number }
  /** Idle at the base deadline (`atBase`), or idle for the grace period after it. */
  | { reason: 'idle'; ranMs: number; idleMs: number; atBase: boolean }
  /** Busy until the hard cap. */
  | { reason: 'limit'; ranMs: number };

export interface ActivitySource {
  /** True when the work did anything since the previous call. */
  sample(): boolean;
}

export class SmartDeadline {
  private readonly sampleMs: number;
  private readonly idleGraceMs: number;
  private readonly maxFactor: number;
  private readonly startedAt = Date.now();
  private lastActivity = this.startedAt;
  private extended = false;
  private stopped = false;
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly baseMs: number,
    opts: SmartTimeoutOptions,
    private readonly monitor: ActivitySource | undefined,
    private readonly onStop: (stop: DeadlineStop) => void,
  ) {
    this.sampleMs = opts.sampleMs ?? SMART_TIMEOUT_DEFAULTS.sampleMs;
    this.idleGraceMs = opts.idleGraceMs ?? SMART_TIMEOUT_DEFAULTS.idleGraceMs;
    this.maxFactor = Math.max(1, opts.maxFactor ?? SMART_TIMEOUT_DEFAULTS.maxFactor);
    this.timers.push(setTimeout(() => this.atBase(), baseMs));
    if (monitor !== undefined) {
      this.timers.push(setInterval(() => this.tick(), this.sampleMs));
      this.timers.push(setTimeout(() => this.stop({ reason: 'limit', ranMs: this.ran() }), this.capMs));
    }
  }

  /** The hard cap in milliseconds. */
  get capMs(): number {
    return this.baseMs * this.maxFactor;
  }

  get factor(): number {
    return this.maxFactor;
  }

  /** Output arrived: that counts as activity. */
  noteActivity(): void {
    this.lastActivity = Date.now();
  }

  dispose(): void {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
  }

  private ran(): number {
    return Date.now() - this.startedAt;
  }

  private poll(): void {
    if (this.monitor?.sample()) this.lastActivity = Date.now();
  }

  private idleFor(): number {
    return Date.now() - this.lastActivity;
  }

  private tick(): void {
    if (this.stopped) return;
    this.poll();
    if (this.extended && this.idleFor() >= this.idleGraceMs) {
      this.stop({ reason: 'idle', ranMs: this.ran(), idleMs: this.idleFor(), atBase: false });
    }
  }

  private atBase(): void {
    if (this.stopped) return;
    if (this.monitor === undefined) {
      this.stop({ reason: 'timeout', ranMs: this.ran() });
      return;
    }
    // A fresh sample covers the time since the previous one: "busy within the last
    // sample window" (with half a period of slack for timer jitter).
    this.poll();
    if (this.idleFor() > this.sampleMs * 1.5) {
      this.stop({ reason: 'idle', ranMs: this.ran(), idleMs: this.idleFor(), atBase: true });
      return;
    }
    this.extended = true;
  }

  private stop(stop: DeadlineStop): void {
    if (this.stopped) return;
    this.dispose();
    this.onStop(stop);
  }
}

/** `0.3 s`, `120 s`, `480 s`: a duration in seconds as people read it. */
export function formatDuration(ms: number): string {
  return `${Number((ms / 1000).toFixed(ms < 10_000 ? 2 : 1))} s`;
}
