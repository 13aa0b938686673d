/** Epoch milliseconds. Injectable so tests can control time. */
export type Clock = () => number;

/**
 * A clock that never returns the same value twice or goes backwards within one
 * store instance, so "most recently updated" is never a tie when several writes
 * land in the same millisecond.
 */
export function monotonicClock(source: Clock = Date.now): Clock {
  let last = Number.NEGATIVE_INFINITY;
  return () => {
    const now = source();
    last = now > last ? now : last + 1;
    return last;
  };
}
