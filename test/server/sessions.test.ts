import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { reply } from '../support/script.js';
import { readSse, type SseEvent, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ mode: 'ask' });
});
afterAll(() => t.close());
beforeEach(() => t.model.reset());

const parse = (e: SseEvent) => JSON.parse(e.data) as AgentEvent;
const untilDone = (e: SseEvent) => e.event === 'done';
/** Approvals and answers need the client header (the web UI sends `web`). */
const CLIENT = { 'x-tea-client': 'test' };

async function newSession(title?: string): Promise<string> {
  const res = await t.json<{ id: string }>('POST', '/v1/sessions', title ? { title } : undefined);
  expect(res.status).toBe(201);
  return res.body.id;
}

describe('session routes', () => {
  it('creates a session, runs a prompt, streams events until done, and lists messages', async () => {
    const id = await newSession('First');
    t.model.script(reply().thinking('hmm').text('Hi from the session').usage(9, 4));
    const prompt = await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'Hello' });
    expect(prompt).toEqual({ status: 202, body: { session_id: id, turn: 'started' } });
    const events = await readSse(`${t.url}/v1/sessions/${id}/events`, untilDone);
    const types = events.map((e) => e.event);
    expect(types[0]).toBe('turn_start');
    expect(types).toContain('thinking_delta');
    expect(types).toContain('usage');
    expect(types.at(-1)).toBe('done');
    // ids are consecutive integers starting at 1, and event names match the JSON type.
    expect(events.map((e) => Number(e.id))).toEqual(events.map((_, i) => i + 1));
    for (const e of events) expect(parse(e).type).toBe(e.event);
    const done = parse(events.at(-1)!) as Extract<AgentEvent, { type: 'done' }>;
    expect(done.text).toBe('Hi from the session');

    const messages = await t.json<{
      data: Array<{ role: string; parts: Array<{ type: string; text?: string }> }>;
    }>('GET', `/v1/sessions/${id}/messages`);
    expect(messages.body.data.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages.body.data[1]!.parts).toContainEqual({ type: 'text', text: 'Hi from the session' });

    const one = await t.json<Record<string, unknown>>('GET', `/v1/sessions/${id}`);
    expect(one.body).toMatchObject({
      id,
      title: 'First',
      message_count: 2,
      busy: false,
      usage: { input_tokens: 9, output_tokens: 4 },
    });
    const list = await t.json<{ data: Array<{ id: string }> }>('GET', '/v1/sessions?q=first&limit=5');
    expect(list.body.data.map((s) => s.id)).toContain(id);

    const renamed = await t.json('PATCH', `/v1/sessions/${id}`, { title: 'Renamed' });
    expect(renamed.body).toMatchObject({ id, title: 'Renamed' });
  });

  it('replays exactly the missed events after Last-Event-ID, and ?after= too', async () => {
    const id = await newSession();
    // Chunks sent apart, so they are not joined into one delta on arrival.
    t.model.script(reply().text('one two three four five six seven eight').chunkDelay(20).usage(1, 1));
    await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'go' });
    const all = await readSse(`${t.url}/v1/sessions/${id}/events`, untilDone);
    expect(all.length).toBeGreaterThan(5);
    const cut = 3;
    const resumed = await readSse(`${t.url}/v1/sessions/${id}/events`, untilDone, {
      'last-event-id': String(cut),
    });
    expect(resumed.map((e) => e.id)).toEqual(all.slice(cut).map((e) => e.id));
    expect(resumed.map((e) => e.data)).toEqual(all.slice(cut).map((e) => e.data));
    const viaQuery = await readSse(`${t.url}/v1/sessions/${id}/events?after=${all.length - 1}`, untilDone);
    expect(viaQuery.map((e) => e.id)).toEqual([String(all.length)]);
  });

  it('asks for approval of a write tool, runs it once approved, and a second answer is a 404', async () => {
    const id = await newSession();
    t.model.script(
      reply().toolCall('write_file', { path: 'approved.txt', content: 'approved content' }),
      reply().text('Wrote it.'),
    );
    await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'write something' });
    const upToAsk = await readSse(`${t.url}/v1/sessions/${id}/events`, (e) => e.event === 'approval_request');
    const ask = parse(upToAsk.at(-1)!) as Extract<AgentEvent, { type: 'approval_request' }>;
    expect(ask.tool).toBe('write_file');
    expect(existsSync(path.join(t.work, 'approved.txt'))).toBe(false);
    expect((await t.json('GET', `/v1/sessions/${id}`)).body).toMatchObject({ busy: true });
    // The stored transcript says where the call is: a page loaded now shows it waiting.
    type Listed = { data: Array<{ parts: Array<{ type: string; state?: string; status?: string }> }> };
    const parts = async () =>
      (await t.json<Listed>('GET', `/v1/sessions/${id}/messages`)).body.data.flatMap((m) => m.parts);
    expect((await parts()).find((p) => p.type === 'tool-call')).toMatchObject({ state: 'awaiting_approval' });

    const ok = await t.json(
      'POST',
      `/v1/sessions/${id}/approvals/${ask.requestId}`,
      { decision: 'once' },
      CLIENT,
    );
    expect(ok).toEqual({ status: 200, body: { ok: true } });
    const rest = await readSse(`${t.url}/v1/sessions/${id}/events`, untilDone, {
      'last-event-id': upToAsk.at(-1)!.id!,
    });
    // The call's states over SSE: pending, awaiting approval (before the request), then running once allowed.
    const states = [...upToAsk, ...rest]
      .map(parse)
      .flatMap((e) => (e.type === 'tool_update' ? [e.record.state] : []));
    expect(states).toEqual(['pending', 'awaiting_approval', 'running', 'completed']);
    const kinds = upToAsk.map(parse).map((e) => (e.type === 'tool_update' ? e.record.state : e.type));
    expect(kinds.slice(-2)).toEqual(['awaiting_approval', 'approval_request']);
    const finish = rest.map(parse).find((e) => e.type === 'tool_update' && e.record.state === 'completed');
    expect(finish).toMatchObject({
      record: { name: 'write_file', kind: 'edit', title: 'write_file: approved.txt' },
    });
    expect(readFileSync(path.join(t.work, 'approved.txt'), 'utf8')).toBe('approved content');
    const stored = await parts();
    expect(stored.find((p) => p.type === 'tool-call')).toMatchObject({ state: 'completed' });
    expect(stored.find((p) => p.type === 'tool-result')).toMatchObject({ status: 'completed' });

    const again = await t.json<{ error: { code: string } }>(
      'POST',
      `/v1/sessions/${id}/approvals/${ask.requestId}`,
      { decision: 'once' },
      CLIENT,
    );
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('approval_not_found');
  });

  it('carries a question to the client and the answer back to the model', async () => {
    const id = await newSession();
    t.model.script(
      reply().toolCall('ask_user', { question: 'Which port?', options: ['3000', '8080'] }),
      reply().text('Using 8080.'),
    );
    await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'start the dev server' });
    const upToQuestion = await readSse(`${t.url}/v1/sessions/${id}/events`, (e) => e.event === 'question');
    const q = parse(upToQuestion.at(-1)!) as Extract<AgentEvent, { type: 'question' }>;
    expect(q).toMatchObject({ question: 'Which port?', options: ['3000', '8080'] });

    const ok = await t.json(
      'POST',
      `/v1/sessions/${id}/answers/${q.requestId}`,
      { text: '8080, please' },
      CLIENT,
    );
    expect(ok).toEqual({ status: 200, body: { ok: true } });
    const rest = await readSse(`${t.url}/v1/sessions/${id}/events`, untilDone, {
      'last-event-id': upToQuestion.at(-1)!.id!,
    });
    expect(
      rest.map(parse).find((e) => e.type === 'tool_update' && e.record.state === 'completed'),
    ).toMatchObject({
      record: {
        name: 'ask_user',
        content: [{ type: 'text', text: 'The user answered: 8080, please' }],
      },
    });
    expect(rest.map(parse).at(-1)).toMatchObject({ type: 'done', text: 'Using 8080.' });
    const wrong = await t.json(
      'POST',
      `/v1/sessions/${id}/answers/${q.requestId}`,
      { text: 'again' },
      CLIENT,
    );
    expect(wrong.status).toBe(404);
  });

  it('refuses a second prompt while busy, queues a follow-up, and cancels mid-turn', async () => {
    const id = await newSession();
    t.model.script(reply().hang());
    expect((await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'wait forever' })).status).toBe(202);
    const busy = await t.json<{ error: { code: string; type: string } }>(
      'POST',
      `/v1/sessions/${id}/prompt`,
      {
        input: 'again',
      },
    );
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({ code: 'session_busy', type: 'invalid_request_error' });
    const queued = await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'later', mode: 'follow_up' });
    expect(queued.body).toEqual({ session_id: id, turn: 'queued' });
    const conflict = await t.json('DELETE', `/v1/sessions/${id}`);
    expect(conflict.status).toBe(409);

    expect((await t.json('POST', `/v1/sessions/${id}/cancel`)).body).toEqual({ cancelled: true });
    const events = await readSse(`${t.url}/v1/sessions/${id}/events`, untilDone);
    const done = parse(events.at(-1)!) as Extract<AgentEvent, { type: 'done' }>;
    expect(done.reason).toBe('cancelled');
    expect((await t.json('POST', `/v1/sessions/${id}/cancel`)).body).toEqual({ cancelled: false });
    const deleted = await t.json('DELETE', `/v1/sessions/${id}`);
    expect(deleted).toEqual({ status: 200, body: { id, deleted: true } });
    expect((await t.json('GET', `/v1/sessions/${id}`)).status).toBe(404);
  });

  it('force-deletes a busy session, and resumes a stored session on demand', async () => {
    const id = await newSession();
    t.model.script(reply().hang());
    await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'hang' });
    const forced = await t.json('DELETE', `/v1/sessions/${id}?force=true`);
    expect(forced.body).toEqual({ id, deleted: true });
    t.model.reset(); // the turn was cancelled before it used its scripted reply

    // A session stored by someone else (not live in this server) is resumed on prompt.
    const row = t.store.sessions.create({ cwd: t.work, title: 'stored elsewhere' });
    t.store.messages.append(row.id, {
      turnId: 't0',
      role: 'user',
      parts: [{ type: 'text', text: 'old question' }],
    });
    t.store.messages.append(row.id, {
      turnId: 't0',
      role: 'assistant',
      parts: [{ type: 'text', text: 'old answer' }],
    });
    t.model.script(reply().text('resumed'));
    await t.json('POST', `/v1/sessions/${row.id}/prompt`, { input: 'new question' });
    await readSse(`${t.url}/v1/sessions/${row.id}/events`, untilDone);
    const body = JSON.stringify(t.model.requests[0]!.body);
    expect(body).toContain('old question');
    expect(body).toContain('old answer');
  });
});
