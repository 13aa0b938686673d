/**
 * `tea acp` shows a tool call's permission as the session decided it, never guessed
 * by a policy of its own: a call a config rule allows runs without a permission
 * request and is never shown pending; a call a rule denies is never shown running,
 * and fails with the very text `tea -p` gives for it.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTea } from '../support/cli.js';
import { reply } from '../support/script.js';
import { type AcpPeer, initialize, newSession, prompt, updatesOf } from './peer.js';
import { useAcp } from './setup.js';

const RULES = [
  { tool: 'write_file', pattern: 'notes.txt', action: 'allow' },
  { tool: 'write_file', pattern: '*.env', action: 'deny' },
];

const setup = useAcp({ extra: () => `permissions: ${JSON.stringify({ rules: RULES })}` });
const { t, start } = setup;

/** Every status the client was shown for one call, in order (tool_call first). */
function statuses(p: AcpPeer, callId: string): string[] {
  return p.updates.flatMap((u) =>
    (u.update.sessionUpdate === 'tool_call' || u.update.sessionUpdate === 'tool_call_update') &&
    u.update.toolCallId === callId &&
    u.update.status
      ? [u.update.status]
      : [],
  );
}

describe('tea acp and the permission rules of the config', () => {
  it('a call a rule allows is shown running, and no permission is requested', async () => {
    const p = start();
    await initialize(p);
    const { sessionId, modes } = await newSession(p, setup.work);
    expect(modes?.currentModeId).toBe('ask');
    t.server.script(
      reply().toolCall('write_file', { path: 'notes.txt', content: 'allowed\n' }),
      reply().text('Written.'),
    );
    expect((await prompt(p, sessionId, 'write the notes')).stopReason).toBe('end_turn');
    expect(readFileSync(path.join(setup.work, 'notes.txt'), 'utf8')).toBe('allowed\n');
    expect(p.permissions).toHaveLength(0);
    const call = updatesOf(p, 'tool_call')[0]!;
    expect(call).toMatchObject({ kind: 'edit', title: 'write_file: notes.txt' });
    // Announced pending, then running without a permission request, then done.
    expect(statuses(p, call.toolCallId)).toEqual(['pending', 'in_progress', 'completed']);
  });

  it('a call a rule denies is never shown running, and fails with the text tea -p gives', async () => {
    const call = reply().toolCall('write_file', { path: 'secrets.env', content: 'KEY=1\n' });
    // tea -p, in the same mode and workspace.
    t.server.script(call, reply().text('Refused.'));
    const cli = await runTea(
      ['-p', 'write the secrets', '--permission-mode', 'auto-edit', '--output-format', 'stream-json'],
      { env: t.ctx.env, cwd: setup.work },
    );
    const record = cli.stdout
      .split('\n')
      .filter(Boolean)
      .map(
        (l) =>
          JSON.parse(l) as { type: string; record?: { state: string; content: Array<{ text?: string }> } },
      )
      .flatMap((e) => (e.type === 'tool_update' && e.record ? [e.record] : []))
      .at(-1)!;
    expect(record.state).toBe('denied');
    const finish = { output: record.content.map((c) => c.text ?? '').join('') };
    expect(finish.output).toMatch(
      /^\[DENIED\] write_file \(secrets\.env\) is not allowed here \(rule deny write_file:\*\.env\)/,
    );
    expect(cli.stderr).toContain(
      'tea: refused write_file (secrets.env): not allowed here (rule deny write_file:*.env)',
    );

    const p = start(['--permission-mode', 'auto-edit']);
    await initialize(p);
    const { sessionId } = await newSession(p, setup.work);
    t.server.script(call, reply().text('Refused.'));
    expect((await prompt(p, sessionId, 'write the secrets')).stopReason).toBe('end_turn');
    expect(existsSync(path.join(setup.work, 'secrets.env'))).toBe(false);
    expect(p.permissions).toHaveLength(0);
    const shown = updatesOf(p, 'tool_call')[0]!;
    expect(statuses(p, shown.toolCallId)).toEqual(['pending', 'failed']);
    const done = updatesOf(p, 'tool_call_update').find((u) => u.toolCallId === shown.toolCallId)!;
    expect(done.content).toEqual([{ type: 'content', content: { type: 'text', text: finish.output } }]);
  });
});
