import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERRUPTED_RESULT } from '../../src/agent/history.js';
import { Store } from '../../src/store/index.js';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { type Running, startTea } from './running.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });

async function firstSession(): Promise<string> {
  t.server.script(reply().text('Started.'));
  const r = await runTea(['-p', 'start a session'], { env: t.ctx.env, cwd: t.ctx.work });
  expect(r.code, r.stderr).toBe(0);
  const store = Store.open(path.join(t.ctx.home, 'tea.db'));
  try {
    return store.sessions.latest()!.id;
  } finally {
    store.close();
  }
}

function transcript(sessionId: string): Array<{ role: string; text: string }> {
  const store = Store.open(path.join(t.ctx.home, 'tea.db'));
  try {
    return store.messages.list(sessionId).map((m) => ({
      role: m.role,
      text: m.parts
        .map((p) => (p.type === 'text' ? p.text : p.type === 'tool-call' ? `call ${p.name}` : p.type))
        .join(' '),
    }));
  } finally {
    store.close();
  }
}

/** Runner A: one tool call, then a reply held on the model server until the test releases it. */
async function startHeldRunner(): Promise<Running> {
  t.server.script(reply().toolCall('current_time', {}), reply().text('A is done.').holdUntil('a-answer'));
  const before = t.server.requests.length;
  const a = startTea(['-p', 'task A', '--continue'], { env: t.ctx.env, cwd: t.ctx.work });
  // A's second model call is being answered, slowly: it holds the session now.
  await t.server.waitForRequests(before + 2);
  return a;
}

describe('one runner at a time per session (a lease across processes)', () => {
  it('a second `tea -p --continue` waits for the first, and the transcripts do not interleave', async () => {
    const id = await firstSession();
    const a = await startHeldRunner();

    t.server.script(reply().text('B is done.'));
    const b = startTea(['-p', 'task B', '--continue'], { env: t.ctx.env, cwd: t.ctx.work });
    const waiting = await b.stderrMatches(/in use by another tea process.*\n/);
    // In the CLI's voice, like its other stderr lines.
    expect(waiting).toMatch(/^tea: session busy: session [0-9a-f-]+ is in use by another tea process/m);
    expect(waiting).toContain(id.slice(0, 8));
    expect(waiting).toContain(`pid ${a.pid}`);

    t.server.release('a-answer');
    const doneA = await a.exit;
    expect(doneA.code, doneA.stderr).toBe(0);
    expect(doneA.stdout).toBe('A is done.\n');
    const doneB = await b.exit;
    expect(doneB.code, doneB.stderr).toBe(0);
    expect(doneB.stdout).toBe('B is done.\n');

    expect(transcript(id)).toEqual([
      { role: 'user', text: 'start a session' },
      { role: 'assistant', text: 'Started.' },
      { role: 'user', text: 'task A' },
      { role: 'assistant', text: 'call current_time' },
      { role: 'tool', text: 'tool-result' },
      { role: 'assistant', text: 'A is done.' },
      { role: 'user', text: 'task B' },
      { role: 'assistant', text: 'B is done.' },
    ]);
    // B's model saw A's whole turn (it read the transcript after A released it), with real results.
    const sent = wireMessages(t.server.requests.at(-1)!.body);
    expect(sent.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    expect(sent.map(wireText)).not.toContain(INTERRUPTED_RESULT);
    expect(wireText(sent[6]!)).toBe('A is done.');
  });

  it('with agent.session_wait_s: 0 the second runner refuses at once, naming the session and what to do', async () => {
    writeFileSync(path.join(t.ctx.home, 'config.yaml'), `${NO_MEMORY_JOBS}agent:\n  session_wait_s: 0\n`);
    const id = await firstSession();
    const a = await startHeldRunner();

    const b = await runTea(['-p', 'task B', '--continue'], { env: t.ctx.env, cwd: t.ctx.work });
    expect(b.code).toBe(1);
    expect(b.stdout).toBe('');
    expect(b.stderr).toContain(`session ${id.slice(0, 8)}`);
    expect(b.stderr).toContain(`pid ${a.pid}`);
    expect(b.stderr).toMatch(/wait for it to finish/);
    expect(b.stderr).toMatch(/without --continue/);
    expect(b.stderr).not.toMatch(/\n\s+at /);

    t.server.release('a-answer');
    expect((await a.exit).code).toBe(0);
    // Nothing of B's reached the session.
    expect(transcript(id).map((m) => m.text)).not.toContain('task B');
  });
});
