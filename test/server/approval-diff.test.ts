/**
 * The diff `tea serve` adds to a file write's approval request (the web UI shows it):
 * against the file as it is now, "created" for a new file, and none for a path outside
 * the workspace (the tool would refuse it; its content is not shown).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { reply } from '../support/script.js';
import { readSse, startTestServer, type TestServer } from './helpers.js';

type ApprovalRequest = Extract<AgentEvent, { type: 'approval_request' }>;

let t: TestServer;
let outside: string;

beforeAll(async () => {
  t = await startTestServer({ mode: 'ask' });
  outside = mkdtempSync(path.join(os.tmpdir(), 'tea-outside-'));
});
afterAll(async () => {
  await t.close();
  rmSync(outside, { recursive: true, force: true });
});
beforeEach(() => t.model.reset());

/** Runs a turn whose model asks for `args` of write_file; returns the approval request (rejected). */
async function askToWrite(args: Record<string, unknown>): Promise<ApprovalRequest> {
  t.model.script(reply().toolCall('write_file', args), reply().text('OK.'));
  const { id } = (await t.json<{ id: string }>('POST', '/v1/sessions', {})).body;
  const asked = readSse(`${t.url}/v1/sessions/${id}/events`, (e) => e.event === 'approval_request');
  await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'Write it' });
  const request = JSON.parse((await asked).at(-1)!.data) as ApprovalRequest;
  const done = readSse(`${t.url}/v1/sessions/${id}/events`, (e) => e.event === 'done');
  await t.json(
    'POST',
    `/v1/sessions/${id}/approvals/${request.requestId}`,
    { decision: 'reject' },
    {
      'x-tea-client': 'test',
    },
  );
  await done;
  return request;
}

describe('approval requests of file writes', () => {
  it('carry the diff against the file as it is now, or a new file’s lines', async () => {
    writeFileSync(path.join(t.work, 'notes.txt'), 'bye\nkeep\n');
    const overwrite = await askToWrite({ path: 'notes.txt', content: 'changed content\nkeep\n' });
    expect(overwrite.diff?.path).toBe('notes.txt');
    expect(overwrite.diff?.created).toBe(false);
    expect(overwrite.diff?.text.split('\n')).toEqual([
      '--- notes.txt',
      '+++ notes.txt',
      '@@ -1,2 +1,2 @@',
      '-bye',
      '+changed content',
      ' keep',
    ]);

    const created = await askToWrite({ path: 'fresh.txt', content: 'hello\n' });
    expect(created.diff).toMatchObject({ path: 'fresh.txt', created: true });
    expect(created.diff?.text).toContain('+hello');
  });

  it('carry no diff for a path outside the workspace', async () => {
    const secret = path.join(outside, 'secret.txt');
    writeFileSync(secret, 'the secret\n');
    const request = await askToWrite({ path: secret, content: 'x\n' });
    expect(request.diff).toBeUndefined();
    expect(JSON.stringify(request)).not.toContain('the secret');
  });
});
