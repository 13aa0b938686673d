import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { AnthropicProvider, type AnthropicProviderOptions } from '../../src/llm/anthropic.js';
import type { Delta, Message, ModelInfo } from '../../src/llm/types.js';
import { collect } from '../support/collect.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';
import { callsOf, failure, hi, pooledSockets, textOf } from './provider-helpers.js';
import { startRawServer } from './raw-server.js';

let server: ModelServer;

beforeAll(async () => {
  server = await startModelServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.reset();
});

function info(baseUrl: string = server.anthropicBaseUrl): ModelInfo {
  return {
    profile: 'claude',
    provider: 'anthropic',
    model: 'claude-test',
    baseUrl,
    contextWindow: 200_000,
    maxOutputTokens: 8192,
  };
}

function provider(opts: AnthropicProviderOptions = {}, baseUrl?: string): AnthropicProvider {
  return new AnthropicProvider(info(baseUrl), opts);
}

const sse = (data: Record<string, unknown>): string =>
  `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;

describe('AnthropicProvider: streaming', () => {
  it('streams thinking with its signature, then text, then usage and finish', async () => {
    server.script(
      reply().thinking('Consider the options.', { signature: 'sig-abc' }).text('Pick B.').usage(50, 12),
    );
    const deltas = await collect(provider().stream(hi));
    expect(textOf(deltas, 'thinking')).toBe('Consider the options.');
    expect(textOf(deltas, 'text')).toBe('Pick B.');
    const signed = deltas.filter((d) => d.type === 'thinking' && d.signature !== undefined);
    expect(signed).toEqual([{ type: 'thinking', text: '', signature: 'sig-abc' }]);
    // the signature closes the thinking block, before any text
    expect(deltas.indexOf(signed[0]!)).toBeLessThan(deltas.findIndex((d) => d.type === 'text'));
    expect(deltas.slice(-2)).toEqual([
      { type: 'usage', usage: { inputTokens: 50, outputTokens: 12 } },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('assembles several tool_use blocks from input_json_delta pieces', async () => {
    server.script(
      reply()
        .text('Checking.')
        .toolCall('read_file', { path: 'README.md', range: { from: 1, to: 40 } }, { id: 'toolu_1' })
        .toolCall('grep', { pattern: 'x' }, { id: 'toolu_2', whole: true }),
    );
    const deltas = await collect(provider().stream(hi));
    expect(callsOf(deltas)).toEqual([
      {
        type: 'tool-call',
        id: 'toolu_1',
        name: 'read_file',
        args: { path: 'README.md', range: { from: 1, to: 40 } },
      },
      { type: 'tool-call', id: 'toolu_2', name: 'grep', args: { pattern: 'x' } },
    ]);
    expect(deltas.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' });
  });

  it('repairs malformed tool input and flags unrepairable input', async () => {
    server.script(
      reply()
        .toolCallRaw('edit', "{'path': 'a.ts', 'old': 'x',}", { id: 't1' })
        .toolCallRaw('run', '{{{', { id: 't2' })
        .toolCallRaw('noargs', '', { id: 't3' }),
    );
    const calls = callsOf(await collect(provider().stream(hi)));
    expect(calls[0]).toEqual({ type: 'tool-call', id: 't1', name: 'edit', args: { path: 'a.ts', old: 'x' } });
    expect(calls[1]).toMatchObject({
      id: 't2',
      args: {},
      argsError: expect.stringMatching(/not valid JSON/),
    });
    expect(calls[2]).toEqual({ type: 'tool-call', id: 't3', name: 'noargs', args: {} });
  });

  it('counts cache reads into input tokens and reports them as cached', async () => {
    server.script(reply().text('ok').usage(3000, 40, { cached: 2500 }));
    const deltas = await collect(provider().stream(hi));
    expect(deltas.find((d) => d.type === 'usage')).toEqual({
      type: 'usage',
      usage: { inputTokens: 3000, outputTokens: 40, cachedInputTokens: 2500 },
    });
  });

  it.each([
    ['max_tokens', 'length'],
    ['stop_sequence', 'stop'],
    ['refusal', 'content-filter'],
    ['pause_turn', 'other'],
  ])('maps stop_reason %s to %s', async (wire, internal) => {
    server.script(reply().text('x').finish(wire));
    const deltas = await collect(provider().stream(hi));
    expect(deltas.at(-1)).toEqual({ type: 'finish', reason: internal });
  });
});

describe('AnthropicProvider: request translation', () => {
  it('moves system to the top level, merges same-role turns, sends tool results and signed thinking', async () => {
    server.script(reply().text('ok'));
    const messages: Message[] = [
      { role: 'system', parts: [{ type: 'text', text: 'You are Tea.' }] },
      { role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] },
      { role: 'user', parts: [{ type: 'text', text: 'Look at this' }] },
      { role: 'user', parts: [{ type: 'image', mediaType: 'image/png', data: 'AAAA' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'thinking', text: 'I should read it.', signature: 'sig-1' },
          { type: 'thinking', text: 'unsigned, from another model' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool-call', id: 'toolu_1', name: 'read_file', args: { path: 'a.txt' } },
          { type: 'tool-call', id: 'toolu_2', name: 'rm', args: { path: '/' } },
        ],
      },
      {
        role: 'tool',
        parts: [
          { type: 'tool-result', callId: 'toolu_1', name: 'read_file', output: 'hello', isError: false },
          { type: 'tool-result', callId: 'toolu_2', name: 'rm', output: '[ERROR] denied', isError: true },
        ],
      },
      { role: 'user', parts: [{ type: 'text', text: 'and then?' }] },
    ];
    const tool = {
      name: 'read_file',
      description: 'Read a file.',
      parameters: { type: 'object', properties: {} },
    };
    const p = provider({ apiKey: 'sk-ant-xyz', headers: { 'x-extra': '1' } });
    await collect(p.stream({ messages, tools: [tool], temperature: 0.5 }));

    const req = server.requests[0]!;
    expect(req.wire).toBe('anthropic');
    expect(req.path).toBe('/v1/messages');
    expect(req.headers['x-api-key']).toBe('sk-ant-xyz');
    expect(req.headers['anthropic-version']).toBe('2023-06-01');
    expect(req.headers['x-extra']).toBe('1');
    expect(req.headers.authorization).toBeUndefined();
    expect(req.body).toMatchObject({
      model: 'claude-test',
      max_tokens: 8192,
      stream: true,
      temperature: 0.5,
      system: 'You are Tea.\n\nBe brief.',
      tools: [
        { name: 'read_file', description: 'Read a file.', input_schema: { type: 'object', properties: {} } },
      ],
    });
    expect(req.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Look at this' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'I should read it.', signature: 'sig-1' },
          { type: 'text', text: 'Reading.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.txt' } },
          { type: 'tool_use', id: 'toolu_2', name: 'rm', input: { path: '/' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'hello', is_error: false },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: '[ERROR] denied', is_error: true },
          { type: 'text', text: 'and then?' },
        ],
      },
    ]);
  });

  it('takes max_tokens from the request, and enables thinking without a temperature', async () => {
    server.script(reply().text('a'), reply().text('b'));
    await collect(provider().stream({ ...hi, maxOutputTokens: 100 }));
    expect(server.requests[0]?.body.max_tokens).toBe(100);
    expect(server.requests[0]?.body).not.toHaveProperty('thinking');

    await collect(
      provider({ thinkingBudget: 2048 }).stream({ ...hi, maxOutputTokens: 1000, temperature: 0.3 }),
    );
    const body = server.requests[1]!.body;
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(body.max_tokens as number).toBeGreaterThan(2048);
    expect(body).not.toHaveProperty('temperature');
  });
});

describe('AnthropicProvider: errors', () => {
  it('turns 529 overloaded into a retryable http error with retry-after', async () => {
    server.script(reply().error(529, { message: 'Overloaded', retryAfter: 1 }));
    const err = await failure(collect(provider().stream(hi)));
    expect(err).toMatchObject({ kind: 'http', status: 529, retryAfterMs: 1000, profile: 'claude' });
    expect(err.retryable).toBe(true);
    expect(err.message).toMatch(/529.*Overloaded/);
  });

  it('turns 401 into an auth error that never shows the key', async () => {
    server.script(reply().error(401, { message: 'invalid x-api-key sk-ant-secret' }));
    const err = await failure(collect(provider({ apiKey: 'sk-ant-secret' }).stream(hi)));
    expect(err.kind).toBe('auth');
    expect(err.message).not.toContain('sk-ant-secret');
  });

  it('turns a cut stream into a network error', async () => {
    server.script(reply().text('this answer will never arrive whole').cutAfter(4));
    const err = await failure(collect(provider().stream(hi)));
    expect(err.kind).toBe('network');
  });

  it('aborts promptly while waiting for headers', async () => {
    server.script(reply().hang());
    const ctrl = new AbortController();
    setTimeout(() => ctrl.abort(), 30);
    const err = await failure(collect(provider().stream(hi, ctrl.signal)));
    expect(err.kind).toBe('aborted');
  });

  it('aborts promptly on an idle stream', async () => {
    server.script(reply().text('start of something').hangAfter(4));
    const ctrl = new AbortController();
    const seen: Delta[] = [];
    const err = await failure(
      (async () => {
        for await (const d of provider().stream(hi, ctrl.signal)) {
          seen.push(d);
          setTimeout(() => ctrl.abort(), 20);
        }
      })(),
    );
    expect(err.kind).toBe('aborted');
    expect(textOf(seen, 'text').length).toBeGreaterThan(0);
  });

  it('treats a stream that ends without message_stop as a network error', async () => {
    const raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        sse({ type: 'message_start', message: { usage: { input_tokens: 1, output_tokens: 0 } } }) +
          sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
          sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'half' } }),
      );
    });
    try {
      const err = await failure(collect(provider({}, raw.url).stream(hi)));
      expect(err.kind).toBe('network');
      expect(err.message).toMatch(/ended before the model finished/);
    } finally {
      await raw.close();
    }
  });

  it('reuses one connection for consecutive calls, even when the body ends a moment after message_stop', async () => {
    const raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        sse({ type: 'message_start', message: { usage: { input_tokens: 1, output_tokens: 0 } } }) +
          sse({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }) +
          sse({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } }) +
          sse({ type: 'content_block_stop', index: 0 }) +
          sse({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 1 } }) +
          sse({ type: 'message_stop' }),
      );
      setTimeout(() => res.end(), 20);
    });
    try {
      for (let i = 0; i < 2; i++) {
        expect(textOf(await collect(provider({}, raw.url).stream(hi)), 'text')).toBe('ok');
        await vi.waitFor(async () => expect(await pooledSockets(raw.url)).toBe(1));
      }
      expect(raw.connections()).toBe(1);
    } finally {
      await raw.close();
    }
  });

  it('turns an error event inside the stream into an http error with its status', async () => {
    const raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        sse({ type: 'message_start', message: { usage: { input_tokens: 1, output_tokens: 0 } } }) +
          sse({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }),
      );
    });
    try {
      const err = await failure(collect(provider({}, raw.url).stream(hi)));
      expect(err).toMatchObject({ kind: 'http', status: 529 });
      expect(err.message).toContain('Overloaded');
      expect(err.retryable).toBe(true);
    } finally {
      await raw.close();
    }
  });
});
