import { LlmError } from '../../src/llm/errors.js';
import type { Delta, ModelInfo, ModelRequest, Provider } from '../../src/llm/types.js';

/** What one call to a fake provider does. */
export interface FakeStep {
  deltas?: Delta[];
  /** Thrown after the deltas. */
  error?: LlmError | Error;
  /** After the deltas, wait forever (until the signal aborts, unless `ignoreSignal`). */
  hang?: boolean;
  ignoreSignal?: boolean;
  /** Pause before each delta. */
  gapMs?: number;
}

export function modelInfo(profile: string, overrides: Partial<ModelInfo> = {}): ModelInfo {
  return {
    profile,
    provider: 'openai',
    model: `${profile}-model`,
    baseUrl: `http://fake.invalid/${profile}`,
    contextWindow: 32_768,
    maxOutputTokens: 4096,
    ...overrides,
  };
}

export const text = (t: string): Delta => ({ type: 'text', text: t });
export const finish: Delta = { type: 'finish', reason: 'stop' };
export const ok = (t: string): FakeStep => ({ deltas: [text(t), finish] });
export const httpError = (status: number, retryAfterMs?: number): LlmError =>
  new LlmError(
    'http',
    `HTTP ${status} from fake`,
    retryAfterMs === undefined ? { status } : { status, retryAfterMs },
  );

/** An in-memory provider that plays scripted steps, one per call, and records its calls. */
export class FakeProvider implements Provider {
  readonly info: ModelInfo;
  readonly signals: AbortSignal[] = [];
  calls = 0;
  private readonly steps: FakeStep[];

  constructor(profile: string | ModelInfo, steps: FakeStep[]) {
    this.info = typeof profile === 'string' ? modelInfo(profile) : profile;
    this.steps = steps;
  }

  async *stream(_request: ModelRequest, signal?: AbortSignal): AsyncGenerator<Delta> {
    const step = this.steps[this.calls];
    this.calls += 1;
    if (signal) this.signals.push(signal);
    if (!step) throw new Error(`fake provider ${this.info.profile}: no step for call ${this.calls}`);
    for (const delta of step.deltas ?? []) {
      if (step.gapMs) await wait(step.gapMs, step.ignoreSignal ? undefined : signal);
      yield delta;
    }
    if (step.hang) await wait(Number.POSITIVE_INFINITY, step.ignoreSignal ? undefined : signal);
    if (step.error) throw step.error;
  }
}

/** Resolves after `ms` (never for Infinity); rejects like fetch does when `signal` aborts. */
function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = Number.isFinite(ms) ? setTimeout(resolve, ms) : undefined;
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(new DOMException('The operation was aborted.', 'AbortError'));
      },
      { once: true },
    );
  });
}

export async function drain(iterable: AsyncIterable<Delta>): Promise<Delta[]> {
  const out: Delta[] = [];
  for await (const d of iterable) out.push(d);
  return out;
}

/** Drains and returns both the deltas and the error the stream ended with. */
export async function drainSettled(
  iterable: AsyncIterable<Delta>,
): Promise<{ deltas: Delta[]; error: unknown }> {
  const deltas: Delta[] = [];
  try {
    for await (const d of iterable) deltas.push(d);
    return { deltas, error: undefined };
  } catch (error) {
    return { deltas, error };
  }
}

export const request: ModelRequest = { messages: [{ role: 'user', parts: [{ type: 'text', text: 'hi' }] }] };

/** A sleep that records the delays and returns at once (still honouring an aborted signal). */
export function recordingSleep(): {
  sleeps: number[];
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
} {
  const sleeps: number[] = [];
  return {
    sleeps,
    sleep: async (ms, signal) => {
      sleeps.push(ms);
      if (signal?.aborted) throw new LlmError('aborted', 'cancelled while waiting to retry');
    },
  };
}
