import { BreakerRegistry } from './breaker.js';
import { LlmError } from './errors.js';
import { streamWithIdleTimeout } from './idle-timeout.js';
import { type BackoffPolicy, DEFAULT_BACKOFF, retryDelay, type SleepFn, sleepOn } from './retry.js';
import { duration, realTimers, type Timers } from './timers.js';
import type { Delta, ModelInfo, ModelRequest, Provider } from './types.js';

export interface ResilientOptions {
  /** Idle timeout per attempt: the longest wait for the first delta or between deltas. Default 60 s. */
  timeoutMs?: number;
  /**
   * The deadline of one call on one profile: no attempt starts, and no attempt waits
   * for its first delta, past this long after the call began. Default 180 s.
   */
  callTimeoutMs?: number;
  /** The longest one attempt's stream may last (a model that streams forever). Default 600 s. */
  streamMaxMs?: number;
  /** Idle timeouts for particular profiles (by profile name), overriding `timeoutMs`. */
  profileTimeoutsMs?: Record<string, number>;
  /** Retries per provider after the first attempt. Default 3. */
  maxRetries?: number;
  /** Default 1 s. */
  baseDelayMs?: number;
  /** Cap of the exponential backoff. Default 30 s. */
  maxDelayMs?: number;
  /** Cap of a server-requested `retry-after`. Default 60 s. */
  maxRetryAfterMs?: number;
  /** Shared per-endpoint breakers; a private registry is made when absent. */
  breakers?: BreakerRegistry;
  /** Injectable for tests (default: a sleep on `timers`). */
  sleep?: SleepFn;
  /** The clock and timers of every timeout and backoff (a fake clock in tests and benchmarks). */
  timers?: Timers;
  /** Clock for the private breaker registry made when `breakers` is absent. */
  now?: () => number;
  /** Jitter source in [0, 1). */
  random?: () => number;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_CALL_TIMEOUT_MS = 180_000;
const DEFAULT_STREAM_MAX_MS = 600_000;
const DEFAULT_MAX_RETRIES = 3;

/**
 * Statuses that are the request's fault, not the endpoint's: another attempt or
 * another profile would most likely reject the same request, so the error goes
 * straight to the caller (and does not count against the endpoint's breaker).
 *
 * Every other non-retryable failure falls back to the next profile, notably:
 * 401/403 (that profile's key is wrong or lacks access: another profile has its own
 * key) and 404 (on a chat endpoint, whose path is fixed, a 404 means a wrong base
 * URL or an unknown model name, i.e. that profile's configuration).
 */
const REQUEST_FAULT_STATUSES = new Set([400, 413, 422]);

type Outcome = { ok: true } | { ok: false; error: LlmError };

/**
 * Wraps an ordered chain of providers (the first is the primary, the rest the
 * fallback profiles) with an idle timeout, retries with backoff, a circuit
 * breaker per endpoint and fallback.
 *
 * Deltas it adds to the stream:
 * - `retry` before each backoff sleep; `discard` is true when the failed attempt had
 *   already streamed content, which the consumer must then drop.
 * - `fallback` when it moves to the next profile. The next profile starts the
 *   request afresh, so the consumer must drop anything it kept from this request.
 * `usage` deltas are stamped with the `ModelInfo` of the provider that produced them.
 */
export class ResilientProvider implements Provider {
  private readonly chain: Provider[];
  private readonly timeoutMs: number;
  private readonly callTimeoutMs: number;
  private readonly streamMaxMs: number;
  private readonly timers: Timers;
  private readonly profileTimeoutsMs: Record<string, number>;
  private readonly maxRetries: number;
  private readonly backoff: BackoffPolicy;
  private readonly breakers: BreakerRegistry;
  private readonly sleep: SleepFn;
  private readonly random: () => number;
  private lastServed: ModelInfo | undefined;

