import { describe, expect, it } from 'vitest';
import { complete } from '../../src/llm/collect.js';
import { LlmError } from '../../src/llm/errors.js';
import { ResilientProvider } from '../../src/llm/resilient.js';
import type { Delta } from '../../src/llm/types.js';
import {
  FakeProvider,
  finish,
  httpError,
  modelInfo,
  recordingSleep,
  request,
  text,
} from './fake-provider.js';

const call = { id: 'c1', name: 'read_file', args: { path: 'a.txt' } };

describe('complete', () => {
  it('drains text, thinking, tool calls, usage and the finish reason', async () => {
    const deltas: Delta[] = [
      { type: 'thinking', text: 'let me ' },
      { type: 'thinking', text: 'see', signature: 'sig-1' },
      text('Hel'),
      text('lo'),
      { type: 'tool-call', call: { type: 'tool-call', ...call } },
      { type: 'usage', usage: { inputTokens: 10, outputTokens: 4, cachedInputTokens: 2 } },
      { type: 'finish', reason: 'tool-calls' },
    ];
    const result = await complete(new FakeProvider('main', [{ deltas }]), request);
    expect(result).toEqual({
      text: 'Hello',
      thinking: 'let me see',
      thinkingSignature: 'sig-1',
      toolCalls: [{ type: 'tool-call', ...call }],
      usage: { inputTokens: 10, outputTokens: 4, cachedInputTokens: 2 },
      finishReason: 'tool-calls',
    });
  });

  it('drops what a discarded attempt streamed but still counts its tokens', async () => {
    const primary = new FakeProvider('main', [
      {
        deltas: [text('half an ans'), { type: 'usage', usage: { inputTokens: 5, outputTokens: 1 } }],
        error: new LlmError('network', 'reset'),
      },
      {
        deltas: [text('whole answer'), { type: 'usage', usage: { inputTokens: 5, outputTokens: 3 } }, finish],
      },
    ]);
    const rp = new ResilientProvider([primary], { sleep: recordingSleep().sleep });
    const result = await complete(rp, request);
    expect(result.text).toBe('whole answer');
    expect(result.usage).toEqual({ inputTokens: 10, outputTokens: 4 });
    expect(result.finishReason).toBe('stop');
    expect(result.model).toEqual(modelInfo('main'));
  });

  it('drops what a failed profile streamed before a fallback', async () => {
    const a = new FakeProvider('a', [
      { deltas: [text('from a')], error: new LlmError('auth', 'no', { status: 403 }) },
    ]);
    const b = new FakeProvider('b', [{ deltas: [text('from b'), finish] }]);
    const result = await complete(new ResilientProvider([a, b]), request);
    expect(result.text).toBe('from b');
  });

  it("keeps the last usage delta within one attempt and reports 'other' without a finish", async () => {
    const deltas: Delta[] = [
      { type: 'usage', usage: { inputTokens: 7, outputTokens: 0 } },
      text('x'),
      { type: 'usage', usage: { inputTokens: 7, outputTokens: 9 } },
    ];
    const result = await complete(new FakeProvider('m', [{ deltas }]), request);
    expect(result.usage).toEqual({ inputTokens: 7, outputTokens: 9 });
    expect(result.finishReason).toBe('other');
  });

  it('propagates the stream error', async () => {
    const p = new FakeProvider('m', [{ error: httpError(400) }]);
    await expect(complete(p, request)).rejects.toMatchObject({ kind: 'http', status: 400 });
  });
});
