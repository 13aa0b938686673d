/**
 * `POST /v1/tools/{name}/run` goes through the same permission entry point as a
 * session: every bypass attempt of the shell attack table that a session refuses is
 * refused by the route too, with the same verdict and the same reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Refusal, sessionJudge } from '../support/session-refusal.js';
import { BYPASSES, RULES } from '../tools/shell/cases.js';
import { startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let judge: ReturnType<typeof sessionJudge>;

beforeAll(async () => {
  t = await startTestServer({ mode: 'ask', yaml: `permissions: ${JSON.stringify({ rules: RULES })}` });
  judge = sessionJudge(t.work, 'ask', RULES);
});
afterAll(async () => {
  judge.close();
  await t.close();
});

/** The route's 403 message for what the session refused, in the route's words. */
function routeWords(r: Refusal): string {
  return r.action === 'deny'
    ? `${r.label} is not allowed here (${r.reason})`
    : `${r.label} needs approval (${r.reason}), and nobody can approve a direct run`;
}

describe('POST /v1/tools/bash/run refuses what a session refuses, for the same reason', () => {
  it.each(BYPASSES)('%j (%s)', async (command, expected) => {
    const session = await judge.refusal(command);
    expect(session?.action).toBe(expected);
    const res = await t.json<{ error: { message: string; code: string } }>('POST', '/v1/tools/bash/run', {
      args: { command },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('permission_denied');
    expect(res.body.error.message.startsWith(routeWords(session!))).toBe(true);
  });

  it('runs what the rules allow, as a session would', async () => {
    expect(await judge.refusal('echo allowed-by-rule')).toBeUndefined();
    const res = await t.json<{ status: string; output: string }>('POST', '/v1/tools/bash/run', {
      args: { command: 'echo allowed-by-rule' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'ok', output: expect.stringContaining('allowed-by-rule') });
  });

  it('says which flags of tea serve would let a refused call run', async () => {
    const res = await t.json<{ error: { message: string } }>('POST', '/v1/tools/bash/run', {
      args: { command: 'echo hi && touch made.txt' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe(
      "bash (echo hi && touch made.txt) needs approval (ask mode: exec tools need approval, and no allow rule covers `touch made.txt`), and nobody can approve a direct run; to let it run, restart tea serve with --allow 'bash:touch made.txt*' or --yolo",
    );
  });
});
