/**
 * The journal over HTTP against a real `tea serve` app: a turn's `bash` edits a file
 * and creates another; the SSE stream carries the `journal` event; undo and redo
 * restore and re-apply; refusals are 409s with OpenAI-style bodies (journal_conflict
 * naming the files, session_busy while a turn waits for an approval, nothing_to_undo).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { readSse, type SseEvent, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer({ mode: 'ask' });
});
afterEach(async () => {
  await t.close();
});

const CLIENT = { 'x-tea-client': 'test' };
const untilDone = (e: SseEvent): boolean => e.event === 'done';
type ErrorBody = { error: { message: string; type: string; code: string; files?: string[] } };

async function bashTurn(id: string, command: string): Promise<SseEvent[]> {
  t.model.script(reply().toolCall('bash', { command }), reply().text('done'));
  await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'go' });
  const ask = await readSse(`${t.url}/v1/sessions/${id}/events`, (e) => e.event === 'approval_request');
  const requestId = (JSON.parse(ask.at(-1)!.data) as { requestId: string }).requestId;
  await t.json('POST', `/v1/sessions/${id}/approvals/${requestId}`, { decision: 'once' }, CLIENT);
  return readSse(`${t.url}/v1/sessions/${id}/events`, untilDone);
}

describe('journal routes', () => {
  it('undo and redo a turn whose bash edited one file and created another', async () => {
    writeFileSync(path.join(t.work, 'a.txt'), 'one\n');
    const id = (await t.json<{ id: string }>('POST', '/v1/sessions', {})).body.id;
    const events = await bashTurn(id, 'echo two > a.txt && echo new > b.txt');
    const journal = events.find((e) => e.event === 'journal');
    expect(JSON.parse(journal!.data)).toMatchObject({
      type: 'journal',
      files: [
        { path: 'a.txt', change: 'modified' },
        { path: 'b.txt', change: 'added' },
      ],
    });
    const listed = await t.json<{ enabled: boolean; rounds: { id: number; state: string }[] }>(
      'GET',
      `/v1/sessions/${id}/journal`,
    );
    expect(listed.body.enabled).toBe(true);
    expect(listed.body.rounds.map((r) => r.state)).toEqual(['applied']);

    const diff = await t.json<{ diff: string }>('GET', `/v1/sessions/${id}/journal/diff`);
    expect(diff.body.diff).toContain('+new');

    const undo = await t.json<{ files: unknown[] }>('POST', `/v1/sessions/${id}/undo`);
    expect(undo.status).toBe(200);
    expect(undo.body.files).toEqual([
      { path: 'a.txt', change: 'modified' },
      { path: 'b.txt', change: 'deleted' },
    ]);
    expect(readFileSync(path.join(t.work, 'a.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(path.join(t.work, 'b.txt'))).toBe(false);
    const again = await t.json<ErrorBody>('POST', `/v1/sessions/${id}/undo`);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: 'invalid_request_error', code: 'nothing_to_undo' });

    expect((await t.json('POST', `/v1/sessions/${id}/redo`)).status).toBe(200);
    expect(readFileSync(path.join(t.work, 'b.txt'), 'utf8')).toBe('new\n');
  });

  it('409 journal_conflict names the files the user changed since', async () => {
    const id = (await t.json<{ id: string }>('POST', '/v1/sessions', {})).body.id;
    await bashTurn(id, 'echo made > c.txt');
    writeFileSync(path.join(t.work, 'c.txt'), 'mine\n');
    const r = await t.json<ErrorBody>('POST', `/v1/sessions/${id}/undo`);
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('journal_conflict');
    expect(r.body.error.files).toEqual(['c.txt']);
    expect(r.body.error.message).toContain('c.txt');
    expect(readFileSync(path.join(t.work, 'c.txt'), 'utf8')).toBe('mine\n');
  });

  it('409 session_busy while a turn of the session runs', async () => {
    const id = (await t.json<{ id: string }>('POST', '/v1/sessions', {})).body.id;
    await bashTurn(id, 'echo 1 > d.txt');
    t.model.script(reply().toolCall('bash', { command: 'echo 2 > d.txt' }), reply().text('done'));
    await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'again' });
    await readSse(`${t.url}/v1/sessions/${id}/events`, (e) => e.event === 'approval_request');
    const r = await t.json<ErrorBody>('POST', `/v1/sessions/${id}/undo`);
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('session_busy');
    expect(readFileSync(path.join(t.work, 'd.txt'), 'utf8')).toBe('1\n');
    await t.json('POST', `/v1/sessions/${id}/cancel`);
  });

  it('404s: an unknown session, a round that does not exist', async () => {
    expect((await t.json<ErrorBody>('POST', '/v1/sessions/nope/undo')).status).toBe(404);
    const id = (await t.json<{ id: string }>('POST', '/v1/sessions', {})).body.id;
    const r = await t.json<ErrorBody>('GET', `/v1/sessions/${id}/journal/diff?round=99`);
    expect(r).toMatchObject({ status: 404, body: { error: { code: 'round_not_found' } } });
    const bad = await t.json<ErrorBody>('GET', `/v1/sessions/${id}/journal/diff?round=-1`);
    expect(bad.status).toBe(400);
  });
});
