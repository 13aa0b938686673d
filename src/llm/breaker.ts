import { LlmError } from './errors.js';
import type { ModelInfo } from './types.js';

export type BreakerState = 'closed' | 'open' | 'half-open';

export interface BreakerOptions {
  /** Consecutive failures that open the circuit. Default 5. */
  failureThreshold?: number;
  /** How long an open circuit stays open before one trial call. Default 60 s. */
  recoveryMs?: number;
  /** Clock in milliseconds; injectable for tests. */
  now?: () => number;
}

const DEFAULT_FAILURE_THRESHOLD = 5;
const DEFAULT_RECOVERY_MS = 60_000;

/**
 * A circuit breaker for one endpoint.
 *
 * closed → (failureThreshold consecutive failures) → open → (recoveryMs elapsed, or
 * a probe: a call the user asked for again) → half-open: exactly one trial call is let
 * through; its success closes the circuit, its failure opens it again for another
 * recoveryMs. Nothing is called by the breaker itself.
 *
 * Callers bracket each call: `acquire()` (throws `LlmError('circuit-open')` while
 * open), then exactly one of `success()`, `failure()` or `release()` (the call
 * ended in a way that says nothing about the endpoint's health, e.g. the user
 * cancelled it).
 */
export class CircuitBreaker {
  readonly key: string;
  private readonly failureThreshold: number;
  private readonly recoveryMs: number;
  private readonly now: () => number;
  private current: BreakerState = 'closed';
  private failures = 0;
  private openedAt = 0;
  private trialInFlight = false;

  constructor(key: string, opts: BreakerOptions = {}) {
    this.key = key;
    this.failureThreshold = Math.max(1, opts.failureThreshold ?? DEFAULT_FAILURE_THRESHOLD);
    this.recoveryMs = Math.max(0, opts.recoveryMs ?? DEFAULT_RECOVERY_MS);
    this.now = opts.now ?? Date.now;
  }

  /** The state as of now (an open circuit whose recovery time has passed reads as half-open). */
  get state(): BreakerState {
    if (this.current === 'open' && this.now() - this.openedAt >= this.recoveryMs) return 'half-open';
    return this.current;
  }

  get consecutiveFailures(): number {
    return this.failures;
  }

  /** Milliseconds until an open circuit lets a trial call through (0 when not open). */
  retryInMs(): number {
    if (this.current !== 'open') return 0;
    return Math.max(0, this.openedAt + this.recoveryMs - this.now());
  }

  /** Would `acquire()` succeed right now? Does not change state. */
  canPass(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'half-open') return !this.trialInFlight;
    return false;
  }

  /**
   * Lets a call through or throws `LlmError('circuit-open')`. A `probe` (a call the user
   * asked for again, e.g. Retry) does not wait for the recovery time: an open circuit
   * lets it through at once as its one trial call.
   */
  acquire(profile?: string, opts: { probe?: boolean } = {}): void {
    const state = this.state;
    if (state === 'closed') return;
    if ((state === 'half-open' || (state === 'open' && opts.probe === true)) && !this.trialInFlight) {
      this.current = 'half-open';
      this.trialInFlight = true;
      return;
    }
    // Nothing calls it again by itself: the wait is until a call may try it.
    const wait =
      state === 'open'
        ? `calls to it are paused for another ${Math.ceil(this.retryInMs() / 1000)} s; the first call after that, or a retry you ask for, tries it again`
        : 'a trial call is in progress; try again when it has ended';
    throw new LlmError(
      'circuit-open',
      `circuit open for ${this.key} after ${this.failures} consecutive failures: ${wait}`,
      profile === undefined ? {} : { profile },
    );
  }

  success(): void {
    this.current = 'closed';
    this.failures = 0;
    this.trialInFlight = false;
  }

  failure(): void {
    this.failures += 1;
    const wasTrial = this.trialInFlight;
    this.trialInFlight = false;
    if (wasTrial || this.current === 'half-open' || this.failures >= this.failureThreshold) {
      this.current = 'open';
      this.openedAt = this.now();
    }
  }

  /** Ends a call without judging the endpoint; a half-open trial slot is freed. */
  release(): void {
    this.trialInFlight = false;
  }
}

/** The breaker key for an endpoint: base URL plus model. */
export function breakerKey(info: Pick<ModelInfo, 'baseUrl' | 'model'>): string {
  return `${info.baseUrl.replace(/\/+$/, '')}#${info.model}`;
}

/**
 * One breaker per endpoint, shared by everything in the process that calls that
 * endpoint. Create one and inject it; it is deliberately not a global.
 */
export class BreakerRegistry {
  private readonly breakers = new Map<string, CircuitBreaker>();
  private readonly opts: BreakerOptions;

  constructor(opts: BreakerOptions = {}) {
    this.opts = opts;
  }

  get(key: string): CircuitBreaker {
    let breaker = this.breakers.get(key);
    if (!breaker) {
      breaker = new CircuitBreaker(key, this.opts);
      this.breakers.set(key, breaker);
    }
    return breaker;
  }

  forModel(info: Pick<ModelInfo, 'baseUrl' | 'model'>): CircuitBreaker {
    return this.get(breakerKey(info));
  }

  /** Snapshot of every known breaker, for status pages. */
  list(): Array<{ key: string; state: BreakerState; failures: number }> {
    return [...this.breakers.values()].map((b) => ({
      key: b.key,
      state: b.state,
      failures: b.consecutiveFailures,
    }));
  }
}
