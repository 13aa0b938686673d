/**
 * Monotonic milliseconds, as `performance.now()` counts them but from another origin:
 * only differences mean anything. Reading the `performance` global loads perf_hooks and
 * ten internal modules (~1 ms at start); process.hrtime is already there.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
