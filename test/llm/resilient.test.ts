import { describe, expect, it } from 'vitest';
import { BreakerRegistry } from '../../src/llm/breaker.js';
import { LlmError } from '../../src/llm/errors.js';
import { ResilientProvider } from '../../src/llm/resilient.js';
import type { Delta } from '../../src/llm/types.js';
import {
  drain,
  drainSettled,
  FakeProvider,
  finish,
  httpError,
  ok,
  recordingSleep,
  request,
  text,
} from './fake-provider.js';

const texts = (deltas: Delta[]) => deltas.flatMap((d) => (d.type === 'text' ? [d.text] : []));
const ofType = <T extends Delta['type']>(deltas: Delta[], type: T) =>
  deltas.filter((d): d is Extract<Delta, { type: T }> => d.type === type);

describe('ResilientProvider: retries', () => {
  it('retries retryable errors with backoff, then succeeds', async () => {
    const primary = new FakeProvider('main', [
      { error: httpError(503) },
      { error: httpError(500) },
      ok('hello'),
    ]);
    const { sleeps, sleep } = recordingSleep();
    const rp = new ResilientProvider([primary], { baseDelayMs: 100, sleep, random: () => 0 });
    const deltas = await drain(rp.stream(request));
    expect(primary.calls).toBe(3);
    expect(sleeps).toEqual([50, 100]);
    expect(ofType(deltas, 'retry')).toEqual([
      {
        type: 'retry',
        attempt: 1,
        maxRetries: 3,
        delayMs: 50,
        reason: 'HTTP 503 from fake',
        kind: 'http',
        profile: 'main',
        discard: false,
      },
      {
        type: 'retry',
        attempt: 2,
        maxRetries: 3,
        delayMs: 100,
        reason: 'HTTP 500 from fake',
        kind: 'http',
        profile: 'main',
        discard: false,
      },
    ]);
    expect(texts(deltas)).toEqual(['hello']);
    expect(deltas.at(-1)).toEqual(finish);
  });

  it("waits the server's retry-after instead of the backoff", async () => {
    const primary = new FakeProvider('main', [{ error: httpError(429, 1500) }, ok('ok')]);
    const { sleeps, sleep } = recordingSleep();
    const rp = new ResilientProvider([primary], { baseDelayMs: 10, sleep });
    await drain(rp.stream(request));
    expect(sleeps).toEqual([1500]);
  });

  it('flags discard when the failed attempt had already streamed content', async () => {
    const primary = new FakeProvider('main', [
      { deltas: [text('partial '), text('answ')], error: new LlmError('network', 'socket reset') },
      ok('full answer'),
    ]);
    const rp = new ResilientProvider([primary], { sleep: recordingSleep().sleep });
    const deltas = await drain(rp.stream(request));
    expect(deltas.map((d) => d.type)).toEqual(['text', 'text', 'retry', 'text', 'finish']);
    expect(ofType(deltas, 'retry')[0]).toMatchObject({ discard: true, reason: 'socket reset' });
  });

  it('gives up after maxRetries and reports the last error of its only profile', async () => {
    const primary = new FakeProvider(
      'main',
      Array.from({ length: 5 }, () => ({ error: httpError(502) })),
    );
    const { sleeps, sleep } = recordingSleep();
    const rp = new ResilientProvider([primary], { maxRetries: 2, sleep });
    const { deltas, error } = await drainSettled(rp.stream(request));
    expect(primary.calls).toBe(3);
    expect(sleeps).toHaveLength(2);
    expect(ofType(deltas, 'retry')).toHaveLength(2);
    expect(error).toBeInstanceOf(LlmError);
    expect(error).toMatchObject({ kind: 'http', status: 502 });
    expect((error as Error).message).toBe('HTTP 502 from fake');
  });

  it('does not retry a request error and does not fall back from it', async () => {
    const primary = new FakeProvider('main', [{ error: httpError(400) }]);
    const backup = new FakeProvider('backup', [ok('never')]);
    const rp = new ResilientProvider([primary, backup], { sleep: recordingSleep().sleep });
    const { deltas, error } = await drainSettled(rp.stream(request));
    expect(deltas).toEqual([]);
    expect(error).toMatchObject({ kind: 'http', status: 400, profile: 'main' });
    expect(primary.calls).toBe(1);
    expect(backup.calls).toBe(0);
  });

  it('does not retry an auth error but falls back from it', async () => {
    const primary = new FakeProvider('main', [{ error: new LlmError('auth', 'bad key', { status: 401 }) }]);
    const backup = new FakeProvider('backup', [ok('from backup')]);
    const rp = new ResilientProvider([primary, backup], { sleep: recordingSleep().sleep });
    const deltas = await drain(rp.stream(request));
    expect(primary.calls).toBe(1);
    expect(ofType(deltas, 'retry')).toEqual([]);
    expect(ofType(deltas, 'fallback')).toEqual([
      { type: 'fallback', from: 'main', to: 'backup', reason: 'bad key' },
    ]);
    expect(texts(deltas)).toEqual(['from backup']);
  });

  it('turns an unexpected (non-LlmError) throw into a non-retried invalid-response', async () => {
    const primary = new FakeProvider('main', [{ error: new TypeError('boom') }]);
    const rp = new ResilientProvider([primary], { sleep: recordingSleep().sleep });
    const { error } = await drainSettled(rp.stream(request));
    expect(primary.calls).toBe(1);
    expect(error).toMatchObject({ kind: 'invalid-response' });
    expect((error as Error).message).toBe('main: unexpected provider error: boom');
  });
});

