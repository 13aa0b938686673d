import { describe, expect, it } from 'vitest';
import { BreakerRegistry, breakerKey, CircuitBreaker } from '../../src/llm/breaker.js';
import { LlmError } from '../../src/llm/errors.js';

function fakeClock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

function failTimes(b: CircuitBreaker, n: number): void {
  for (let i = 0; i < n; i++) {
    b.acquire();
    b.failure();
  }
}

describe('CircuitBreaker', () => {
  it('opens after failureThreshold consecutive failures and then fails fast', () => {
    const clock = fakeClock();
    const b = new CircuitBreaker('k', { failureThreshold: 3, recoveryMs: 1000, now: clock.now });
    failTimes(b, 2);
    expect(b.state).toBe('closed');
    failTimes(b, 1);
    expect(b.state).toBe('open');
    expect(b.canPass()).toBe(false);
    let thrown: unknown;
    try {
      b.acquire('main');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(LlmError);
    expect(thrown).toMatchObject({ kind: 'circuit-open', profile: 'main' });
    expect((thrown as Error).message).toContain('3 consecutive failures');
  });

  it('a success resets the consecutive count', () => {
    const b = new CircuitBreaker('k', { failureThreshold: 3, now: fakeClock().now });
    failTimes(b, 2);
    b.acquire();
    b.success();
    failTimes(b, 2);
    expect(b.state).toBe('closed');
    expect(b.consecutiveFailures).toBe(2);
  });

  it('goes half-open after recoveryMs and lets exactly one trial call through', () => {
    const clock = fakeClock();
    const b = new CircuitBreaker('k', { failureThreshold: 1, recoveryMs: 60_000, now: clock.now });
    failTimes(b, 1);
    clock.advance(59_999);
    expect(b.state).toBe('open');
    expect(b.retryInMs()).toBe(1);
    clock.advance(1);
    expect(b.state).toBe('half-open');
    b.acquire(); // the trial
    expect(() => b.acquire()).toThrow(/trial call is in progress/);
    b.success();
    expect(b.state).toBe('closed');
    expect(() => b.acquire()).not.toThrow();
  });

  it('says when a call may try an open circuit again, and promises no retry of its own', () => {
    const clock = fakeClock();
    const b = new CircuitBreaker('k', { failureThreshold: 1, recoveryMs: 60_000, now: clock.now });
    failTimes(b, 1);
    clock.advance(15_000);
    expect(() => b.acquire()).toThrow(
      'circuit open for k after 1 consecutive failures: calls to it are paused for another 45 s; the first call after that, or a retry you ask for, tries it again',
    );
  });

  it('a probe (a call the user asked for again) is let through an open circuit as its one trial', () => {
    const clock = fakeClock();
    const b = new CircuitBreaker('k', { failureThreshold: 1, recoveryMs: 60_000, now: clock.now });
    failTimes(b, 1);
    expect(() => b.acquire()).toThrow(/paused/);
    b.acquire(undefined, { probe: true });
    // Only one trial at a time, probe or not.
    expect(() => b.acquire(undefined, { probe: true })).toThrow(/trial call is in progress/);
    b.failure();
    expect(b.state).toBe('open');
    expect(b.retryInMs()).toBe(60_000);
    b.acquire(undefined, { probe: true });
    b.success();
    expect(b.state).toBe('closed');
    expect(() => b.acquire()).not.toThrow();
  });

  it('a failed trial opens the circuit again for another recoveryMs', () => {
    const clock = fakeClock();
    const b = new CircuitBreaker('k', { failureThreshold: 5, recoveryMs: 1000, now: clock.now });
    failTimes(b, 5);
    clock.advance(1000);
    b.acquire();
    b.failure();
    expect(b.state).toBe('open');
    clock.advance(999);
    expect(b.canPass()).toBe(false);
    clock.advance(1);
    expect(b.canPass()).toBe(true);
  });

  it('release frees the trial slot without judging the endpoint', () => {
    const clock = fakeClock();
    const b = new CircuitBreaker('k', { failureThreshold: 1, recoveryMs: 10, now: clock.now });
    failTimes(b, 1);
    clock.advance(10);
    b.acquire();
    b.release();
    expect(b.state).toBe('half-open');
    expect(() => b.acquire()).not.toThrow();
  });

  it('defaults to 5 failures and 60 s', () => {
    const clock = fakeClock();
    const b = new CircuitBreaker('k', { now: clock.now });
    failTimes(b, 4);
    expect(b.state).toBe('closed');
    failTimes(b, 1);
    expect(b.state).toBe('open');
    clock.advance(59_000);
    expect(b.state).toBe('open');
    clock.advance(1000);
    expect(b.state).toBe('half-open');
  });
});

describe('BreakerRegistry', () => {
  it('keys breakers by base URL and model, and shares them', () => {
    const reg = new BreakerRegistry({ failureThreshold: 1, now: fakeClock().now });
    const a = reg.forModel({ baseUrl: 'http://h/v1/', model: 'm1' });
    expect(reg.forModel({ baseUrl: 'http://h/v1', model: 'm1' })).toBe(a);
    const other = reg.forModel({ baseUrl: 'http://h/v1', model: 'm2' });
    expect(other).not.toBe(a);
    a.acquire();
    a.failure();
    expect(a.state).toBe('open');
    expect(other.state).toBe('closed');
    expect(breakerKey({ baseUrl: 'http://h/v1/', model: 'm1' })).toBe('http://h/v1#m1');
    expect(reg.list()).toEqual([
      { key: 'http://h/v1#m1', state: 'open', failures: 1 },
      { key: 'http://h/v1#m2', state: 'closed', failures: 0 },
    ]);
  });
});
