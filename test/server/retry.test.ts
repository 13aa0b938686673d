/**
 * A failed turn run again, and a page that opens a session while it waits for the
 * user, through the real server: `POST /v1/sessions/{id}/retry` reuses the stored
 * message (never stored twice), and a new event-stream connection first gets the
 * approval requests still waiting.
 */
import { existsSync } from 'node:fs';
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
const CLIENT = { 'x-tea-client': 'test' };

interface Stored {
  role: string;
  parts: Array<{ type: string; text?: string }>;
}

async function newSession(): Promise<string> {
  return (await t.json<{ id: string }>('POST', '/v1/sessions', {})).body.id;
}

/** Posts to `route` (prompt or retry) and reads the turn's events until its `done`. */
async function turn(id: string, route: 'prompt' | 'retry', body: unknown = {}): Promise<AgentEvent[]> {
  // From the event after the newest one so far: only this turn's events.
  const events = readSse(
    `${t.url}/v1/sessions/${id}/events?after=${Number.MAX_SAFE_INTEGER}`,
    (e) => e.event === 'done',
  );
  const started = await t.json('POST', `/v1/sessions/${id}/${route}`, body);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return (await events).map(parse);
}

async function stored(id: string): Promise<Stored[]> {
  return (await t.json<{ data: Stored[] }>('GET', `/v1/sessions/${id}/messages`)).body.data;
}

/** The user messages the model was sent in request `n`. */
function userMessagesSent(n: number): string[] {
  const messages = (t.model.requests[n]?.body.messages ?? []) as Array<{ role: string; content: unknown }>;
  return messages.filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content));
}

describe('retry', () => {
  it('runs a failed turn again with its stored message, which is not stored twice', async () => {
    const id = await newSession();
    t.model.script(
      reply().error(500, { message: 'the upstream model fell over' }),
      reply().text('Once upon a time.'),
    );
    const failed = await turn(id, 'prompt', { input: 'Tell me a story' });
    expect(failed.at(-1)).toMatchObject({ type: 'done', reason: 'error' });
    expect((await stored(id)).map((m) => m.role)).toEqual(['user']);

    const again = await turn(id, 'retry');
    expect(again[0]).toMatchObject({ type: 'turn_start', input: 'Tell me a story', retry: true });
    expect(again.at(-1)).toMatchObject({ type: 'done', reason: 'completed', text: 'Once upon a time.' });
    const messages = await stored(id);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(messages[0]!.parts).toEqual([{ type: 'text', text: 'Tell me a story' }]);
    expect(userMessagesSent(1)).toHaveLength(1);

    // The turn has its answer now: nothing to retry.
    const refused = await t.json<{ error: { code: string; message: string } }>(
      'POST',
      `/v1/sessions/${id}/retry`,
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('nothing_to_retry');
    expect(refused.body.error.message).toMatch(/send a new prompt/);
    expect(t.model.requests).toHaveLength(2);
  });

  it('keeps the tool results of the failed turn and goes on from them', async () => {
    const id = await newSession();
    t.model.script(
      reply().toolCall('list_dir', { path: '.' }),
      reply().error(503, { message: 'overloaded' }),
      reply().text('The workspace has a .git folder.'),
    );
    await turn(id, 'prompt', { input: 'What is here?' });
    expect((await stored(id)).map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    const again = await turn(id, 'retry');
    expect(again.at(-1)).toMatchObject({ type: 'done', reason: 'completed' });
    expect((await stored(id)).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    // The model saw the message once, and the tool result (list_dir ran once).
    expect(userMessagesSent(2)).toHaveLength(1);
    expect(JSON.stringify(t.model.requests[2]?.body.messages)).toContain('.git');
  });

  it('is refused while a turn runs, and for an unknown session', async () => {
    const id = await newSession();
    t.model.script(reply().hang());
    await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'Think forever' });
    await t.model.waitForRequests(1);
    const busy = await t.json<{ error: { code: string } }>('POST', `/v1/sessions/${id}/retry`);
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('session_busy');
    await t.json('POST', `/v1/sessions/${id}/cancel`);
    const unknown = await t.json<{ error: { code: string } }>('POST', '/v1/sessions/nope/retry');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('session_not_found');
  });
});

describe('waiting approvals on a new connection', () => {
  it('sends a page that opens the session later the approval request still waiting, which it can answer', async () => {
    const id = await newSession();
    t.model.script(
      reply().toolCall('write_file', { path: 'later.txt', content: 'hi\n' }),
      reply().text('Written.'),
    );
    await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'Write later.txt' });
    const first = await readSse(`${t.url}/v1/sessions/${id}/events`, (e) => e.event === 'approval_request');
    const asked = parse(first.at(-1)!) as Extract<AgentEvent, { type: 'approval_request' }>;

    // A reloaded page: stored history, then only events from now on (?after= beyond the newest).
    const late = await readSse(
      `${t.url}/v1/sessions/${id}/events?after=${Number.MAX_SAFE_INTEGER}`,
      (e) => e.event === 'approval_request',
    );
    expect(late).toHaveLength(1);
    expect(late[0]!.id).toBeUndefined();
    expect(parse(late[0]!)).toEqual(asked);

    // A reconnect (Last-Event-ID) has seen it: not sent again.
    const done = readSse(`${t.url}/v1/sessions/${id}/events`, (e) => e.event === 'done', {
      'last-event-id': first.at(-1)!.id!,
    });
    const answered = await t.json(
      'POST',
      `/v1/sessions/${id}/approvals/${asked.requestId}`,
      { decision: 'once' },
      CLIENT,
    );
    expect(answered.status).toBe(200);
    const rest = (await done).map(parse);
    expect(rest.some((e) => e.type === 'approval_request')).toBe(false);
    expect(rest.at(-1)).toMatchObject({ type: 'done', reason: 'completed' });
    expect(existsSync(path.join(t.work, 'later.txt'))).toBe(true);
  });
});
