import { describe, expect, it } from 'vitest';
import type { Message, ModelRequest } from '../../src/llm/types.js';
import { collect } from '../support/collect.js';
import { reply } from '../support/script.js';
import { callsOf, failure, hi, textOf, useOpenAIServer } from './provider-helpers.js';
import { startRawServer } from './raw-server.js';

const t = useOpenAIServer();
const provider = t.provider;

describe('OpenAICompatibleProvider: streaming', () => {
  it('streams text in several deltas and finishes with stop', async () => {
    // Chunks sent apart arrive apart, and each leaves as soon as it arrives.
    t.server.script(reply().text('The quick brown fox jumps.').chunkDelay(20));
    const deltas = await collect(provider().stream(hi));
    const texts = deltas.filter((d) => d.type === 'text');
    expect(texts.length).toBeGreaterThan(2);
    expect(textOf(deltas, 'text')).toBe('The quick brown fox jumps.');
    expect(deltas.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
  });

  it('joins chunks that arrive together into one delta per kind, with the same text in order', async () => {
    // The whole reply in one write: it lands in one read, so the reader has nothing to wait for.
    const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
      `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const thinking = ['first ', 'think, ', 'then answer'];
    const text = ['The quick ', 'brown fox ', 'jumps.'];
    const body = [
      chunk({ role: 'assistant', content: '' }),
      ...thinking.map((t) => chunk({ reasoning_content: t })),
      ...text.map((t) => chunk({ content: t })),
      chunk({}, 'stop'),
      'data: [DONE]\n\n',
    ].join('');
    const raw = await startRawServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(body);
    });
    try {
      const deltas = await collect(provider({}, raw.url).stream(hi));
      expect(deltas).toEqual([
        { type: 'thinking', text: 'first think, then answer' },
        { type: 'text', text: 'The quick brown fox jumps.' },
        { type: 'finish', reason: 'stop' },
      ]);
    } finally {
      await raw.close();
    }
  });

  it.each(['reasoning_content', 'reasoning'] as const)('reads thinking from delta.%s', async (field) => {
    t.server.script(reply().thinking('step one, step two').reasoningField(field).text('done'));
    const deltas = await collect(provider().stream(hi));
    expect(textOf(deltas, 'thinking')).toBe('step one, step two');
    expect(textOf(deltas, 'text')).toBe('done');
  });

  it('splits inline <think> tags even when they are cut across chunks', async () => {
    // 8-character chunks cut both tags: "<think>p", "lan</thi", "nk>answe", "r"
    t.server.script(reply().text('<think>plan</think>answer'));
    const deltas = await collect(provider().stream(hi));
    expect(textOf(deltas, 'thinking')).toBe('plan');
    expect(textOf(deltas, 'text')).toBe('answer');
    t.server.script(reply().text('<think>plan</think>answer').chunkSize(3));
    const again = await collect(provider().stream(hi));
    expect(textOf(again, 'thinking')).toBe('plan');
    expect(textOf(again, 'text')).toBe('answer');
  });

  it('assembles several streamed tool calls by index, then usage, then finish', async () => {
    t.server.script(
      reply()
        .text('Let me look.')
        .toolCall('read_file', { path: 'src/a.ts', lines: [1, 20] }, { id: 'call_a' })
        .toolCall('grep', { pattern: 'TODO', glob: '**/*.ts' }, { id: 'call_b' })
        .usage(100, 20),
    );
    const deltas = await collect(provider().stream(hi));
    expect(callsOf(deltas)).toEqual([
      { type: 'tool-call', id: 'call_a', name: 'read_file', args: { path: 'src/a.ts', lines: [1, 20] } },
      { type: 'tool-call', id: 'call_b', name: 'grep', args: { pattern: 'TODO', glob: '**/*.ts' } },
    ]);
    expect(deltas.slice(-4).map((d) => d.type)).toEqual(['tool-call', 'tool-call', 'usage', 'finish']);
    expect(deltas.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' });
  });

  it('accepts whole calls in one chunk, without index and without id (Ollama style)', async () => {
    t.server.script(
      reply()
        .toolCall('a', { x: 1 }, { whole: true, id: 'w1' })
        .toolCall('b', { y: 2 }, { whole: true, noIndex: true, id: 'w2' })
        .toolCall('c', { z: 3 }, { whole: true, noIndex: true, noId: true })
        .finish('stop'),
    );
    const deltas = await collect(provider().stream(hi));
    const calls = callsOf(deltas);
    expect(calls.map((c) => [c.name, c.args])).toEqual([
      ['a', { x: 1 }],
      ['b', { y: 2 }],
      ['c', { z: 3 }],
    ]);
    expect(calls[0]?.id).toBe('w1');
    expect(calls[1]?.id).toBe('w2');
    expect(calls[2]?.id).toMatch(/^call_[0-9a-f]{24}$/);
    // A server saying `stop` while sending tool calls still means tool calls.
    expect(deltas.at(-1)).toEqual({ type: 'finish', reason: 'tool-calls' });
  });

  it('repairs malformed arguments and flags unrepairable ones', async () => {
    t.server.script(
      reply()
        .toolCallRaw('write', '{"path": "x.txt", "content": "hi",}', { id: 'r1' })
        .toolCallRaw('run', '{{{', { id: 'r2' })
        .toolCallRaw('noargs', '', { id: 'r3' }),
    );
    const calls = callsOf(await collect(provider().stream(hi)));
    expect(calls[0]).toEqual({
      type: 'tool-call',
      id: 'r1',
      name: 'write',
      args: { path: 'x.txt', content: 'hi' },
    });
    expect(calls[1]?.args).toEqual({});
    expect(calls[1]?.argsError).toMatch(/not valid JSON/);
    expect(calls[2]).toEqual({ type: 'tool-call', id: 'r3', name: 'noargs', args: {} });
  });

  it('reports usage with cached and reasoning tokens', async () => {
    t.server.script(reply().text('ok').usage(1200, 80, { cached: 1000, reasoning: 30 }));
    const deltas = await collect(provider().stream(hi));
    expect(deltas.filter((d) => d.type === 'usage')).toEqual([
      {
        type: 'usage',
        usage: { inputTokens: 1200, outputTokens: 80, cachedInputTokens: 1000, reasoningTokens: 30 },
      },
    ]);
  });

  it.each([
    ['length', 'length'],
    ['content_filter', 'content-filter'],
    ['something_new', 'other'],
  ])('maps finish_reason %s to %s', async (wire, internal) => {
    t.server.script(reply().text('x').finish(wire));
    const deltas = await collect(provider().stream(hi));
    expect(deltas.at(-1)).toEqual({ type: 'finish', reason: internal });
  });
});

describe('OpenAICompatibleProvider: request translation', () => {
  it('translates messages, tools and options to the wire and sends the key', async () => {
    t.server.script(reply().text('ok'));
    const messages: Message[] = [
      { role: 'system', parts: [{ type: 'text', text: 'You are Tea.' }] },
      {
        role: 'user',
        parts: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
          { type: 'image', mediaType: 'image/jpeg', url: 'https://example.com/cat.jpg' },
        ],
      },
      {
        role: 'assistant',
        parts: [
          { type: 'thinking', text: 'secret reasoning' },
          { type: 'text', text: 'Reading it.' },
          { type: 'tool-call', id: 'call_1', name: 'read_file', args: { path: 'a.txt' } },
          { type: 'tool-call', id: 'call_2', name: 'list_dir', args: {} },
        ],
      },
      {
        role: 'tool',
        parts: [
          { type: 'tool-result', callId: 'call_1', name: 'read_file', output: 'contents', isError: false },
          {
            type: 'tool-result',
            callId: 'call_2',
            name: 'list_dir',
            output: '[ERROR] denied',
            isError: true,
          },
        ],
      },
      { role: 'assistant', parts: [{ type: 'tool-call', id: 'call_3', name: 'noop', args: { a: 1 } }] },
      {
        role: 'tool',
        parts: [{ type: 'tool-result', callId: 'call_3', name: 'noop', output: '', isError: false }],
      },
    ];
    const tool = {
      name: 'read_file',
      description: 'Read a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    };
    const p = provider({ apiKey: 'sk-test-123', headers: { 'x-extra': 'yes' } });
    await collect(p.stream({ messages, tools: [tool], maxOutputTokens: 256, temperature: 0.2 }));

    const req = t.server.requests[0]!;
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer sk-test-123');
    expect(req.headers['x-extra']).toBe('yes');
    expect(req.headers['content-type']).toBe('application/json');
    const body = req.body;
    expect(body).toMatchObject({
      model: 'gpt-test',
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 256,
      temperature: 0.2,
    });
    expect(body.tools).toEqual([{ type: 'function', function: tool }]);
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are Tea.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
        ],
      },
      {
        role: 'assistant',
        content: 'Reading it.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
          { id: 'call_2', type: 'function', function: { name: 'list_dir', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'contents' },
      { role: 'tool', tool_call_id: 'call_2', content: '[ERROR] denied' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'noop', arguments: '{"a":1}' } }],
      },
      { role: 'tool', tool_call_id: 'call_3', content: '' },
    ]);
    expect(JSON.stringify(body)).not.toContain('secret reasoning');
  });

  it('sends a text-only user message as a string, no tools key without tools, no auth without a key', async () => {
    t.server.script(reply().text('ok'));
    await collect(provider().stream(hi));
    const req = t.server.requests[0]!;
    expect(req.headers.authorization).toBeUndefined();
    expect(req.body.messages).toEqual([{ role: 'user', content: 'hi' }]);
    expect(req.body).not.toHaveProperty('tools');
    expect(req.body).not.toHaveProperty('max_tokens');
    expect(req.body).not.toHaveProperty('temperature');
  });

  it('rejects an image with neither data nor url before sending anything', async () => {
    const bad: ModelRequest = {
      messages: [{ role: 'user', parts: [{ type: 'image', mediaType: 'image/png' }] }],
    };
    const err = await failure(collect(provider().stream(bad)));
    expect(err.kind).toBe('invalid-response');
    expect(err.message).toMatch(/image part \(image\/png\) has neither data nor url/);
    expect(t.server.requests).toHaveLength(0);
  });
});
