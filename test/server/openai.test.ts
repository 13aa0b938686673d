import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { readSse, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let client: OpenAI;

beforeAll(async () => {
  t = await startTestServer({ mode: 'ask' });
  client = new OpenAI({ apiKey: 'unused', baseURL: `${t.url}/v1`, maxRetries: 0 });
});
afterAll(() => t.close());
beforeEach(() => t.model.reset());

describe('POST /v1/chat/completions with the openai client', () => {
  it('answers non-streamed with text, reasoning and usage', async () => {
    t.model.script(reply().thinking('Let me think.').text('Hello there!').usage(12, 5));
    const res = await client.chat.completions.create({
      model: 'tea',
      messages: [{ role: 'user', content: 'Say hello' }],
      stream: false,
    });
    expect(res.object).toBe('chat.completion');
    expect(res.choices[0]!.message.content).toBe('Hello there!');
    expect((res.choices[0]!.message as unknown as Record<string, unknown>).reasoning_content).toBe(
      'Let me think.',
    );
    expect(res.choices[0]!.finish_reason).toBe('stop');
    expect(res.usage).toEqual({ prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 });
    // The session was stored with the user's message and the answer.
    const sessionId = (res as unknown as { session_id: string }).session_id;
    const roles = t.store.messages.list(sessionId).map((m) => m.role);
    expect(roles).toEqual(['user', 'assistant']);
  });

  it('streams text and reasoning deltas, the finish reason and a usage chunk', async () => {
    t.model.script(reply().thinking('Pondering deeply').text('Streaming answer here').usage(20, 7));
    const stream = await client.chat.completions.create({
      model: 'tea',
      messages: [{ role: 'user', content: 'Stream please' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let reasoning = '';
    const finishes: string[] = [];
    let usage: OpenAI.CompletionUsage | undefined;
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      const choice = chunk.choices[0];
      if (choice) {
        text += choice.delta.content ?? '';
        reasoning +=
          ((choice.delta as Record<string, unknown>).reasoning_content as string | undefined) ?? '';
        if (choice.finish_reason) finishes.push(choice.finish_reason);
      } else if (chunk.usage) {
        usage = chunk.usage;
      }
    }
    expect(text).toBe('Streaming answer here');
    expect(reasoning).toBe('Pondering deeply');
    expect(finishes).toEqual(['stop']);
    expect(usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 7, total_tokens: 27 });
    expect(chunks).toBeGreaterThan(4);
  });

  it('a streamed answer names its session in every chunk (session_id) and in x-tea-session-id', async () => {
    t.model.script(reply().text('First part.').usage(3, 2), reply().text('Second part.'));
    const { data: stream, response } = await client.chat.completions
      .create({
        model: 'tea',
        messages: [{ role: 'user', content: 'Stream and remember' }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .withResponse();
    const ids = new Set<unknown>();
    for await (const chunk of stream) ids.add((chunk as unknown as { session_id?: string }).session_id);
    const header = response.headers.get('x-tea-session-id');
    expect([...ids]).toEqual([header]);
    expect(t.store.messages.list(header!).map((m) => m.role)).toEqual(['user', 'assistant']);

    // The id read from a chunk continues the session.
    const again = await client.chat.completions.create({
      model: 'tea',
      messages: [{ role: 'user', content: 'and more' }],
      stream: true,
      session_id: header,
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    let text = '';
    for await (const chunk of again) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Second part.');
    expect(t.store.messages.list(header!)).toHaveLength(4);
  });

  it('works with client.chat.completions.stream() and its final completion', async () => {
    t.model.script(reply().text('Helper stream works').usage(3, 4));
    const runner = client.chat.completions.stream({
      model: 'main_model',
      messages: [{ role: 'user', content: 'Use the helper' }],
      stream_options: { include_usage: true },
    });
    const deltas: string[] = [];
    runner.on('content', (delta) => deltas.push(delta));
    const final = await runner.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe('Helper stream works');
    expect(deltas.join('')).toBe('Helper stream works');
    expect(final.usage?.total_tokens).toBe(7);
  });

  it('runs a read-only tool itself, then answers; earlier messages are the context', async () => {
    t.model.script(
      reply().toolCall('sleep_read', { label: 'probe', ms: 1 }).usage(10, 2),
      reply().text('The probe ran.').usage(15, 3),
    );
    const res = await client.chat.completions.create({
      model: 'tea',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Earlier question' },
        { role: 'assistant', content: 'Earlier answer' },
        { role: 'user', content: 'Run the probe' },
      ],
    });
    expect(res.choices[0]!.message.content).toBe('The probe ran.');
    expect(res.usage).toMatchObject({ prompt_tokens: 25, completion_tokens: 5 });
    expect(t.log.map((e) => e.label)).toContain('probe');
    const first = wireMessages(t.model.requests[0]!.body);
    const texts = first.map((m) => `${m.role}:${wireText(m)}`);
    expect(texts).toContain('user:Earlier question');
    expect(texts).toContain('assistant:Earlier answer');
    expect(texts).toContain('system:Be brief.');
    expect(texts.at(-1)).toContain('Run the probe');
    // The second model call carries the tool result.
    const second = wireMessages(t.model.requests[1]!.body);
    expect(second.some((m) => m.role === 'tool' && wireText(m).includes('sleep_read probe done'))).toBe(true);
  });

  it('denies an approval-needing tool (nobody can approve here) and tells the model', async () => {
    t.model.script(reply().toolCall('sleep_exec', { label: 'x', ms: 1 }), reply().text('Could not run it.'));
    const res = await client.chat.completions.create({
      model: 'tea',
      messages: [{ role: 'user', content: 'Run exec' }],
    });
    expect(res.choices[0]!.message.content).toBe('Could not run it.');
    expect(t.log.some((e) => e.name === 'sleep_exec')).toBe(false);
    const second = wireMessages(t.model.requests[1]!.body);
    const toolMsg = second.find((m) => m.role === 'tool');
    expect(toolMsg && wireText(toolMsg)).toMatch(/approv|denied|not allowed/i);
  });

  it('reports the iteration cap as finish_reason length', async () => {
    const capped = await startTestServer({ model: t.model, maxIterations: 1 });
    try {
      t.model.script(reply().text('Looking.').toolCall('sleep_read', { label: 'cap', ms: 1 }));
      const res = await capped.json<{ choices: Array<{ finish_reason: string }> }>(
        'POST',
        '/v1/chat/completions',
        {
          model: 'tea',
          messages: [{ role: 'user', content: 'loop' }],
        },
      );
      expect(res.status).toBe(200);
      expect(res.body.choices[0]!.finish_reason).toBe('length');
    } finally {
      await capped.close();
    }
  });

  it('selects the profile per request and continues a stored session', async () => {
    t.model.script(reply().text('From other'), reply().text('Second turn'));
    const first = await client.chat.completions.create({
      model: 'tea',
      messages: [{ role: 'user', content: 'hi' }],
      // biome-ignore lint/suspicious/noExplicitAny: extra body field the OpenAI types do not know
      ...({ profile: 'other' } as any),
    });
    expect(t.model.requests[0]!.body.model).toBe('other-model');
    const sessionId = (first as unknown as { session_id: string }).session_id;
    const again = await client.chat.completions.create({
      model: 'other-model',
      messages: [{ role: 'user', content: 'and again' }],
      // biome-ignore lint/suspicious/noExplicitAny: extra body field the OpenAI types do not know
      ...({ session_id: sessionId } as any),
    });
    expect(again.choices[0]!.message.content).toBe('Second turn');
    const texts = wireMessages(t.model.requests[1]!.body).map(wireText);
    expect(texts).toContain('hi');
    expect(texts).toContain('From other');
  });

  it('a continued session sees what another face added in between, and two requests on it both land', async () => {
    const ask = (content: string, sessionId?: string) =>
      t.json<{ session_id: string; choices: Array<{ message: { content: string } }> }>(
        'POST',
        '/v1/chat/completions',
        { messages: [{ role: 'user', content }], ...(sessionId ? { session_id: sessionId } : {}) },
      );
    t.model.script(reply().text('one'));
    const id = (await ask('first question')).body.session_id;
    // the session API (another face, another Session object) adds a turn
    t.model.script(reply().text('from the web'));
    expect((await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'asked in the web UI' })).status).toBe(
      202,
    );
    await readSse(`${t.url}/v1/sessions/${id}/events`, (e) => e.event === 'done');
    t.model.script(reply().text('three'));
    expect((await ask('third question', id)).body.choices[0]!.message.content).toBe('three');
    const texts = wireMessages(t.model.requests.at(-1)!.body).map(wireText);
    expect(texts).toEqual(
      expect.arrayContaining(['first question', 'one', 'asked in the web UI', 'from the web']),
    );

    // two at once on the same session: the second waits for the first, nothing interleaves
    t.model.script(reply().text('slow answer').holdUntil('slow'), reply().text('quick answer'));
    const slow = ask('slow question', id);
    await t.model.waitForRequests(t.model.requests.length + 1);
    const quick = ask('quick question', id);
    t.model.release('slow');
    expect((await slow).body.choices[0]!.message.content).toBe('slow answer');
    expect((await quick).body.choices[0]!.message.content).toBe('quick answer');
    const stored = t.store.messages.list(id).map((m) => m.parts.find((p) => p.type === 'text')?.text);
    expect(stored.slice(-4)).toEqual(['slow question', 'slow answer', 'quick question', 'quick answer']);
  });

  it('cancels the turn when a streaming client disconnects', async () => {
    t.model.script(reply().text('partial ').hangAfter(2));
    const ac = new AbortController();
    const res = await fetch(`${t.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tea', stream: true, messages: [{ role: 'user', content: 'hang' }] }),
      signal: ac.signal,
    });
    const sessionId = res.headers.get('x-tea-session-id')!;
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('partial')) seen += new TextDecoder().decode((await reader.read()).value);
    expect(t.server.tea.stats.chatsRunning).toBe(1);
    ac.abort();
    // The turn ends (cancelled): nothing runs any more and the draft is kept as partial.
    await expect.poll(() => t.server.tea.stats.chatsRunning, { timeout: 3000 }).toBe(0);
    await expect
      .poll(() => t.store.messages.list(sessionId).find((m) => m.role === 'assistant'))
      .toMatchObject({ status: 'partial', parts: [{ type: 'text', text: 'partial ' }] });
  });
});
