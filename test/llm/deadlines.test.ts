import { describe, expect, it } from 'vitest';
import type { LlmError } from '../../src/llm/errors.js';
import { type ResilientOptions, ResilientProvider } from '../../src/llm/resilient.js';
import type { Delta, ModelInfo, ModelRequest, Provider } from '../../src/llm/types.js';
import { FakeTimers } from '../support/fake-timers.js';
import { modelInfo, request } from './fake-provider.js';

/** What one call does, in fake time: hang until aborted, or send `deltas` `everyMs` apart. */
type Step = { hang: true } | { deltas: number; everyMs: number };

class TimedProvider implements Provider {
  readonly info: ModelInfo;
  calls = 0;
  constructor(
    profile: string,
    private readonly steps: Step[],
    private readonly timers: FakeTimers,
  ) {
    this.info = modelInfo(profile);
  }

  async *stream(_r: ModelRequest, signal?: AbortSignal): AsyncGenerator<Delta> {
    const step = this.steps[this.calls++] ?? { hang: true };
    const sleep = (ms: number) =>
      new Promise<void>((resolve, reject) => {
        const h = this.timers.setTimeout(resolve, ms);
        signal?.addEventListener('abort', () => {
          this.timers.clearTimeout(h);
          reject(signal.reason);
        });
      });
    if ('hang' in step) {
      await sleep(Number.MAX_SAFE_INTEGER);
      return;
    }
    for (let i = 0; i < step.deltas; i++) {
      await sleep(step.everyMs);
      yield { type: 'text', text: `${i} ` };
    }
    yield { type: 'finish', reason: 'stop' };
  }
}

interface Seen {
  retries: Array<{ at: number; attempt: number; maxRetries: number; kind: string; profile: string }>;
  fallbacks: number[];
  text: string;
  end: number;
  error: LlmError | undefined;
}

/** Runs one call on the fake clock and notes when each event happened. */
async function call(timers: FakeTimers, chain: Provider[], opts: ResilientOptions = {}): Promise<Seen> {
  const rp = new ResilientProvider(chain, { timers, random: () => 0, ...opts });
  const seen: Seen = { retries: [], fallbacks: [], text: '', end: 0, error: undefined };
  await timers.run(
    (async () => {
      try {
        for await (const d of rp.stream(request)) {
          if (d.type === 'retry') seen.retries.push({ at: timers.now(), ...d });
          if (d.type === 'fallback') seen.fallbacks.push(timers.now());
          if (d.type === 'text') seen.text += d.text;
        }
      } catch (err) {
        seen.error = err as LlmError;
      }
      seen.end = timers.now();
    })(),
  );
  return seen;
}

describe('model call deadlines (default settings, on a fake clock)', () => {
  it('a hung model is reported at 60 s and given up at 180 s', async () => {
    const timers = new FakeTimers();
    const hung = new TimedProvider('main', [], timers);
    const seen = await call(timers, [hung]);
    expect(seen.retries.map((r) => [r.at, r.attempt, r.maxRetries, r.kind])).toEqual([
      [60_000, 1, 3, 'timeout'],
      [120_500, 2, 3, 'timeout'],
    ]);
    expect(seen.end).toBe(180_000);
    expect(hung.calls).toBe(3);
    expect(seen.error?.kind).toBe('timeout');
    expect(seen.error?.retryable).toBe(false);
    expect(seen.error?.message).toMatch(
      /^main \(main-model\): the model did not answer within 180 s \(llm\.call_timeout_s\); gave up after 3 attempts/,
    );
  });

  it('an answer under way is not cut by the deadline (idle timeout and stream cap bound it)', async () => {
    const timers = new FakeTimers();
    const slow = new TimedProvider(
      'main',
      [{ hang: true }, { hang: true }, { deltas: 10, everyMs: 10_000 }],
      timers,
    );
    const seen = await call(timers, [slow]);
    expect(seen.error).toBeUndefined();
    expect(seen.text).toBe('0 1 2 3 4 5 6 7 8 9 ');
    expect(seen.end).toBe(121_500 + 100_000);
  });

  it('a stream that never ends is stopped at 600 s and not retried', async () => {
    const timers = new FakeTimers();
    const endless = new TimedProvider('main', [{ deltas: Number.POSITIVE_INFINITY, everyMs: 1000 }], timers);
    const seen = await call(timers, [endless]);
    expect(seen.end).toBe(600_000);
    expect(endless.calls).toBe(1);
    expect(seen.retries).toEqual([]);
    expect(seen.error?.message).toMatch(/still streaming after 600 s \(llm\.stream_max_s\)/);
  });

  it('each profile of the fallback chain gets its own deadline', async () => {
    const timers = new FakeTimers();
    const hung = new TimedProvider('main', [], timers);
    const backup = new TimedProvider('backup', [{ deltas: 1, everyMs: 2000 }], timers);
    const seen = await call(timers, [hung, backup]);
    expect(seen.fallbacks).toEqual([180_000]);
    expect(seen.text).toBe('0 ');
    expect(seen.end).toBe(182_000);
  });

  it('a profile whose idle timeout is longer than the deadline still gets one full attempt', async () => {
    const timers = new FakeTimers();
    const slowStart = new TimedProvider('main', [{ deltas: 1, everyMs: 250_000 }], timers);
    const seen = await call(timers, [slowStart], { profileTimeoutsMs: { main: 300_000 } });
    expect(seen.error).toBeUndefined();
    expect(seen.end).toBe(250_000);
  });

  it('shorter settings are honoured the same way', async () => {
    const timers = new FakeTimers();
    const hung = new TimedProvider('main', [], timers);
    const seen = await call(timers, [hung], { timeoutMs: 5000, callTimeoutMs: 12_000, maxRetries: 10 });
    expect(seen.retries.map((r) => r.at)).toEqual([5000, 10_500]);
    expect(seen.end).toBe(12_000);
    expect(seen.error?.message).toMatch(/did not answer within 12 s/);
  });
});
