/**
 * A request's abort signal outlives the request: the fetch `Request` registers it
 * with a finalizer, which holds it until the request is collected, and a listener on
 * it that reaches the request (through the route's context) keeps both for good. So
 * every listener a route puts on it is removed once the route is done.
 */

/** Runs `run` with `onAbort` listening on `signal`, and removes the listener after. */
export async function whileAborted<T>(
  signal: AbortSignal,
  onAbort: () => void,
  run: () => Promise<T>,
): Promise<T> {
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await run();
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}
