import { LlmError } from './errors.js';
import { realTimers, type Timers } from './timers.js';

/** How long to wait between attempts at one model call. */
export interface BackoffPolicy {
  /** Delay before the first retry, before jitter. */
  baseDelayMs: number;
  /** Upper bound of the computed (exponential) delay. */
  maxDelayMs: number;
  /** Upper bound of a server-requested `retry-after` wait. */
  maxRetryAfterMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = {
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
};

/**
 * The delay before retry number `attempt` (0 for the first retry):
 * `min(maxDelayMs, baseDelayMs * 2^attempt)`, then "equal jitter": a random point in
 * the upper half of that window, so concurrent clients spread out but never retry
 * at once. `random` returns a number in [0, 1).
 */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const exponent = Math.max(0, Math.floor(attempt));
  const window = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** exponent);
  const half = window / 2;
  return Math.round(half + random() * half);
}

/**
 * The delay before retrying after `error`: the server's `retry-after` when it sent
 * one (capped at `maxRetryAfterMs`), otherwise the jittered exponential backoff.
 */
export function retryDelay(
  error: LlmError,
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  if (error.retryAfterMs !== undefined && Number.isFinite(error.retryAfterMs) && error.retryAfterMs >= 0) {
    return Math.min(Math.round(error.retryAfterMs), policy.maxRetryAfterMs);
  }
  return backoffDelay(attempt, policy, random);
}

/** Waits `ms`, or rejects with `LlmError('aborted')` as soon as `signal` aborts. */
export type SleepFn = (ms: number, signal?: AbortSignal) => Promise<void>;

/** A `SleepFn` on `timers` (a fake clock in tests and benchmarks). */
export function sleepOn(timers: Timers): SleepFn {
  return (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      const abortError = () => new LlmError('aborted', 'cancelled while waiting to retry');
      if (signal?.aborted) {
        reject(abortError());
        return;
      }
      const onAbort = () => {
        timers.clearTimeout(timer);
        reject(abortError());
      };
      const timer = timers.setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
}

export const abortableSleep: SleepFn = sleepOn(realTimers);