describe('ResilientProvider: idle timeout', () => {
  it('times out a silent attempt, retries, and succeeds', async () => {
    const primary = new FakeProvider('main', [{ hang: true }, ok('second time')]);
    const rp = new ResilientProvider([primary], { timeoutMs: 50, sleep: recordingSleep().sleep });
    const deltas = await drain(rp.stream(request));
    expect(primary.calls).toBe(2);
    expect(primary.signals[0]?.aborted).toBe(true);
    expect(ofType(deltas, 'retry')[0]?.reason).toMatch(/no data from the model for 50 ms/);
    expect(texts(deltas)).toEqual(['second time']);
  });

  it('times out even a provider that ignores its abort signal', async () => {
    const primary = new FakeProvider('main', [
      { deltas: [text('a')], hang: true, ignoreSignal: true },
      ok('b'),
    ]);
    const rp = new ResilientProvider([primary], { timeoutMs: 40, sleep: recordingSleep().sleep });
    const deltas = await drain(rp.stream(request));
    expect(ofType(deltas, 'retry')[0]).toMatchObject({ discard: true });
    expect(texts(deltas)).toEqual(['a', 'b']);
  });

  it('never kills a slow but lively stream: the timeout is per gap, not per call', async () => {
    // 8 deltas 30 ms apart = ~240 ms in total, far beyond the 100 ms idle timeout.
    const deltas = Array.from({ length: 8 }, (_, i) => text(String(i)));
    const primary = new FakeProvider('main', [{ deltas: [...deltas, finish], gapMs: 30 }]);
    const rp = new ResilientProvider([primary], { timeoutMs: 100, maxRetries: 0 });
    const out = await drain(rp.stream(request));
    expect(primary.calls).toBe(1);
    expect(texts(out).join('')).toBe('01234567');
  });

  it('uses a per-profile timeout when given', async () => {
    const primary = new FakeProvider('main', [{ deltas: [text('x'), finish], gapMs: 60 }]);
    const rp = new ResilientProvider([primary], {
      timeoutMs: 10,
      profileTimeoutsMs: { main: 1000 },
      maxRetries: 0,
    });
    expect(texts(await drain(rp.stream(request)))).toEqual(['x']);
  });
});

