import { LlmError } from './errors.js';
import type { Delta, ModelRequest, Provider } from './types.js';

/**
 * Runs one attempt of `provider.stream` under an idle timeout: the attempt is
 * aborted when no delta arrives within `timeoutMs` of the start or of the previous
 * delta, so a long but lively stream is never killed. Time the consumer spends
 * between deltas does not count.
 *
 * Errors come out as `LlmError`: `timeout` when the idle timer fired, `aborted`
 * when `callerSignal` aborted, the provider's own `LlmError` otherwise, and
 * `invalid-response` for anything else a provider threw (a bug, not a wire fault).
 */
export async function* streamWithIdleTimeout(
  provider: Provider,
  request: ModelRequest,
  timeoutMs: number,
  callerSignal?: AbortSignal,
): AsyncGenerator<Delta> {
  const profile = provider.info.profile;
  if (callerSignal?.aborted) throw new LlmError('aborted', 'request cancelled', { profile });

  const attempt = new AbortController();
  let timedOut = false;
  const onCallerAbort = () => attempt.abort(callerSignal?.reason);
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

  // The wait in progress, failed at once when the attempt is aborted, so a provider
  // that ignores its signal cannot keep us waiting.
  let interrupt: ((reason: unknown) => void) | undefined;
  attempt.signal.addEventListener('abort', () => interrupt?.(attempt.signal.reason), { once: true });

  // One timer for the whole attempt: each delta only notes the time, and the timer,
  // when it fires early, sleeps again for what is left of the current wait.
  let waitingSince: number | undefined = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = (): void => {
    timer = undefined;
    const waited = waitingSince === undefined ? 0 : performance.now() - waitingSince;
    if (waitingSince !== undefined && waited >= timeoutMs) {
      timedOut = true;
      attempt.abort(new LlmError('timeout', `${profile}: no data from the model for ${timeoutMs} ms`));
      return;
    }
    timer = setTimeout(check, timeoutMs - waited);
  };
  timer = setTimeout(check, timeoutMs);

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
      waitingSince = performance.now();
      const next = await nextDelta();
      waitingSince = undefined;
      if (next.done) {
        completed = true;
        return;
      }
      yield next.value;
    }
  } catch (err) {
    throw toLlmError(err, { profile, timedOut, timeoutMs, callerAborted: callerSignal?.aborted === true });
  } finally {
    interrupt = undefined;
    clearTimeout(timer);
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
  ctx: { profile: string; timedOut: boolean; timeoutMs: number; callerAborted: boolean },
): LlmError {
  const { profile } = ctx;
  if (ctx.callerAborted) return new LlmError('aborted', 'request cancelled', { profile, cause: err });
  if (ctx.timedOut) {
    return new LlmError('timeout', `${profile}: no data from the model for ${ctx.timeoutMs} ms`, {
      profile,
      cause: err,
    });
  }
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
