/** Combining a caller's cancel signal with a per-call time limit. */

export interface TimedSignal {
  /** Aborted when the parent aborts or the time limit passes. */
  signal: AbortSignal;
  /** True when the time limit (not the parent) caused the abort. */
  timedOut(): boolean;
  /** Clears the timer and the parent listener; call when the work is over. */
  dispose(): void;
}

export function timeoutError(ms: number): Error {
  const error = new Error(`timed out after ${formatSeconds(ms)}`);
  error.name = 'TimeoutError';
  return error;
}

/** `1.5s`, `0.05s`, `120s`: a short human-readable duration. */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))}s`;
}

export function withTimeout(parent: AbortSignal, ms: number): TimedSignal {
  const controller = new AbortController();
  let timedOut = false;
  const onParentAbort = (): void => controller.abort(parent.reason);
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(timeoutError(ms));
  }, ms);
  if (parent.aborted) onParentAbort();
  else parent.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => timedOut,
    dispose: () => {
      clearTimeout(timer);
      parent.removeEventListener('abort', onParentAbort);
    },
  };
}

/** Resolves when `signal` aborts (immediately if it already has). */
export function whenAborted(signal: AbortSignal): { promise: Promise<void>; dispose(): void } {
  let onAbort: () => void = () => {};
  const promise = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}
