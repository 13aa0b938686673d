/**
 * One turn per session across the faces of the built `tea serve`: a second request on a
 * busy session gets 409 session_busy (or waits with `if_busy: "queue"`), an OpenAI
 * request's turn shows as busy in the session API, and of two requests fired together
 * exactly one runs. Silent streams get `: keep-alive` comments; `tea_progress` streams
 * tool starts and ends.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useTeaServe } from '../support/serve.js';

const tea = useTeaServe();

function post(url: string, p: string, body: unknown): Promise<Response> {
  return fetch(`${url}${p}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** A chat completion on `session_id` (or a new session), as the raw response. */
function chat(url: string, text: string, extra: Record<string, unknown> = {}): Promise<Response> {
  return post(url, '/v1/chat/completions', {
    model: 'tea',
    messages: [{ role: 'user', content: text }],
    ...extra,
  });
}

/** A new session with one answered turn; its id. */
async function newSession(url: string): Promise<string> {
  tea.model.script(reply().text('ready'));
  const res = await chat(url, 'start');
  expect(res.status).toBe(200);
  return ((await res.json()) as { session_id: string }).session_id;
}

/** Reads an event-stream body until `seen` matches what arrived; returns the text so far and the reader. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  seen: (text: string) => boolean,
  text = '',
): Promise<string> {
  const decoder = new TextDecoder();
  while (!seen(text)) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the stream ended before the expected text; got:\n${text}`);
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

describe('session busy', () => {
  it('a second request on a busy session is a 409 session_busy; the session API shows it busy; queue waits', async () => {
    const url = await tea.start();
    const id = await newSession(url);
    tea.model.script(reply().text('first done').holdUntil('turn'), reply().text('queued done'));
    const first = chat(url, 'long turn', { session_id: id });
    await tea.model.waitForRequests(2);

    const second = await chat(url, 'me too', { session_id: id });
    expect(second.status).toBe(409);
    expect(await second.json()).toEqual({
      error: {
        message: expect.stringContaining(`session ${id} is busy`),
        type: 'invalid_request_error',
        param: 'session_id',
        code: 'session_busy',
      },
    });
    // The session API sees the chat turn, and refuses its own prompt meanwhile.
    const view = (await (await fetch(`${url}/v1/sessions/${id}`)).json()) as { busy: boolean };
    expect(view.busy).toBe(true);
    const prompt = await post(url, `/v1/sessions/${id}/prompt`, { input: 'from the API' });
    expect(prompt.status).toBe(409);
    expect(((await prompt.json()) as { error: { code: string } }).error.code).toBe('session_busy');
    // Responses continuing the session are refused alike.
    const resp = await post(url, '/v1/responses', { model: 'tea', input: 'x', session_id: id });
    expect(resp.status).toBe(409);

    // Queued: it waits for the running turn, then runs with that turn in its history.
    const queued = chat(url, 'after you', { session_id: id, if_busy: 'queue' });
    tea.model.release('turn');
    const firstBody = (await (await first).json()) as { choices: Array<{ message: { content: string } }> };
    expect(firstBody.choices[0]!.message.content).toBe('first done');
    const queuedRes = await queued;
    expect(queuedRes.status).toBe(200);
    const queuedBody = (await queuedRes.json()) as { choices: Array<{ message: { content: string } }> };
    expect(queuedBody.choices[0]!.message.content).toBe('queued done');
    const last = JSON.stringify(tea.model.requests.at(-1)!.body);
    expect(last).toContain('long turn');
    expect(last).toContain('first done');
    const idle = (await (await fetch(`${url}/v1/sessions/${id}`)).json()) as { busy: boolean };
    expect(idle.busy).toBe(false);
  });

  it('of two requests fired together on one session exactly one runs', async () => {
    const url = await tea.start();
    const id = await newSession(url);
    tea.model.script(reply().text('the one').holdUntil('race'), reply().text('should not run'));
    const both = Promise.all([chat(url, 'a', { session_id: id }), chat(url, 'b', { session_id: id })]);
    await tea.model.waitForRequests(2);
    tea.model.release('race');
    const statuses = (await both).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409]);
    expect(tea.model.requests).toHaveLength(2);
    expect(tea.model.pending()).toBe(1);
  });

  it('a session API turn makes an OpenAI request on the session wait (queue) or fail (409)', async () => {
    const url = await tea.start();
    const id = await newSession(url);
    tea.model.script(reply().text('api turn').holdUntil('api'), reply().text('chat after'));
    const started = await post(url, `/v1/sessions/${id}/prompt`, { input: 'session API turn' });
    expect(started.status).toBeLessThan(300);
    await tea.model.waitForRequests(2);
    expect((await chat(url, 'now', { session_id: id })).status).toBe(409);
    const queued = chat(url, 'later', { session_id: id, if_busy: 'queue' });
    tea.model.release('api');
    const res = await queued;
    expect(res.status).toBe(200);
    expect(
      ((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message
        .content,
    ).toBe('chat after');
  });
});

describe('session API over OpenAI turns', () => {
  it('shows a responses turn as busy, and its cancel stops it', async () => {
    const url = await tea.start();
    const id = await newSession(url);
    tea.model.script(reply().text('never').holdUntil('never'));
    const running = post(url, '/v1/responses', { model: 'tea', input: 'long', session_id: id, stream: true });
    await tea.model.waitForRequests(2);
    const view = (await (await fetch(`${url}/v1/sessions/${id}`)).json()) as { busy: boolean };
    expect(view.busy).toBe(true);
    const cancel = await post(url, `/v1/sessions/${id}/cancel`, {});
    expect(await cancel.json()).toEqual({ cancelled: true });
    await tea.model.waitForHangUps(1);
    const text = await (await running).text();
    // Not a finished answer: response.failed, status cancelled, error turn_cancelled.
    expect(text).toContain('event: response.failed');
    expect(text).not.toContain('event: response.completed');
    expect(text).toContain('"status":"cancelled"');
    expect(text).toContain('"code":"turn_cancelled"');
    const after = (await (await fetch(`${url}/v1/sessions/${id}`)).json()) as { busy: boolean };
    expect(after.busy).toBe(false);
  });
});

describe('keep-alives and progress on streams', () => {
  it('a silent chat-completions stream and a responses stream get : keep-alive comments', async () => {
    const url = await tea.start(['--keep-alive', '0.05']);
    for (const [p, body] of [
      ['/v1/chat/completions', { model: 'tea', stream: true, messages: [{ role: 'user', content: 'slow' }] }],
      ['/v1/responses', { model: 'tea', stream: true, input: 'slow' }],
    ] as const) {
      tea.model.script(reply().text('finally').holdUntil(p));
      const res = await post(url, p, body);
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const text = await readUntil(reader, (t) => t.includes(': keep-alive\n\n'));
      expect(text).not.toContain('finally');
      tea.model.release(p);
      const all = await readUntil(
        reader,
        (t) => t.includes('[DONE]') || t.includes('response.completed'),
        text,
      );
      expect(all).toContain('finally');
    }
  });

  it('tea_progress streams tool starts and ends (chat delta.tea_progress, responses tea.progress)', async () => {
    const url = await tea.start();
    writeFileSync(path.join(tea.work, 'notes.txt'), 'some notes\n');
    tea.model.script(
      reply().toolCall('read_file', { path: 'notes.txt' }),
      reply().text('read it'),
      reply().toolCall('read_file', { path: 'notes.txt' }),
      reply().text('read it again'),
    );
    const chatRes = await chat(url, 'read notes', { stream: true, tea_progress: true });
    const chatText = await chatRes.text();
    const progress = chatText
      .split('\n\n')
      .filter((f) => f.includes('tea_progress'))
      .map(
        (f) =>
          (JSON.parse(f.slice(6)) as { choices: Array<{ delta: { tea_progress: Record<string, unknown> } }> })
            .choices[0]!.delta.tea_progress,
      );
    expect(progress.map((p) => p.phase)).toEqual(['started', 'finished']);
    expect(progress[0]).toMatchObject({ type: 'tool', name: 'read_file', state: 'running' });
    expect(chatText).toContain('read it');

    const resp = await post(url, '/v1/responses', {
      model: 'tea',
      input: 'read notes',
      stream: true,
      tea_progress: true,
    });
    const respText = await resp.text();
    const events = respText
      .split('\n\n')
      .filter((f) => f.startsWith('event: tea.progress'))
      .map((f) => JSON.parse(f.split('\ndata: ')[1]!) as { progress: { phase: string; name: string } });
    expect(events.map((e) => [e.progress.phase, e.progress.name])).toEqual([
      ['started', 'read_file'],
      ['finished', 'read_file'],
    ]);
    // Without the opt-in, nothing of it.
    tea.model.script(reply().toolCall('read_file', { path: 'notes.txt' }), reply().text('quiet'));
    const quiet = await (await chat(url, 'read notes', { stream: true })).text();
    expect(quiet).not.toContain('tea_progress');
  });
});
