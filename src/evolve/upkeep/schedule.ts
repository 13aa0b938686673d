/**
 * Upkeep in the background of a long-running process (`tea serve`): a round every
 * `everyMs` (an hour), on an unref'd timer so it never keeps the process alive. The
 * next round is scheduled only once the last one finished, so two never run at once;
 * `stop` cancels the timer and waits for a running round. The scheduler and clock are
 * injectable: tests drive the rounds by hand.
 */

export interface Scheduler {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node's timers, unref'd. */
export const nodeScheduler: Scheduler = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export const UPKEEP_EVERY_MS = 60 * 60 * 1000;
/** The first round waits at least this long after start (off the start-up path). */
export const UPKEEP_FIRST_DELAY_MS = 60 * 1000;

export interface UpkeepScheduleOptions<T> {
  run: () => Promise<T>;
  /** When the last round ran (epoch ms, from the store), so a restarted server does not wait a full hour again. */
  lastRunAt?: number;
  everyMs?: number;
  firstDelayMs?: number;
  scheduler?: Scheduler;
  now?: () => number;
  onResult?: (result: T) => void;
  onError?: (error: unknown) => void;
}

export interface BackgroundUpkeep {
  /** Stops the timer; resolves once a round that is running has finished. */
  stop(): Promise<void>;
  /** Whether a round is running now. */
  readonly running: boolean;
}

/** The delay before the first round: what is left of the interval since the last one, at least `firstDelayMs`. */
export function firstDelay(
  now: number,
  lastRunAt: number | undefined,
  everyMs: number,
  minMs: number,
): number {
  if (lastRunAt === undefined) return Math.max(minMs, everyMs);
  return Math.max(minMs, Math.min(everyMs, lastRunAt + everyMs - now));
}

export function scheduleUpkeep<T>(opts: UpkeepScheduleOptions<T>): BackgroundUpkeep {
  const scheduler = opts.scheduler ?? nodeScheduler;
  const everyMs = opts.everyMs ?? UPKEEP_EVERY_MS;
  const now = opts.now ?? Date.now;
  let timer: unknown;
  let current: Promise<void> | undefined;
  let stopped = false;

  const arm = (ms: number) => {
    if (!stopped) timer = scheduler.setTimeout(tick, ms);
  };
  function tick(): void {
    timer = undefined;
    if (stopped || current) return;
    current = round().finally(() => {
      current = undefined;
      arm(everyMs);
    });
  }
  /** One round; whatever it throws (or its listeners throw) goes to `onError`, never further. */
  async function round(): Promise<void> {
    try {
      // Not `onResult?.(await run())`: without a listener that would skip the run itself.
      const result = await opts.run();
      opts.onResult?.(result);
    } catch (e) {
      try {
        opts.onError?.(e);
      } catch {
        // a listener's own failure is not the round's
      }
    }
  }
  arm(firstDelay(now(), opts.lastRunAt, everyMs, opts.firstDelayMs ?? UPKEEP_FIRST_DELAY_MS));
  return {
    get running() {
      return current !== undefined;
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) scheduler.clearTimeout(timer);
      timer = undefined;
      await current;
    },
  };
}
