/**
 * Time and timers for the retry and timeout code, injectable so that a fake clock
 * can drive it (tests, and the hung-model benchmark): `now` is monotonic ms.
 */
import { monotonicMs } from '../util/monotonic.js';

export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** The longest delay `setTimeout` takes (a longer one would fire at once); callers re-check the time. */
export const MAX_TIMER_MS = 2_147_483_647;

export const realTimers: Timers = {
  now: () => monotonicMs(),
  setTimeout: (fn, ms) => setTimeout(fn, Math.min(ms, MAX_TIMER_MS)),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

export { duration } from '../util/duration.js';