  constructor(chain: Provider[], opts: ResilientOptions = {}) {
    if (chain.length === 0) throw new Error('ResilientProvider needs at least one provider');
    this.chain = [...chain];
    this.timeoutMs = positive(opts.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
    this.callTimeoutMs = positive(opts.callTimeoutMs, DEFAULT_CALL_TIMEOUT_MS, 'callTimeoutMs');
    this.streamMaxMs = positive(opts.streamMaxMs, DEFAULT_STREAM_MAX_MS, 'streamMaxMs');
    this.timers = opts.timers ?? realTimers;
    this.profileTimeoutsMs = { ...opts.profileTimeoutsMs };
    this.maxRetries = Math.max(0, Math.floor(opts.maxRetries ?? DEFAULT_MAX_RETRIES));
    this.backoff = {
      baseDelayMs: Math.max(0, opts.baseDelayMs ?? DEFAULT_BACKOFF.baseDelayMs),
      maxDelayMs: Math.max(0, opts.maxDelayMs ?? DEFAULT_BACKOFF.maxDelayMs),
      maxRetryAfterMs: Math.max(0, opts.maxRetryAfterMs ?? DEFAULT_BACKOFF.maxRetryAfterMs),
    };
    this.breakers = opts.breakers ?? new BreakerRegistry(opts.now ? { now: opts.now } : {});
    this.sleep = opts.sleep ?? sleepOn(this.timers);
    this.random = opts.random ?? Math.random;
  }

  /** The primary's info. */
  get info(): ModelInfo {
    return this.chain[0]!.info;
  }

  /**
   * The provider serving the current call, or that served the last one (the
   * primary before any call). Shared by concurrent calls; for per-call accuracy
   * use the `model` stamped on each `usage` delta.
   */
  get activeInfo(): ModelInfo {
    return this.lastServed ?? this.info;
  }

  /** The providers in order: primary first. */
  get providers(): readonly Provider[] {
    return this.chain;
  }

  async *stream(request: ModelRequest, signal?: AbortSignal): AsyncGenerator<Delta> {
    const failures: LlmError[] = [];
    for (let i = 0; i < this.chain.length; i++) {
      const provider = this.chain[i]!;
      const outcome = yield* this.runProvider(provider, request, signal);
      if (outcome.ok) return;
      failures.push(outcome.error);
      const next = this.chain[i + 1];
      if (next) {
        yield {
          type: 'fallback',
          from: provider.info.profile,
          to: next.info.profile,
          reason: outcome.error.message,
        };
      }
    }
    throw allFailed(this.chain, failures);
  }

  /** Attempts one provider with retries. Returns its last error when the chain should move on. */
  private async *runProvider(
    provider: Provider,
    request: ModelRequest,
    signal: AbortSignal | undefined,
  ): AsyncGenerator<Delta, Outcome> {
    const info = provider.info;
    const breaker = this.breakers.forModel(info);
    const timeoutMs = this.profileTimeoutsMs[info.profile] ?? this.timeoutMs;
    // A profile whose idle timeout is longer than the deadline still gets one full attempt.
    const callTimeoutMs = Math.max(this.callTimeoutMs, timeoutMs);
    const deadline = this.timers.now() + callTimeoutMs;

    for (let attempt = 0; ; attempt++) {
      if (signal?.aborted) throw new LlmError('aborted', 'request cancelled', { profile: info.profile });
      try {
        breaker.acquire(info.profile, { probe: request.probe === true && attempt === 0 });
      } catch (err) {
        if (err instanceof LlmError) return { ok: false, error: err };
        throw err;
      }

      this.lastServed = info;
      let streamedContent = false;
      let settled = false;
      try {
        const limits = {
          idleMs: timeoutMs,
          firstMs: Math.max(1, deadline - this.timers.now()),
          totalMs: this.streamMaxMs,
        };
        for await (const delta of streamWithIdleTimeout(provider, request, limits, signal, this.timers)) {
          if (delta.type === 'text' || delta.type === 'thinking' || delta.type === 'tool-call') {
            streamedContent = true;
          }
          yield delta.type === 'usage' && delta.model === undefined ? { ...delta, model: info } : delta;
        }
        settled = true;
        breaker.success();
        return { ok: true };
      } catch (caught) {
        settled = true;
        const err = caught instanceof LlmError ? caught : new LlmError('invalid-response', String(caught));
        if (signal?.aborted || err.kind === 'aborted') {
          breaker.release();
          throw err.kind === 'aborted' ? err : new LlmError('aborted', 'request cancelled', { cause: err });
        }
        if (isRequestFault(err)) {
          breaker.release();
          throw err;
        }
        breaker.failure();
        if (!err.retryable) return { ok: false, error: err };
        const delayMs = retryDelay(err, attempt, this.backoff, this.random);
        // No new attempt starts past the deadline (one already streaming an answer is not cut by it).
        if (this.timers.now() + delayMs >= deadline) {
          return { ok: false, error: gaveUpError(info, callTimeoutMs, attempt + 1, err) };
        }
        if (attempt >= this.maxRetries || !breaker.canPass()) return { ok: false, error: err };
        yield {
          type: 'retry',
          attempt: attempt + 1,
          maxRetries: this.maxRetries,
          delayMs,
          reason: err.message,
          kind: err.kind,
          profile: info.profile,
          discard: streamedContent,
        };
        await this.sleep(delayMs, signal);
      } finally {
        // The consumer stopped reading mid-stream: free a half-open trial slot.
        if (!settled) breaker.release();
      }
    }
  }
}

/** The error of a call given up at its deadline. */
function gaveUpError(info: ModelInfo, callTimeoutMs: number, attempts: number, last: LlmError): LlmError {
  return new LlmError(
    'timeout',
    `${info.profile} (${info.model}): the model did not answer within ${duration(callTimeoutMs)} ` +
      `(llm.call_timeout_s); gave up after ${attempts} attempt${attempts === 1 ? '' : 's'}, the last: ${last.message}`,
    { profile: info.profile, cause: last, retryable: false },
  );
}

function isRequestFault(err: LlmError): boolean {
  return err.kind === 'http' && err.status !== undefined && REQUEST_FAULT_STATUSES.has(err.status);
}

/** With one profile its own error says it best; with several, list each profile's last error. */
function allFailed(chain: Provider[], failures: LlmError[]): LlmError {
  if (chain.length === 1 && failures[0]) return failures[0];
  const lines = failures.map((err, i) => {
    const info = chain[i]!.info;
    return `${info.profile} (${info.model}): ${err.message}`;
  });
  return new LlmError('all-failed', `all ${chain.length} model profiles failed: ${lines.join('; ')}`, {
    cause: failures,
  });
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`${name} must be a positive number, got ${value}`);
  return value;
}
