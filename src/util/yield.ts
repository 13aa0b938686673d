/**
 * Lets the event loop run what is waiting (other requests, timers) before the next
 * stretch of synchronous work: a turn on a pasted megabyte spends tens of
 * milliseconds in each of its steps, and a server must answer others in between.
 */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
