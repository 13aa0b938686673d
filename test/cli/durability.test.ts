import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERRUPTED_RESULT } from '../../src/agent/history.js';
import type { StoredMessage } from '../../src/store/index.js';
import { Store } from '../../src/store/index.js';
import { NO_MEMORY_JOBS, runTea, spawnTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

const t = useScriptedCli('sk-test', { config: NO_MEMORY_JOBS });

/** Polls the session store (read-only, alongside the running child) until `ready` holds. */
async function waitFor(ready: (messages: StoredMessage[]) => boolean): Promise<StoredMessage[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    let messages: StoredMessage[] = [];
    try {
      const store = Store.open(path.join(t.ctx.home, 'tea.db'));
      try {
        const s = store.sessions.latest();
        messages = s ? store.messages.list(s.id) : [];
      } finally {
        store.close();
      }
    } catch {
      // the child has not created the database yet
    }
    if (ready(messages)) return messages;
    if (Date.now() > deadline) throw new Error(`timed out; messages so far: ${JSON.stringify(messages)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function killed(child: ReturnType<typeof spawnTea>): Promise<NodeJS.Signals | null> {
  return new Promise((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
}

describe('a process killed mid-turn loses nothing', () => {
  it('SIGKILL during a tool: --resume shows every message written before the kill', async () => {
    t.server.script(
      reply().text('Writing the file first.').toolCall('write_file', { path: 'a.txt', content: 'hello' }),
      reply().text('Now a long command.').toolCall('bash', { command: 'sleep 30' }),
    );
    const child = spawnTea(['-p', 'do two steps', '--yolo'], { env: t.ctx.env, cwd: t.ctx.work });
    const exit = killed(child);
    const before = await waitFor((m) =>
      m.some((x) => x.parts.some((p) => p.type === 'tool-call' && p.name === 'bash')),
    );
    child.kill('SIGKILL');
    expect(await exit).toBe('SIGKILL');

    const shown = await runTea(['sessions', 'show', before[0]!.sessionId, '--json'], { env: t.ctx.env });
    expect(shown.code).toBe(0);
    const { messages } = JSON.parse(shown.stdout) as { messages: StoredMessage[] };
    // Opening the store after the kill answered the unfinished call (its runner is gone).
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(messages.length).toBeGreaterThanOrEqual(before.length);
    expect(messages[0]!.parts).toEqual([{ type: 'text', text: 'do two steps' }]);
    expect(messages[2]!.parts[0]).toMatchObject({ type: 'tool-result', name: 'write_file', is_error: false });
    expect(messages[3]!.parts).toEqual(
      expect.arrayContaining([
        { type: 'text', text: 'Now a long command.' },
        expect.objectContaining({ type: 'tool-call', name: 'bash' }),
      ]),
    );
    expect(messages[4]!.parts[0]).toMatchObject({ name: 'bash', output: INTERRUPTED_RESULT, is_error: true });

    // Resuming continues from there: the unfinished call is answered as interrupted.
    t.server.script(reply().text('Picked up where we left off.'));
    const resumed = await runTea(['-p', 'continue', '--resume', before[0]!.sessionId], {
      env: t.ctx.env,
      cwd: t.ctx.work,
    });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Picked up where we left off.\n');
    const sent = wireMessages(t.server.requests.at(-1)!.body);
    expect(sent.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
      'user',
    ]);
    expect(wireText(sent[5]!)).toBe(INTERRUPTED_RESULT);
    expect(wireText(sent[6]!)).toBe('continue');
  });

  it('SIGKILL while the answer streams: the text streamed so far is kept', async () => {
    t.server.script(
      reply()
        .text('Streaming slowly, word by word, so the kill lands mid-answer. '.repeat(10))
        .chunkDelay(40),
    );
    const child = spawnTea(['-p', 'tell a story'], { env: t.ctx.env, cwd: t.ctx.work });
    const exit = killed(child);
    const seen = await waitFor((m) => {
      const a = m.find((x) => x.role === 'assistant');
      return a !== undefined && JSON.stringify(a.parts).length > 60;
    });
    child.kill('SIGKILL');
    await exit;
    const shown = await runTea(['sessions', 'show', seen[0]!.sessionId], { env: t.ctx.env });
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/assistant \(interrupted\):\nStreaming slowly/);
  });
});