describe('ResilientProvider: cancellation', () => {
  it('stops at once when the caller aborts during the backoff sleep', async () => {
    const primary = new FakeProvider('main', [{ error: httpError(503) }, ok('never')]);
    // A one-minute backoff: only a working abort lets this test finish.
    const rp = new ResilientProvider([primary], { baseDelayMs: 60_000, maxDelayMs: 60_000, random: () => 1 });
    const ctrl = new AbortController();
    const seen: Delta[] = [];
    const run = (async () => {
      for await (const d of rp.stream(request, ctrl.signal)) {
        seen.push(d);
        if (d.type === 'retry') setTimeout(() => ctrl.abort(), 20);
      }
    })();
    await expect(run).rejects.toMatchObject({ name: 'LlmError', kind: 'aborted' });
    expect(primary.calls).toBe(1);
    expect(seen.map((d) => d.type)).toEqual(['retry']);
  });

  it('stops mid-stream on abort without retrying or falling back', async () => {
    const primary = new FakeProvider('main', [{ deltas: [text('a')], hang: true }]);
    const backup = new FakeProvider('backup', [ok('never')]);
    const rp = new ResilientProvider([primary, backup], { timeoutMs: 10_000 });
    const ctrl = new AbortController();
    const run = (async () => {
      for await (const d of rp.stream(request, ctrl.signal)) if (d.type === 'text') ctrl.abort();
    })();
    await expect(run).rejects.toMatchObject({ kind: 'aborted' });
    expect(primary.calls).toBe(1);
    expect(backup.calls).toBe(0);
    expect(primary.signals[0]?.aborted).toBe(true);
  });

  it('an already aborted signal makes no call', async () => {
    const primary = new FakeProvider('main', [ok('never')]);
    const rp = new ResilientProvider([primary]);
    await expect(drain(rp.stream(request, AbortSignal.abort()))).rejects.toMatchObject({ kind: 'aborted' });
    expect(primary.calls).toBe(0);
  });

  it('aborts the underlying request when the consumer stops reading', async () => {
    const primary = new FakeProvider('main', [{ deltas: [text('a'), text('b'), finish], gapMs: 5 }]);
    const rp = new ResilientProvider([primary]);
    for await (const d of rp.stream(request)) if (d.type === 'text') break;
    expect(primary.signals[0]?.aborted).toBe(true);
  });
});

