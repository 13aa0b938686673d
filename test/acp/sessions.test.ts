/**
 * Session management over ACP against the built `tea acp` with a real ACP SDK client:
 * sessions made by earlier processes are listed (real SQLite in a temp TEA_HOME),
 * resumed without a replay and prompted with their history, forked, retitled,
 * deleted and closed; bad ids and busy sessions get ACP errors.
 */
import { mkdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { type AcpPeer, initialize, newSession, prompt, updatesOf, waitFor } from './peer.js';
import { useAcp } from './setup.js';

const setup = useAcp();
const { t } = setup;

async function peer(args: string[] = []): Promise<AcpPeer> {
  const p = setup.start(args);
  await initialize(p);
  return p;
}

/** One process's work: a session in `cwd` with one answered prompt; the process exits. */
async function sessionWithTurn(cwd: string, text: string, answer: string): Promise<string> {
  const p = await peer();
  const { sessionId } = await newSession(p, cwd);
  t.server.script(reply().text(answer));
  await prompt(p, sessionId, text);
  expect(await p.close()).toBe(0);
  return sessionId;
}

const list = (p: AcpPeer, params: acp.ListSessionsRequest = {}): Promise<acp.ListSessionsResponse> =>
  p.agent.request('session/list', params);

/** The texts of the last model request's messages. */
const lastRequestTexts = (): string[] => wireMessages(t.server.requests.at(-1)!.body).map(wireText);

/** The raw JSON-RPC error the agent answered for a request whose params name `sessionId`. */
function rawError(p: AcpPeer, code: number): { code: number; message: string } | undefined {
  for (const line of p.stdoutLines) {
    const msg = JSON.parse(line) as { error?: { code: number; message: string } };
    if (msg.error?.code === code) return msg.error;
  }
  return undefined;
}

describe('tea acp: session management', () => {
  it('advertises list, resume, close, delete, fork and title', async () => {
    const p = setup.start();
    const init = await initialize(p);
    expect(init.agentCapabilities?.sessionCapabilities).toEqual({
      close: {},
      resume: {},
      list: {},
      delete: {},
      fork: {},
      title: {},
    });
  });

  it('lists sessions from earlier processes, filters by cwd, and resumes one with its history', async () => {
    const other = path.join(path.dirname(setup.work), 'other');
    mkdirSync(other);
    const first = await sessionWithTurn(setup.work, 'What is the capital of France?', 'Paris.');
    const second = await sessionWithTurn(realpathSync(other), 'Name a prime number.', 'Seven.');

    const p = await peer();
    const all = await list(p);
    expect(all.nextCursor).toBeUndefined();
    expect(all.sessions.map((s) => s.sessionId)).toEqual([second, first]);
    const mine = all.sessions.find((s) => s.sessionId === first)!;
    expect(mine.cwd).toBe(setup.work);
    expect(Date.parse(mine.updatedAt!)).toBeGreaterThan(Date.now() - 60_000);
    expect((await list(p, { cwd: setup.work })).sessions.map((s) => s.sessionId)).toEqual([first]);

    const resumed = await p.agent.request('session/resume', {
      sessionId: first,
      cwd: setup.work,
      mcpServers: [],
    });
    expect(resumed.modes?.currentModeId).toBe('ask');
    expect(resumed.configOptions?.map((o) => o.id)).toEqual(['mode', 'work_mode', 'model', 'profile']);
    // Unlike session/load, nothing of the transcript is sent again.
    expect(updatesOf(p, 'user_message_chunk')).toEqual([]);
    expect(updatesOf(p, 'agent_message_chunk')).toEqual([]);

    t.server.script(reply().text('About two million people.'));
    expect((await prompt(p, first, 'And its population?')).stopReason).toBe('end_turn');
    const seen = lastRequestTexts();
    expect(seen).toContain('What is the capital of France?');
    expect(seen).toContain('Paris.');
    expect(seen.at(-1)).toBe('And its population?');
    expect(seen.join('\n')).not.toContain('Name a prime number.');
  });

  // 51 answered prompts: slow on a loaded machine.
  it('pages the list with an opaque cursor and refuses one it did not give', {
    timeout: 90_000,
  }, async () => {
    // 51 sessions with a message each, written by one process.
    const p = await peer();
    const ids: string[] = [];
    t.server.script(...Array.from({ length: 51 }, () => reply().text('ok')));
    for (let i = 0; i < 51; i++) {
      const { sessionId } = await newSession(p, setup.work);
      await prompt(p, sessionId, `question ${i}`);
      ids.push(sessionId);
    }
    const page1 = await list(p);
    expect(page1.sessions).toHaveLength(50);
    expect(page1.nextCursor).toEqual(expect.any(String));
    const page2 = await list(p, { cursor: page1.nextCursor! });
    expect(page2.nextCursor).toBeUndefined();
    const listed = [...page1.sessions, ...page2.sessions].map((s) => s.sessionId);
    expect(new Set(listed)).toEqual(new Set(ids));
    await expect(list(p, { cursor: 'not-a-cursor' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('cursor is not one this agent gave'),
    });
    await expect(list(p, { cwd: 'relative/dir' })).rejects.toMatchObject({ code: -32602 });
  });

  it('forks a session: the fork sees the history, the original does not see the fork’s turn', async () => {
    const first = await sessionWithTurn(setup.work, 'Plan a garden.', 'Beds of beans.');
    const p = await peer();
    const fork = await p.agent.request<{ sessionId: string; configOptions: acp.SessionConfigOption[] }>(
      'session/fork',
      { sessionId: first, cwd: setup.work, mcpServers: [] },
    );
    expect(fork.sessionId).not.toBe(first);
    expect(fork.configOptions.map((o) => o.id)).toContain('model');

    t.server.script(reply().text('Add tomatoes.'));
    await prompt(p, fork.sessionId, 'What else?');
    expect(lastRequestTexts()).toEqual(
      expect.arrayContaining(['Plan a garden.', 'Beds of beans.', 'What else?']),
    );

    await p.agent.request('session/load', { sessionId: first, cwd: setup.work, mcpServers: [] });
    t.server.script(reply().text('Carrots.'));
    await prompt(p, first, 'And then?');
    expect(lastRequestTexts()).not.toContain('What else?');

    const listed = (await list(p)).sessions;
    expect(listed.find((s) => s.sessionId === fork.sessionId)?.title).toMatch(/\(fork\)$/);
    // A missing session cannot be forked.
    await expect(
      p.agent.request('session/fork', { sessionId: 'no-such-session', cwd: setup.work, mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32002 });
    await expect(p.agent.request('session/fork', { sessionId: first })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('cwd must be a non-empty string'),
    });
  });

  it('deletes a stored session and refuses to delete one running a prompt', async () => {
    const first = await sessionWithTurn(setup.work, 'Hello?', 'Hi.');
    const p = await peer();
    const { sessionId: busy } = await newSession(p, setup.work);
    t.server.script(reply().text('slowly answering').holdUntil('answer'));
    const running = prompt(p, busy, 'take your time');
    await t.server.waitForRequests(2);
    await expect(p.agent.request('session/delete', { sessionId: busy })).rejects.toMatchObject({
      code: -32600,
      message: expect.stringContaining('is running a prompt; cancel it (session/cancel) before deleting it'),
    });
    t.server.release('answer');
    await running;

    await p.agent.request('session/delete', { sessionId: first });
    expect((await list(p)).sessions.map((s) => s.sessionId)).toEqual([busy]);
    // The SDK client takes -32002 for an idempotent delete; the agent did answer it.
    await p.agent.request('session/delete', { sessionId: first });
    expect(rawError(p, -32002)?.message).toContain(first);
    await expect(
      p.agent.request('session/resume', { sessionId: first, cwd: setup.work, mcpServers: [] }),
    ).rejects.toMatchObject({ code: -32002, message: expect.stringContaining('cannot resume session') });

    // A live, idle session: deleted and gone from this connection.
    await p.agent.request('session/delete', { sessionId: busy });
    await expect(prompt(p, busy, 'still there?')).rejects.toMatchObject({ code: -32002 });
  });

  it('refuses to delete a session another tea process is running a prompt in', async () => {
    const a = await peer();
    const { sessionId } = await newSession(a, setup.work);
    // The model holds its answer until the test says so: the prompt runs as long as needed.
    t.server.script(reply().text('slowly answering over there').holdUntil('answer'));
    const running = prompt(a, sessionId, 'take your time');
    await t.server.waitForRequests(1);
    const b = await peer();
    await expect(b.agent.request('session/delete', { sessionId })).rejects.toMatchObject({
      code: -32600,
      message: expect.stringContaining(`is running a prompt in another tea process (pid ${a.child.pid} on `),
    });
    t.server.release('answer');
    await running;
    await b.agent.request('session/delete', { sessionId });
    expect((await list(b)).sessions).toEqual([]);
  });

  it('closes a session: it is gone from the connection but stays listed and resumable', async () => {
    const p = await peer();
    const { sessionId } = await newSession(p, setup.work);
    t.server.script(reply().text('One.'), reply().text('Two.'));
    await prompt(p, sessionId, 'count');
    await p.agent.request('session/close', { sessionId });
    await expect(prompt(p, sessionId, 'again')).rejects.toMatchObject({ code: -32002 });
    expect((await list(p)).sessions.map((s) => s.sessionId)).toEqual([sessionId]);
    await p.agent.request('session/resume', { sessionId, cwd: setup.work, mcpServers: [] });
    await prompt(p, sessionId, 'again');
    expect(lastRequestTexts()).toEqual(expect.arrayContaining(['count', 'One.', 'again']));
  });

  it('tells the editor the automatic title, and keeps a title the editor set', async () => {
    setup.writeConfig({ autoTitle: true });
    const p = await peer();
    const { sessionId } = await newSession(p, setup.work);
    t.server.script(reply().text('Sow in spring.'), reply().text('Spring vegetable beds'));
    await prompt(p, sessionId, 'When do I sow beans?');
    await waitFor(() => updatesOf(p, 'session_info_update').length > 0, 'the title update');
    expect(updatesOf(p, 'session_info_update')[0]).toMatchObject({ title: 'Spring vegetable beds' });
    expect((await list(p)).sessions[0]?.title).toBe('Spring vegetable beds');

    // A title the editor sets before the first turn survives the automatic one.
    const { sessionId: named } = await newSession(p, setup.work);
    await p.agent.request('session/set_title', { sessionId: named, title: '  My   beans  ' });
    expect(updatesOf(p, 'session_info_update').at(-1)).toMatchObject({ title: 'My beans' });
    t.server.script(reply().text('Water them.'), reply().text('Bean watering'));
    await prompt(p, named, 'How often do I water beans?');
    expect(await p.close()).toBe(0); // waits for the title job
    expect(t.server.requests).toHaveLength(4);
    const again = await peer();
    expect((await list(again)).sessions.find((s) => s.sessionId === named)?.title).toBe('My beans');
    await expect(
      again.agent.request('session/set_title', { sessionId: named, title: '   ' }),
    ).rejects.toMatchObject({
      code: -32602,
    });
    await expect(
      again.agent.request('session/set_title', { sessionId: 'no-such-session', title: 'x' }),
    ).rejects.toMatchObject({ code: -32002 });
  });
});
