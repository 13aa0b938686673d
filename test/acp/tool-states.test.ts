/**
 * A tool call's states as an ACP client sees them (the built `tea acp` and the SDK's
 * client): `tool_call` (pending) when the call arrives, the permission request while
 * it awaits approval, then `tool_call_update`s: in_progress once it runs, and
 * completed or failed. A call that never runs is never shown in progress.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { type AcpPeer, initialize, newSession, prompt } from './peer.js';
import { useAcp } from './setup.js';

const setup = useAcp();
const { t } = setup;

async function session(): Promise<{ p: AcpPeer; sessionId: string }> {
  const p = setup.start();
  await initialize(p);
  return { p, sessionId: (await newSession(p, setup.work)).sessionId };
}

/**
 * What the agent sent about one call, in the order it wrote it to stdout:
 * `tool_call:<status>`, `permission`, `update:<status>`.
 */
function timeline(p: AcpPeer): string[] {
  const out: string[] = [];
  for (const line of p.stdoutLines) {
    const msg = JSON.parse(line) as {
      method?: string;
      params?: { update?: { sessionUpdate: string; status?: string } };
    };
    if (msg.method === 'session/request_permission') out.push('permission');
    const u = msg.params?.update;
    if (msg.method !== 'session/update' || !u) continue;
    if (u.sessionUpdate === 'tool_call') out.push(`tool_call:${u.status}`);
    if (u.sessionUpdate === 'tool_call_update') out.push(`update:${u.status}`);
  }
  return out;
}

describe('tool-call states over ACP', () => {
  it('an approved call: tool_call pending, the permission request, then in_progress and completed', async () => {
    const { p, sessionId } = await session();
    t.server.script(
      reply().toolCall('write_file', { path: 'ok.txt', content: 'fine\n' }),
      reply().text('Wrote it.'),
    );
    expect((await prompt(p, sessionId, 'write ok.txt')).stopReason).toBe('end_turn');
    expect(timeline(p)).toEqual([
      'tool_call:pending',
      'permission',
      'update:in_progress',
      'update:completed',
    ]);
    expect(readFileSync(path.join(setup.work, 'ok.txt'), 'utf8')).toBe('fine\n');
  });

  it('a call a config rule allows: no permission request, and it is shown in progress before it completes', async () => {
    setup.writeConfig({
      extra: 'permissions:\n  rules:\n    - { tool: write_file, pattern: "ruled.txt", action: allow }\n',
    });
    const { p, sessionId } = await session();
    t.server.script(
      reply().toolCall('write_file', { path: 'ruled.txt', content: 'by rule\n' }),
      reply().text('Wrote it.'),
    );
    expect((await prompt(p, sessionId, 'write ruled.txt')).stopReason).toBe('end_turn');
    expect(timeline(p)).toEqual(['tool_call:pending', 'update:in_progress', 'update:completed']);
    expect(p.permissions).toHaveLength(0);
  });

  it('a call the editor rejects, or one with invalid arguments, never shows in progress', async () => {
    const { p, sessionId } = await session();
    p.onPermission = () => ({ outcome: { outcome: 'selected', optionId: 'reject' } });
    t.server.script(
      reply().toolCall('write_file', { path: 'no.txt', content: 'x' }),
      reply().toolCall('read_file', {}),
      reply().text('Gave up.'),
    );
    expect((await prompt(p, sessionId, 'try')).stopReason).toBe('end_turn');
    expect(timeline(p)).toEqual([
      'tool_call:pending',
      'permission',
      'update:failed',
      'tool_call:pending',
      'update:failed',
    ]);
  });
});
