import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ModelServer, NO_REPLY_MESSAGE, startModelServer } from './model-server.js';
import { reply } from './script.js';

type Json = Record<string, unknown>;

let server: ModelServer;

beforeEach(async () => {
  server = await startModelServer();
});

afterEach(async () => {
  await server.close();
});

function post(url: string, body: Json, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer k-1' },
    body: JSON.stringify(body),
    ...init,
  });
}

/** The `data:` payloads of an SSE body, with the event name when there is one. */
function sse(text: string): Array<{ event?: string; data: string }> {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
      const data = lines.find((l) => l.startsWith('data: '))?.slice(6) ?? '';
      return event === undefined ? { data } : { event, data };
    });
}

const openai = (): string => `${server.openaiBaseUrl}/chat/completions`;
const anthropic = (): string => `${server.anthropicBaseUrl}/v1/messages`;

describe('model server, OpenAI wire', () => {
  it('streams text in small chunks, a finish chunk, a usage chunk and [DONE]', async () => {
    server.script(reply().text('Hello there, friend').usage(12, 5));
    const res = await post(openai(), { model: 'm1', stream: true, messages: [] });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = sse(await res.text());
    expect(events.at(-1)?.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data) as Json);
    for (const c of chunks) {
      expect(c.object).toBe('chat.completion.chunk');
      expect(c.model).toBe('m1');
    }
    const contents = chunks.flatMap((c) => {
      const choice = (c.choices as Json[])[0];
      const delta = choice?.delta as Json | undefined;
      return typeof delta?.content === 'string' && delta.content !== '' ? [delta.content] : [];
    });
    expect(contents).toEqual(['Hello th', 'ere, fri', 'end']);
    const finish = chunks.at(-2)?.choices as Json[];
    expect(finish[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 12, completion_tokens: 5 } });
  });

  it('records the request: wire, path, headers and parsed body', async () => {
    server.script(reply().text('ok'));
    await (
      await post(openai(), { model: 'm1', stream: true, messages: [{ role: 'user', content: 'hi' }] })
    ).text();
    expect(server.requests).toHaveLength(1);
    const req = server.requests[0]!;
    expect(req.wire).toBe('openai');
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer k-1');
    expect(req.body.messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('streams tool-call arguments in pieces by index, and groups whole calls in one chunk', async () => {
    server.script(
      reply().toolCall('read', { path: 'a.txt' }, { id: 'c1' }),
      reply()
        .toolCall('a', { x: 1 }, { whole: true })
        .toolCall('b', { y: 2 }, { whole: true, noIndex: true }),
    );
    const first = sse(await (await post(openai(), { stream: true })).text());
    const calls = first
      .filter((e) => e.data !== '[DONE]')
      .flatMap((e) => {
        const delta = ((JSON.parse(e.data) as Json).choices as Json[])[0]?.delta as Json | undefined;
        return (delta?.tool_calls as Json[] | undefined) ?? [];
      });
    expect(calls.length).toBeGreaterThan(2);
    expect(calls[0]).toMatchObject({ index: 0, id: 'c1', function: { name: 'read' } });
    const args = calls.map((c) => (c.function as Json).arguments).join('');
    expect(JSON.parse(args)).toEqual({ path: 'a.txt' });
    const finishes = first.filter((e) => e.data.includes('"finish_reason":"tool_calls"'));
    expect(finishes).toHaveLength(1);

    const second = sse(await (await post(openai(), { stream: true })).text());
    const withCalls = second.filter((e) => e.data.includes('tool_calls":['));
    expect(withCalls).toHaveLength(1);
    const delta = ((JSON.parse(withCalls[0]!.data) as Json).choices as Json[])[0]?.delta as Json;
    const whole = delta.tool_calls as Json[];
    expect(whole).toHaveLength(2);
    expect(whole[0]).toMatchObject({ index: 0, function: { name: 'a', arguments: '{"x":1}' } });
    expect(whole[1]).not.toHaveProperty('index');
  });

  it('sends thinking in the chosen reasoning field', async () => {
    server.script(reply().thinking('hmm').reasoningField('reasoning').text('a'));
    const text = await (await post(openai(), { stream: true })).text();
    expect(text).toContain('"reasoning":"hmm"');
    expect(text).not.toContain('reasoning_content');
  });

  it('renders one JSON completion when stream is false', async () => {
    server.script(reply().thinking('t').text('whole answer').toolCall('x', { a: 1 }).usage(3, 4));
    const res = await post(openai(), { model: 'm2', stream: false });
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = (await res.json()) as Json;
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'm2',
      choices: [
        {
          message: {
            role: 'assistant',
            content: 'whole answer',
            reasoning_content: 't',
            tool_calls: [{ type: 'function', function: { name: 'x', arguments: '{"a":1}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    });
  });

  it('answers scripted errors with retry-after headers', async () => {
    server.script(reply().error(429, { message: 'slow down', retryAfter: 2, retryAfterMs: 150 }));
    const res = await post(openai(), { stream: true });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.headers.get('retry-after-ms')).toBe('150');
    expect(await res.json()).toMatchObject({ error: { message: 'slow down' } });
  });

  it('answers 500 with a clear message when no reply is left', async () => {
    const res = await post(openai(), { stream: true });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: { message: NO_REPLY_MESSAGE, type: 'server_error', code: 500 },
    });
  });

  it('lists models without consuming a reply, and 404s unknown routes', async () => {
    server.script(reply().text('kept'));
    const models = (await (await fetch(`${server.openaiBaseUrl}/models`)).json()) as Json;
    expect((models.data as Json[])[0]).toMatchObject({ id: 'scripted-model' });
    expect(server.pending()).toBe(1);
    const missing = await post(`${server.url}/nope`, {});
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('unknown route POST /nope');
  });

  it('rejects a body that is not JSON with a 400', async () => {
    const res = await fetch(openai(), { method: 'POST', body: '{oops' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('not a JSON object');
  });

  it('serves replies in order across both wires, and reset empties queue and log', async () => {
    server.script(reply().text('first'), reply().text('second').build(), reply().text('third'));
    expect(server.pending()).toBe(3);
    expect(await (await post(anthropic(), { stream: false })).text()).toContain('first');
    expect(await (await post(openai(), { stream: false })).text()).toContain('second');
    expect(server.pending()).toBe(1);
    expect(server.requests.map((r) => r.wire)).toEqual(['anthropic', 'openai']);
    server.reset();
    expect(server.pending()).toBe(0);
    expect(server.requests).toHaveLength(0);
  });
});

describe('model server, Anthropic wire', () => {
  it('streams the real event sequence', async () => {
    server.script(
      reply()
        .thinking('let me see', { signature: 'sig-1' })
        .text('Answer')
        .toolCall('grep', { q: 'x' }, { id: 'tu1' })
        .usage(20, 7, { cached: 5 }),
    );
    const res = await post(anthropic(), { model: 'claude-x', stream: true, max_tokens: 10, messages: [] });
    expect(res.status).toBe(200);
    const events = sse(await res.text());
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('message_start');
    expect(names.at(-2)).toBe('message_delta');
    expect(names.at(-1)).toBe('message_stop');
    for (const e of events) expect((JSON.parse(e.data) as Json).type).toBe(e.event);
    const data = events.map((e) => JSON.parse(e.data) as Json);
    expect(data[0]).toMatchObject({
      message: { model: 'claude-x', usage: { input_tokens: 15, cache_read_input_tokens: 5 } },
    });
    const starts = data.filter((d) => d.type === 'content_block_start').map((d) => d.content_block as Json);
    expect(starts.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use']);
    expect(starts[2]).toMatchObject({ id: 'tu1', name: 'grep' });
    const deltas = data.filter((d) => d.type === 'content_block_delta').map((d) => d.delta as Json);
    expect(deltas.filter((d) => d.type === 'signature_delta')).toEqual([
      { type: 'signature_delta', signature: 'sig-1' },
    ]);
    const json = deltas.filter((d) => d.type === 'input_json_delta').map((d) => d.partial_json);
    expect(JSON.parse(json.join(''))).toEqual({ q: 'x' });
    expect(data.at(-2)).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 7 } });
    expect(server.requests[0]?.path).toBe('/v1/messages');
  });

  it('translates finish names of the other wire', async () => {
    server.script(reply().text('cut').finish('length'));
    const text = await (await post(anthropic(), { stream: true })).text();
    expect(text).toContain('"stop_reason":"max_tokens"');
  });

  it('renders one message object when stream is false, and errors in the Anthropic shape', async () => {
    server.script(reply().text('hi').usage(1, 2), reply().error(529, { message: 'Overloaded' }));
    const body = (await (await post(anthropic(), {})).json()) as Json;
    expect(body).toMatchObject({
      type: 'message',
      content: [{ type: 'text', text: 'hi' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 1, output_tokens: 2 },
    });
    const err = await post(anthropic(), { stream: true });
    expect(err.status).toBe(529);
    expect(await err.json()).toEqual({ type: 'error', error: { type: 'api_error', message: 'Overloaded' } });
  });
});

describe('model server, failure modes', () => {
  it('hang: never sends headers; the client can abort and close() still finishes', async () => {
    server.script(reply().hang());
    const ctrl = new AbortController();
    const pending = post(openai(), { stream: true }, { signal: ctrl.signal });
    // The server has the request and holds it (no headers): then the client gives up.
    await server.waitForRequests(1);
    ctrl.abort();
    await expect(pending).rejects.toThrow(/abort/i);
    expect(server.requests).toHaveLength(1);
  });

  it('close() destroys a connection that is still hanging', async () => {
    server.script(reply().hang());
    const pending = post(openai(), { stream: true });
    await waitFor(() => server.requests.length === 1);
    await server.close();
    await expect(pending).rejects.toThrow();
  });

  it('hangAfter: sends N chunks then stalls', async () => {
    server.script(reply().text('abcdefghijklmnop').hangAfter(2));
    const ctrl = new AbortController();
    const res = await post(openai(), { stream: true }, { signal: ctrl.signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let received = '';
    while (sse(received).length < 2) {
      const { value } = await reader.read();
      received += decoder.decode(value, { stream: true });
    }
    expect(sse(received)).toHaveLength(2);
    const next = reader.read();
    setTimeout(() => ctrl.abort(), 60);
    await expect(next).rejects.toThrow();
    expect(sse(received)).toHaveLength(2);
  });

  it('cutAfter: sends N chunks then destroys the socket', async () => {
    server.script(reply().text('abcdefghijklmnopqrstuvwxyz').cutAfter(3));
    const res = await post(anthropic(), { stream: true });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });

  it('chunkDelay: the stream still arrives whole', async () => {
    server.script(reply().text('slow but complete').chunkDelay(10));
    const text = await (await post(openai(), { stream: true })).text();
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });
});

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!check()) throw new Error('waitFor: condition never became true');
}
