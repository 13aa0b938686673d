/**
 * The streamed chat completion on the wire: whether model chunks arrive one by one
 * or are joined on arrival, the client gets the same text, the same chunk shape
 * and the same order (role, reasoning, content, finish, usage, [DONE]), over the
 * Node server and over `app.request` alike.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { startTestServer, type TestServer } from './helpers.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ mode: 'ask' });
});
afterAll(() => t.close());
beforeEach(() => t.model.reset());

const THINKING = 'First I weigh the options, then I answer.';
const TEXT = 'The quick brown fox jumps over the lazy dog, twice: the quick brown fox jumps again.';

interface Chunk {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: { role?: string; content?: string; reasoning_content?: string };
    finish_reason: string | null;
    logprobs: null;
  }>;
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

/** Splits an event-stream body into its `data:` payloads. */
function payloads(body: string): string[] {
  expect(body.endsWith('\n\n')).toBe(true);
  return body
    .split('\n\n')
    .filter((e) => e !== '')
    .map((e) => {
      expect(e.startsWith('data: ')).toBe(true);
      return e.slice(6);
    });
}

/** Checks one whole streamed answer: chunk shape, order and the joined text. */
function checkStream(body: string): void {
  const data = payloads(body);
  expect(data.at(-1)).toBe('[DONE]');
  const chunks = data.slice(0, -1).map((d) => JSON.parse(d) as Chunk);
  const first = chunks[0]!;
  for (const c of chunks) {
    expect(c).toMatchObject({ id: first.id, object: 'chat.completion.chunk', created: first.created });
    expect(c.model).toBe('tea');
  }
  expect(first.choices[0]).toEqual({
    index: 0,
    delta: { role: 'assistant', content: '' },
    finish_reason: null,
    logprobs: null,
  });
  const kinds = chunks.slice(1).map((c) => {
    const choice = c.choices[0];
    if (!choice) return 'usage';
    if (choice.finish_reason) return 'finish';
    return choice.delta.reasoning_content !== undefined ? 'thinking' : 'text';
  });
  // Reasoning first, then content, then the finish chunk and the usage chunk.
  const order = kinds.filter((k, i) => k !== kinds[i - 1]);
  expect(order).toEqual(['thinking', 'text', 'finish', 'usage']);
  const joined = (pick: (c: Chunk) => string | undefined) =>
    chunks.map((c) => (c.choices[0] ? (pick(c) ?? '') : '')).join('');
  expect(joined((c) => c.choices[0]!.delta.reasoning_content)).toBe(THINKING);
  expect(joined((c) => c.choices[0]!.delta.content)).toBe(TEXT);
  const finish = chunks.find((c) => c.choices[0]?.finish_reason);
  expect(finish!.choices[0]).toEqual({ index: 0, delta: {}, finish_reason: 'stop', logprobs: null });
  expect(chunks.at(-1)).toMatchObject({
    choices: [],
    usage: { prompt_tokens: 11, completion_tokens: 13, total_tokens: 24 },
  });
}

const request = {
  model: 'tea',
  stream: true,
  stream_options: { include_usage: true },
  messages: [{ role: 'user', content: 'explain' }],
};

describe('streamed chat completions', () => {
  it.each([
    ['joined on arrival (no delay between model chunks)', 0],
    ['one by one (model chunks 15 ms apart)', 15],
  ])('same text, shape and order when chunks arrive %s', async (_label, delayMs) => {
    t.model.script(reply().thinking(THINKING).text(TEXT).chunkSize(3).chunkDelay(delayMs).usage(11, 13));
    const res = await t.req('POST', '/v1/chat/completions', request);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const sessionId = res.headers.get('x-tea-session-id')!;
    checkStream(await res.text());
    const stored = t.store.messages.list(sessionId).at(-1)!;
    expect(stored).toMatchObject({ role: 'assistant', status: 'complete' });
    expect(stored.parts).toEqual([
      { type: 'thinking', text: THINKING },
      { type: 'text', text: TEXT },
    ]);
  });

  it('streams the same through app.request (no Node response underneath)', async () => {
    t.model.script(reply().thinking(THINKING).text(TEXT).chunkSize(3).usage(11, 13));
    const res = await t.server.tea.app.request('/v1/chat/completions', {
      method: 'POST',
      // No socket here: the Host a client of the real server would send.
      headers: { 'content-type': 'application/json', host: new URL(t.url).host },
      body: JSON.stringify(request),
    });
    expect(res.status).toBe(200);
    checkStream(await res.text());
  });

  it('counts a streamed turn as running until its last chunk is written', async () => {
    t.model.script(reply().text(TEXT).chunkSize(10).chunkDelay(30));
    const res = await t.req('POST', '/v1/chat/completions', request);
    const reader = res.body!.getReader();
    await reader.read();
    expect(t.server.tea.stats.chatsRunning).toBe(1);
    while (!(await reader.read()).done) {
      // drain
    }
    expect(t.server.tea.stats.chatsRunning).toBe(0);
  });
});
