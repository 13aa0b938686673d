/**
 * Work modes over HTTP: the list with a user-defined mode, a session's mode in its
 * view, switching it with PATCH (live and stored sessions), and bad switches as 400s
 * with OpenAI-style bodies.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { readSse, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({
    mode: 'ask',
    yaml: 'modes:\n  triage: { description: Sort issues, prompt: Sort the open issues by urgency., tools: [read, interaction] }',
  });
});
afterAll(() => t.close());
beforeEach(() => t.model.reset());

async function newSession(): Promise<string> {
  const res = await t.json<{ id: string; work_mode: string }>('POST', '/v1/sessions');
  expect(res.body.work_mode).toBe('develop');
  return res.body.id;
}

type ModeList = { data: Array<Record<string, unknown>>; default: string };

describe('work modes over HTTP', () => {
  it('GET /v1/modes lists the built-in six then the user’s, with permission modes and tool counts', async () => {
    const res = await t.json<ModeList>('GET', '/v1/modes');
    expect(res.status).toBe(200);
    expect(res.body.default).toBe('develop');
    expect(res.body.data.map((m) => m.name)).toEqual([
      'design',
      'develop',
      'test',
      'review',
      'docs',
      'devops',
      'triage',
    ]);
    const by = Object.fromEntries(res.body.data.map((m) => [m.name, m]));
    expect(by.review).toMatchObject({ permission_mode: 'read-only', builtin: true });
    expect(by.develop).toMatchObject({ permission_mode: 'ask' });
    expect(by.docs).toMatchObject({ permission_mode: 'auto-edit' });
    expect(by.triage).toMatchObject({ description: 'Sort issues', permission_mode: 'ask', builtin: false });
    const count = (name: string) => by[name]!.tool_count as number;
    expect(count('develop')).toBe(t.rt.tools.names().length);
    expect(count('review')).toBeLessThan(count('docs'));
    expect(count('docs')).toBeLessThan(count('develop'));
  });

  it('PATCH work_mode switches a stored session; its next prompt carries the mode’s line and tools only', async () => {
    const id = await newSession();
    const res = await t.json<{ work_mode: string }>('PATCH', `/v1/sessions/${id}`, { work_mode: 'review' });
    expect(res).toMatchObject({ status: 200, body: { work_mode: 'review' } });
    t.model.script(reply().text('looked'));
    await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'look' });
    await readSse(`${t.url}/v1/sessions/${id}/events`, (e) => e.event === 'done');
    const body = t.model.requests.at(-1)!.body;
    expect(wireText(wireMessages(body)[0]!)).toContain('\nWork mode: review — ');
    expect(wireText(wireMessages(body)[0]!)).toContain('\nPermission mode: read-only');
    const names = (body.tools as Array<{ function: { name: string } }>).map((x) => x.function.name);
    expect(names).toContain('read_file');
    for (const n of ['write_file', 'edit_file', 'bash']) expect(names).not.toContain(n);
    // A live session (the prompt loaded it) switches at once, and to a user's mode too.
    const again = await t.json('PATCH', `/v1/sessions/${id}`, { work_mode: 'triage', title: 'Triage' });
    expect(again.body).toMatchObject({ work_mode: 'triage', title: 'Triage' });
    expect((await t.json('GET', `/v1/sessions/${id}`)).body).toMatchObject({ work_mode: 'triage' });
  });

  it.each([
    [
      { work_mode: 'ship' },
      'unknown work mode "ship": use one of design, develop, test, review, docs, devops, triage (GET /v1/modes)',
      'work_mode',
    ],
    [{ work_mode: 'yolo' }, 'unknown work mode "yolo"', 'work_mode'],
    [{ work_mode: '' }, 'work_mode', 'work_mode'],
    [{ work_mode: 7 }, 'work_mode', 'work_mode'],
    [{}, 'give title or work_mode', null],
  ])('refuses %j with a 400 naming what to fix', async (patch, message, param) => {
    const id = await newSession();
    const res = await t.json<{ error: { message: string; type: string; param: string | null } }>(
      'PATCH',
      `/v1/sessions/${id}`,
      patch,
    );
    expect(res.status).toBe(400);
    expect(res.body.error.type).toBe('invalid_request_error');
    expect(res.body.error.message).toContain(message);
    if (param) expect(res.body.error.param).toBe(param);
    expect((await t.json('GET', `/v1/sessions/${id}`)).body).toMatchObject({ work_mode: 'develop' });
  });

  it('a sub-agent’s session has no work mode: shown as null, a switch is a 400', async () => {
    const parent = await newSession();
    const child = t.store.sessions.create({
      cwd: t.work,
      title: 'analyst #1',
      role: 'analyst',
      parent: { id: parent, callId: 'call_1', depth: 1 },
    });
    expect((await t.json('GET', `/v1/sessions/${child.id}`)).body).toMatchObject({ work_mode: null });
    const res = await t.json<{ error: { message: string; param: string } }>(
      'PATCH',
      `/v1/sessions/${child.id}`,
      {
        work_mode: 'develop',
      },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ param: 'work_mode' });
    expect(res.body.error.message).toContain('(role analyst): it has no work mode');
  });

  it('a mode switch on an unknown session is a 404', async () => {
    const res = await t.json<{ error: { message: string } }>('PATCH', '/v1/sessions/nope', {
      work_mode: 'review',
    });
    expect(res.status).toBe(404);
  });
});
