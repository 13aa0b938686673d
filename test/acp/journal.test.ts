/**
 * `/undo` and `/redo` as ACP slash commands, through the SDK's real client against the
 * in-process agent: a turn's bash edits a file and creates another; `/undo` restores
 * both (no model call), `/redo` re-applies them, and a refusal names the changed file.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAcpAgent } from '../../src/acp/server.js';
import { Journal } from '../../src/agent/index.js';
import { createHarness, type Harness } from '../support/harness.js';
import { reply } from '../support/script.js';

let h: Harness;
let home: string;
beforeEach(async () => {
  h = await createHarness();
  home = mkdtempSync(path.join(os.tmpdir(), 'tea-acp-journal-'));
});
afterEach(async () => {
  await h.close();
  rmSync(home, { recursive: true, force: true });
});

async function wire() {
  const updates: acp.SessionUpdate[] = [];
  const journal = new Journal({ home, store: () => h.store });
  const { app, shutdown } = createAcpAgent({
    agent: h.agent({ journal, settings: { permissionMode: 'yolo' } }),
    tools: h.tools,
    contextWindow: 32_000,
    version: '9.9.9',
    log: () => undefined,
    shutdownGraceMs: 60_000,
  });
  const conn = acp
    .client({ name: 'test' })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params.update);
    })
    .connect(app);
  const client = conn.agent;
  await client.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
  const { sessionId } = await client.request('session/new', { cwd: h.workspace, mcpServers: [] });
  const say = async (text: string): Promise<string> => {
    const before = updates.length;
    const r = await client.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
    expect(r.stopReason).toBe('end_turn');
    return updates
      .slice(before)
      .map((u) =>
        u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : '',
      )
      .join('');
  };
  return {
    updates,
    say,
    close: async () => {
      conn.close();
      await shutdown();
    },
  };
}

describe('ACP /undo and /redo', () => {
  it('reverts the files a turn’s bash changed, and puts them back', async () => {
    writeFileSync(path.join(h.workspace, 'a.txt'), 'one\n');
    const w = await wire();
    h.server.script(
      reply().toolCall('bash', { command: 'echo two > a.txt && echo new > b.txt' }),
      reply().text('Done.'),
    );
    // The answer stays the model's own text (the editor shows the edits; /undo is in its command list).
    expect(await w.say('edit')).toBe('Done.');
    const requests = h.server.requests.length;
    const undone = await w.say('/undo');
    expect(undone).toMatch(/^Undid the last turn's changes: 2 files changed\./);
    expect(undone).toContain('restored a.txt');
    expect(undone).toContain('removed b.txt');
    expect(readFileSync(path.join(h.workspace, 'a.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(path.join(h.workspace, 'b.txt'))).toBe(false);
    expect(await w.say('/undo')).toBe(
      'Nothing to undo: every change of this session is undone already (redo re-applies the last).',
    );
    expect(await w.say('/redo')).toContain('recreated b.txt');
    expect(readFileSync(path.join(h.workspace, 'b.txt'), 'utf8')).toBe('new\n');
    // The commands never reach the model.
    expect(h.server.requests.length).toBe(requests);
    writeFileSync(path.join(h.workspace, 'b.txt'), 'mine\n');
    expect(await w.say('/undo')).toMatch(/changed since: b\.txt\. Nothing was changed/);
    await w.close();
  });

  it('lists /undo and /redo in /help', async () => {
    const w = await wire();
    const help = await w.say('/help');
    expect(help).toContain('/undo: Revert the file changes of the last turn');
    expect(help).toContain('/redo: Re-apply');
    await w.close();
  });
});
