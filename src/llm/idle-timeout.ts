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
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onCallerAbort = () => attempt.abort(callerSignal?.reason);
  callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

  // Rejects once the attempt is aborted, so a provider that ignores its signal
  // cannot keep us waiting.
  const abandoned = new Promise<never>((_, reject) => {
    attempt.signal.addEventListener('abort', () => reject(attempt.signal.reason), { once: true });
  });
  abandoned.catch(() => {});

  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      attempt.abort(new LlmError('timeout', `${profile}: no data from the model for ${timeoutMs} ms`));
    }, timeoutMs);
  };

  const iterator = provider.stream(request, attempt.signal)[Symbol.asyncIterator]();
  let completed = false;
  try {
    while (true) {
      arm();
      const next = await Promise.race([iterator.next(), abandoned]);
      clearTimeout(timer);
      if (next.done) {
        completed = true;
        return;
      }
      yield next.value;
    }
  } catch (err) {
    throw toLlmError(err, { profile, timedOut, timeoutMs, callerAborted: callerSignal?.aborted === true });
  } finally {
    clearTimeout(timer);
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
