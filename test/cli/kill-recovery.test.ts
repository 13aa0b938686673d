import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { INTERRUPTED_RESULT } from '../../src/agent/history.js';
import { Store, type StoredMessage, type ToolCallRow } from '../../src/store/index.js';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { startTea } from './running.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });

/** Starts a run whose model calls a long bash command, and SIGKILLs it once the tool has started. */
async function killedMidTool(): Promise<string> {
  t.server.script(reply().text('Running it.').toolCall('bash', { command: 'sleep 30' }));
  const run = startTea(['-p', 'run the long job', '--yolo', '--output-format', 'stream-json'], {
    env: t.ctx.env,
    cwd: t.ctx.work,
  });
  const started = await run.stdoutLine((line) => {
    const e = JSON.parse(line) as { type: string; record?: { name: string; state: string } };
    return e.type === 'tool_update' && e.record?.name === 'bash' && e.record.state === 'running';
  });
  expect(started).toContain('sleep 30');
  const first = JSON.parse(run.stdout.split('\n')[0]!) as { session_id?: string; sessionId?: string };
  const sessionId = first.session_id ?? first.sessionId!;
  run.kill('SIGKILL');
  expect((await run.exit).signal).toBe('SIGKILL');
  // Before any recovery, the row says what the dead run left: a call that was running.
  const raw = new Database(path.join(t.ctx.home, 'tea.db'), { readonly: true });
  try {
    const row = raw
      .prepare('SELECT status, started_at, finished_at FROM tool_calls WHERE session_id = ?')
      .get(sessionId);
    expect(row).toMatchObject({ status: 'running', started_at: expect.any(Number), finished_at: null });
  } finally {
    raw.close();
  }
  return sessionId;
}

function stored(sessionId: string): { calls: ToolCallRow[]; messages: StoredMessage[] } {
  const store = Store.open(path.join(t.ctx.home, 'tea.db'));
  try {
    return { calls: store.toolCalls.list(sessionId), messages: store.messages.list(sessionId) };
  } finally {
    store.close();
  }
}

describe('kill -9 while a tool runs', () => {
  it('the next open marks the call interrupted, and the transcript answers it', async () => {
    const id = await killedMidTool();

    const { calls, messages } = stored(id);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ name: 'bash', state: 'interrupted', output: INTERRUPTED_RESULT });
    expect(calls[0]!.finishedAt).not.toBeNull();
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[2]!.parts).toEqual([
      {
        type: 'tool-result',
        callId: calls[0]!.callId,
        name: 'bash',
        output: INTERRUPTED_RESULT,
        isError: true,
      },
    ]);

    const shown = await runTea(['sessions', 'show', id], { env: t.ctx.env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('← bash');
    expect(shown.stdout).toContain('No result was recorded for this call');
  });

  it('the next run of the session takes it over at once and the model reads the interrupted result', async () => {
    const id = await killedMidTool();

    t.server.script(reply().text('Checked: the job did not finish.'));
    const next = await runTea(['-p', 'did it finish?', '--continue'], { env: t.ctx.env, cwd: t.ctx.work });
    expect(next.code, next.stderr).toBe(0);
    // The dead runner's lease is taken over without waiting.
    expect(next.stderr).not.toMatch(/in use/);
    expect(next.stdout).toBe('Checked: the job did not finish.\n');

    const sent = wireMessages(t.server.requests.at(-1)!.body);
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(wireText(sent[3]!)).toBe(INTERRUPTED_RESULT);
    const { calls, messages } = stored(id);
    expect(calls.map((c) => c.state)).toEqual(['interrupted']);
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
  });
});
