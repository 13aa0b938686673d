import { LlmError } from './errors.js';
import { duration, realTimers, type Timers } from './timers.js';
import type { Delta, ModelRequest, Provider } from './types.js';

/** How long one attempt may wait and last. */
export interface AttemptLimits {
  /** The longest wait for a delta: the first one, and each next one. */
  idleMs: number;
  /** A shorter wait for the first delta (what is left of the call's deadline). */
  firstMs?: number;
  /** The longest the whole attempt may last: a stream that never ends is stopped. */
  totalMs?: number;
}

/**
 * Runs one attempt of `provider.stream` under an idle timeout: the attempt is
 * aborted when no delta arrives within `idleMs` of the start (`firstMs` when set) or
 * of the previous delta, so a long but lively stream is never killed by it. Time
 * the consumer spends between deltas does not count. With `totalMs`, an attempt
 * still streaming after that long is stopped (an error not worth retrying).
 *
 * Errors come out as `LlmError`: `timeout` when a timer fired, `aborted`
 * when `callerSignal` aborted, the provider's own `LlmError` otherwise, and
 * `invalid-response` for anything else a provider threw (a bug, not a wire fault).
 */
export async function* streamWithIdleTimeout(
  provider: Provider,
  request: ModelRequest,
  limits: number | AttemptLimits,
  callerSignal?: AbortSignal,
  timers: Timers = realTimers,
): AsyncGenerator<Delta> {
  const profile = provider.info.profile;
  if (callerSignal?.aborted) throw new LlmError('aborted', 'request cancelled', { profile });
  const { idleMs, firstMs, totalMs } = typeof limits === 'number' ? { idleMs: limits } : limits;

  const attempt = new AbortController();
  let fired: LlmError | undefined;
  const onCallerAbort = () => attempt.abort(callerSignal?.reason);
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

  // The wait in progress, failed at once when the attempt is aborted, so a provider
  // that ignores its signal cannot keep us waiting.
  let interrupt: ((reason: unknown) => void) | undefined;
  attempt.signal.addEventListener('abort', () => interrupt?.(attempt.signal.reason), { once: true });

  // One timer for the whole attempt: each delta only notes the time, and the timer,
  // when it fires early, sleeps again for what is left of the current wait.
  const startedAt = timers.now();
  let waitingSince: number | undefined = startedAt;
  let first = true;
  let timer: unknown;
  const fire = (error: LlmError): void => {
    fired = error;
    attempt.abort(error);
  };
  const check = (): void => {
    timer = undefined;
    const now = timers.now();
    const elapsed = now - startedAt;
    if (totalMs !== undefined && elapsed >= totalMs && !first) {
      fire(
        new LlmError(
          'timeout',
          `${profile}: the answer was still streaming after ${duration(totalMs)} (llm.stream_max_s); stopped it`,
          { profile, retryable: false },
        ),
      );
      return;
    }
    // Before the first delta the cap is one more limit on the wait (no answer is not a long answer).
    const limit = first ? Math.min(idleMs, firstMs ?? idleMs, totalMs ?? idleMs) : idleMs;
    const waited = waitingSince === undefined ? 0 : now - waitingSince;
    if (waitingSince !== undefined && waited >= limit) {
      fire(new LlmError('timeout', `${profile}: no data from the model for ${duration(limit)}`, { profile }));
      return;
    }
    const untilIdle = waitingSince === undefined ? limit : limit - waited;
    const untilCap = totalMs === undefined ? Number.POSITIVE_INFINITY : totalMs - elapsed;
    timer = timers.setTimeout(check, Math.min(untilIdle, untilCap));
  };
  timer = timers.setTimeout(check, Math.min(Math.min(idleMs, firstMs ?? idleMs), totalMs ?? Infinity));

  const iterator = provider.stream(request, attempt.signal)[Symbol.asyncIterator]();
  const nextDelta = (): Promise<IteratorResult<Delta>> =>
    new Promise((resolve, reject) => {
      interrupt = reject;
      iterator.next().then(resolve, reject);
    });
  let completed = false;
  try {
    while (true) {
      if (attempt.signal.aborted) throw attempt.signal.reason;
      waitingSince = timers.now();
      const next = await nextDelta();
      waitingSince = undefined;
      first = false;
      if (next.done) {
        completed = true;
        return;
      }
      yield next.value;
    }
  } catch (err) {
    throw toLlmError(err, { profile, fired, callerAborted: callerSignal?.aborted === true });
  } finally {
    interrupt = undefined;
    if (timer !== undefined) timers.clearTimeout(timer);
    timer = undefined;
    callerSignal?.removeEventListener('abort', onCallerAbort);
    if (!completed) {
      // Stop the underlying request: it failed, timed out, or the consumer stopped reading.
      if (!attempt.signal.aborted) {
        attempt.abort(new LlmError('aborted', 'stream closed by the consumer', { profile }));
      }
      // Not awaited: a generator stuck on a pending read would keep us waiting.
      void iterator.return?.(undefined).catch(() => {});
    }
  }
}

function toLlmError(
  err: unknown,
  ctx: { profile: string; fired: LlmError | undefined; callerAborted: boolean },
): LlmError {
  const { profile } = ctx;
  if (ctx.callerAborted) return new LlmError('aborted', 'request cancelled', { profile, cause: err });
  if (ctx.fired) return ctx.fired;
  if (err instanceof LlmError) {
    if (err.profile !== undefined) return err;
    return new LlmError(err.kind, err.message, {
      profile,
      cause: err.cause ?? err,
      ...(err.status === undefined ? {} : { status: err.status }),
      ...(err.retryAfterMs === undefined ? {} : { retryAfterMs: err.retryAfterMs }),
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new LlmError('invalid-response', `${profile}: unexpected provider error: ${message}`, {
    profile,
    cause: err,
  });
}