describe('ResilientProvider: fallback', () => {
  it('moves down the chain in order, announcing each move, and serves from the first that works', async () => {
    const a = new FakeProvider('a', [{ error: httpError(500) }, { error: httpError(500) }]);
    const b = new FakeProvider('b', [{ error: new LlmError('http', 'model not found', { status: 404 }) }]);
    const c = new FakeProvider('c', [
      { deltas: [text('from c'), { type: 'usage', usage: { inputTokens: 3, outputTokens: 2 } }, finish] },
    ]);
    const rp = new ResilientProvider([a, b, c], { maxRetries: 1, sleep: recordingSleep().sleep });
    expect(rp.info.profile).toBe('a');
    const deltas = await drain(rp.stream(request));
    expect([a.calls, b.calls, c.calls]).toEqual([2, 1, 1]);
    expect(deltas.filter((d) => d.type === 'retry' || d.type === 'fallback').map((d) => d.type)).toEqual([
      'retry',
      'fallback',
      'fallback',
    ]);
    expect(ofType(deltas, 'fallback')).toEqual([
      { type: 'fallback', from: 'a', to: 'b', reason: 'HTTP 500 from fake' },
      { type: 'fallback', from: 'b', to: 'c', reason: 'model not found' },
    ]);
    expect(texts(deltas)).toEqual(['from c']);
    expect(rp.activeInfo.profile).toBe('c');
    expect(rp.info.profile).toBe('a');
    expect(ofType(deltas, 'usage')[0]?.model?.profile).toBe('c');
  });

  it('lists every profile and its last error when all fail', async () => {
    const a = new FakeProvider('a', [{ error: httpError(503) }]);
    const b = new FakeProvider('b', [{ error: new LlmError('auth', 'invalid api key', { status: 401 }) }]);
    const rp = new ResilientProvider([a, b], { maxRetries: 0 });
    const { error } = await drainSettled(rp.stream(request));
    expect(error).toMatchObject({ kind: 'all-failed' });
    expect((error as Error).message).toBe(
      'all 2 model profiles failed: a (a-model): HTTP 503 from fake; b (b-model): invalid api key',
    );
    expect((error as LlmError).cause).toHaveLength(2);
  });

  it('needs at least one provider and rejects a bad timeout', () => {
    expect(() => new ResilientProvider([])).toThrow(/at least one provider/);
    expect(() => new ResilientProvider([new FakeProvider('a', [])], { timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});

describe('ResilientProvider: circuit breaker', () => {
  it('fails fast while open, skips to the fallback, and recovers through a half-open trial', async () => {
    let now = 0;
    const breakers = new BreakerRegistry({ failureThreshold: 2, recoveryMs: 1000, now: () => now });
    const { sleep } = recordingSleep();
    const primary = new FakeProvider('main', [
      { error: httpError(500) },
      { error: httpError(500) }, // breaker opens here
      ok('primary is back'),
    ]);
    const backup = new FakeProvider('backup', [ok('backup 1'), ok('backup 2')]);
    const rp = new ResilientProvider([primary, backup], { maxRetries: 5, breakers, sleep });

    // Call 1: two failures open the breaker, so no further retries; fall back.
    const first = await drain(rp.stream(request));
    expect(primary.calls).toBe(2);
    expect(ofType(first, 'retry')).toHaveLength(1);
    expect(texts(first)).toEqual(['backup 1']);
    expect(breakers.forModel(primary.info).state).toBe('open');

    // Call 2: the primary is not called at all.
    const second = await drain(rp.stream(request));
    expect(primary.calls).toBe(2);
    expect(ofType(second, 'fallback')[0]?.reason).toMatch(/circuit open/);
    expect(texts(second)).toEqual(['backup 2']);

    // Call 3: after recoveryMs one trial goes to the primary; it succeeds and closes the circuit.
    now += 1000;
    const third = await drain(rp.stream(request));
    expect(primary.calls).toBe(3);
    expect(texts(third)).toEqual(['primary is back']);
    expect(breakers.forModel(primary.info).state).toBe('closed');
    expect(rp.activeInfo.profile).toBe('main');
  });

  it('a request error does not count against the breaker', async () => {
    const breakers = new BreakerRegistry({ failureThreshold: 1 });
    const primary = new FakeProvider('main', [{ error: httpError(422) }]);
    const rp = new ResilientProvider([primary], { breakers });
    await expect(drain(rp.stream(request))).rejects.toMatchObject({ status: 422 });
    expect(breakers.forModel(primary.info).state).toBe('closed');
  });

  it('an abandoned half-open trial frees its slot', async () => {
    let now = 0;
    const breakers = new BreakerRegistry({ failureThreshold: 1, recoveryMs: 10, now: () => now });
    const primary = new FakeProvider('main', [
      { error: httpError(500) },
      { deltas: [text('a'), text('b'), finish] },
      ok('again'),
    ]);
    const rp = new ResilientProvider([primary], { maxRetries: 0, breakers });
    await expect(drain(rp.stream(request))).rejects.toMatchObject({ kind: 'http', status: 500 });
    now += 10;
    for await (const d of rp.stream(request)) if (d.type === 'text') break;
    expect(breakers.forModel(primary.info).state).toBe('half-open');
    expect(texts(await drain(rp.stream(request)))).toEqual(['again']);
    expect(breakers.forModel(primary.info).state).toBe('closed');
  });
});
