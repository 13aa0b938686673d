import { describe, expect, it } from 'vitest';
import { LlmError } from '../../src/llm/errors.js';
import { abortableSleep, backoffDelay, DEFAULT_BACKOFF, retryDelay } from '../../src/llm/retry.js';

const policy = { baseDelayMs: 1000, maxDelayMs: 10_000, maxRetryAfterMs: 60_000 };

describe('backoffDelay', () => {
  it('doubles per attempt, with the jitter in the upper half of the window', () => {
    // random 0 -> half the window; random ~1 -> the whole window
    expect(backoffDelay(0, policy, () => 0)).toBe(500);
    expect(backoffDelay(0, policy, () => 0.999_999)).toBe(1000);
    expect(backoffDelay(1, policy, () => 0)).toBe(1000);
    expect(backoffDelay(2, policy, () => 0.5)).toBe(3000); // window 4000: 2000 + 1000
    expect(backoffDelay(3, policy, () => 0.999_999)).toBe(8000);
  });

  it('caps the window at maxDelayMs', () => {
    expect(backoffDelay(4, policy, () => 0.999_999)).toBe(10_000); // 16 s capped at 10 s
    expect(backoffDelay(30, policy, () => 0)).toBe(5000);
  });

  it('stays within [window/2, window] for any random draw', () => {
    for (let attempt = 0; attempt < 6; attempt++) {
      const window = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
      for (let i = 0; i < 50; i++) {
        const d = backoffDelay(attempt, policy);
        expect(d).toBeGreaterThanOrEqual(window / 2);
        expect(d).toBeLessThanOrEqual(window);
      }
    }
  });

  it('has sane defaults', () => {
    expect(DEFAULT_BACKOFF).toEqual({ baseDelayMs: 1000, maxDelayMs: 30_000, maxRetryAfterMs: 60_000 });
  });
});

describe('retryDelay', () => {
  it("uses the server's retry-after instead of the computed delay", () => {
    const err = new LlmError('http', 'slow down', { status: 429, retryAfterMs: 7000 });
    expect(retryDelay(err, 0, policy, () => 0)).toBe(7000);
    expect(retryDelay(err, 5, policy, () => 0)).toBe(7000);
  });

  it('caps a huge retry-after at maxRetryAfterMs', () => {
    const err = new LlmError('http', 'slow down', { status: 429, retryAfterMs: 3_600_000 });
    expect(retryDelay(err, 0, policy)).toBe(60_000);
    expect(retryDelay(err, 0, { ...policy, maxRetryAfterMs: 2000 })).toBe(2000);
  });

  it('accepts retry-after 0 and falls back to backoff without one', () => {
    expect(retryDelay(new LlmError('http', 'x', { status: 503, retryAfterMs: 0 }), 2, policy)).toBe(0);
    expect(retryDelay(new LlmError('http', 'x', { status: 503 }), 2, policy, () => 0)).toBe(2000);
  });
});

describe('which errors are retryable', () => {
  it.each([
    [new LlmError('http', 'x', { status: 429 }), true],
    [new LlmError('http', 'x', { status: 408 }), true],
    [new LlmError('http', 'x', { status: 409 }), true],
    [new LlmError('http', 'x', { status: 500 }), true],
    [new LlmError('http', 'x', { status: 503 }), true],
    [new LlmError('network', 'reset'), true],
    [new LlmError('timeout', 'idle'), true],
    [new LlmError('http', 'x', { status: 400 }), false],
    [new LlmError('http', 'x', { status: 404 }), false],
    [new LlmError('auth', 'x', { status: 401 }), false],
    [new LlmError('aborted', 'x'), false],
    [new LlmError('circuit-open', 'x'), false],
  ])('%s -> %s', (err, expected) => {
    expect(err.retryable).toBe(expected);
  });
});

describe('abortableSleep', () => {
  it('resolves after the delay', async () => {
    await expect(abortableSleep(5)).resolves.toBeUndefined();
  });

  it('rejects with an aborted LlmError when the signal aborts mid-sleep', async () => {
    const ctrl = new AbortController();
    const sleeping = abortableSleep(60_000, ctrl.signal);
    setTimeout(() => ctrl.abort(), 20);
    await expect(sleeping).rejects.toMatchObject({ name: 'LlmError', kind: 'aborted' });
  });

  it('rejects at once for an already aborted signal', async () => {
    await expect(abortableSleep(60_000, AbortSignal.abort())).rejects.toMatchObject({ kind: 'aborted' });
  });
});
