import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryScopes } from '../../src/agent/memory-jobs.js';
import { runTea } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { chunkText, initialize, newSession, prompt, updatesOf, waitFor } from './peer.js';
import { useAcp } from './setup.js';

const setup = useAcp();
const { t, start } = setup;

describe('tea acp', () => {
  it('initializes, creates a session and streams thinking and text', async () => {
    const p = start();
    const init = await initialize(p);
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities).toMatchObject({
      loadSession: true,
      promptCapabilities: { image: true, embeddedContext: true },
      mcpCapabilities: { http: true },
    });
    expect(init.authMethods).toEqual([]);

    const s = await newSession(p, setup.work);
    expect(s.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(s.modes?.currentModeId).toBe('ask');
    expect(s.modes?.availableModes.map((m) => m.id)).toEqual(['read-only', 'ask', 'auto-edit', 'yolo']);
    await waitFor(() => updatesOf(p, 'available_commands_update').length > 0, 'the slash commands');
    const names = updatesOf(p, 'available_commands_update')[0]!.availableCommands.map((c) => c.name);
    expect(names).toEqual(expect.arrayContaining(['mode', 'tools', 'memory']));

    // Chunks sent apart, so they are not joined into one delta on arrival.
    t.server.script(reply().thinking('Let me think.').text('Hello from Tea!').chunkDelay(15).usage(40, 6));
    const r = await prompt(p, s.sessionId, 'say hello');
    expect(r.stopReason).toBe('end_turn');
    expect(updatesOf(p, 'agent_thought_chunk').length).toBeGreaterThan(1);
    expect(chunkText(p, 'agent_thought_chunk')).toBe('Let me think.');
    expect(chunkText(p, 'agent_message_chunk')).toBe('Hello from Tea!');
    const usage = updatesOf(p, 'usage_update').at(-1)!;
    expect(usage.used).toBe(46);
    expect(usage.size).toBeGreaterThan(0);
    expect(p.updates.every((u) => u.sessionId === s.sessionId)).toBe(true);
    expect(wireText(wireMessages(t.server.requests[0]!.body).at(-1)!)).toBe('say hello');
    // stdout carries protocol messages only.
    for (const line of p.stdoutLines) expect(JSON.parse(line)).toHaveProperty('jsonrpc', '2.0');
  });

  it('the memory tool stores project memories under the session’s workspace, not where tea acp started', async () => {
    const other = path.join(path.dirname(setup.work), 'other-project');
    mkdirSync(other, { recursive: true });
    const p = start();
    await initialize(p);
    const s = await newSession(p, realpathSync(other));
    t.server.script(
      reply().toolCall('memory', {
        action: 'add',
        content: 'This project builds with pnpm',
        scope: 'project',
      }),
      reply().text('Noted.'),
    );
    await prompt(p, s.sessionId, 'remember that this project builds with pnpm');
    const listed = await runTea(['memory', 'list'], { env: t.ctx.env, cwd: setup.work });
    const line = listed.stdout.split('\n').find((l) => l.includes('builds with pnpm'));
    expect(line).toContain(`[${memoryScopes(realpathSync(other))[0]}]`);
    expect(line).not.toContain(`[${memoryScopes(setup.work)[0]}]`);
  });

  it('asks permission for a write, then reports it with a diff', async () => {
    const p = start();
    await initialize(p);
    const { sessionId } = await newSession(p, setup.work);
    t.server.script(
      reply().toolCall('write_file', { path: 'out.txt', content: 'hello\n' }),
      reply().text('Wrote it.'),
    );
    expect((await prompt(p, sessionId, 'write out.txt')).stopReason).toBe('end_turn');

    const file = path.join(setup.work, 'out.txt');
    expect(readFileSync(file, 'utf8')).toBe('hello\n');
    expect(p.permissions).toHaveLength(1);
    const ask = p.permissions[0]!;
    expect(ask.toolCall).toMatchObject({ kind: 'edit', status: 'pending', locations: [{ path: file }] });
    // The editor sees what the write would do before it answers.
    expect(ask.toolCall.content).toEqual([{ type: 'diff', path: file, oldText: null, newText: 'hello\n' }]);
    expect(ask.options.map((o) => o.kind)).toEqual(['allow_once', 'allow_always', 'reject_once']);

    const call = updatesOf(p, 'tool_call')[0]!;
    expect(call).toMatchObject({ kind: 'edit', status: 'pending', locations: [{ path: file }] });
    expect(call.title).toContain('write_file');
    const updates = updatesOf(p, 'tool_call_update').filter((u) => u.toolCallId === call.toolCallId);
    expect(updates.map((u) => u.status)).toEqual(['in_progress', 'completed']);
    expect(updates[1]!.content).toContainEqual({
      type: 'diff',
      path: file,
      oldText: null,
      newText: 'hello\n',
    });
    expect(chunkText(p, 'agent_message_chunk')).toBe('Wrote it.');
  });

  it('shows the diff of an edit and the whole command before asking', async () => {
    const p = start();
    await initialize(p);
    const { sessionId } = await newSession(p, setup.work);
    const file = path.join(setup.work, 'poem.txt');
    writeFileSync(file, 'roses are red\nviolets are blue\n');
    const command = `echo ${'long '.repeat(40)}| wc -c`;
    p.onPermission = () => ({ outcome: { outcome: 'selected', optionId: 'reject_once' } });
    t.server.script(
      reply().toolCall('edit_file', { path: 'poem.txt', old_string: 'blue', new_string: 'violet' }),
      reply().toolCall('edit_file', { path: 'poem.txt', old_string: 'green', new_string: 'grey' }),
      reply().toolCall('bash', { command }),
      reply().text('Stopped.'),
    );
    expect((await prompt(p, sessionId, 'edit the poem')).stopReason).toBe('end_turn');
    expect(p.permissions.map((q) => q.toolCall.content)).toEqual([
      [
        {
          type: 'diff',
          path: file,
          oldText: 'roses are red\nviolets are blue\n',
          newText: 'roses are red\nviolets are violet\n',
        },
      ],
      [{ type: 'content', content: { type: 'text', text: expect.stringContaining('- green\n+ grey') } }],
      [{ type: 'content', content: { type: 'text', text: `$ ${command}` } }],
    ]);
    expect(readFileSync(file, 'utf8')).toBe('roses are red\nviolets are blue\n');
  });

  it('reads and writes through the editor when it offers its file system', async () => {
    const p = start(['--yolo']);
    await initialize(p, true);
    const { sessionId, modes } = await newSession(p, setup.work);
    expect(modes?.currentModeId).toBe('yolo');
    const notes = path.join(setup.work, 'notes.txt');
    writeFileSync(notes, 'disk content\n');
    p.buffers.set(notes, 'buffer content\n');
    t.server.script(
      reply().toolCall('read_file', { path: 'notes.txt' }),
      reply().toolCall('edit_file', { path: 'notes.txt', old_string: 'buffer', new_string: 'edited' }),
      reply().toolCall('write_file', { path: 'new.txt', content: 'from tea\n' }),
      reply().text('All done.'),
    );
    expect((await prompt(p, sessionId, 'work on the notes')).stopReason).toBe('end_turn');

    // read_file saw the unsaved buffer, not the disk.
    const toolResult = wireMessages(t.server.requests[1]!.body).find((m) => m.role === 'tool')!;
    expect(wireText(toolResult)).toContain('buffer content');
    expect(wireText(toolResult)).not.toContain('disk content');
    const created = path.join(setup.work, 'new.txt');
    expect(p.writes).toEqual([
      { sessionId, path: notes, content: 'edited content\n' },
      { sessionId, path: created, content: 'from tea\n' },
    ]);
    // Tea wrote nothing to disk itself.
    expect(readFileSync(notes, 'utf8')).toBe('disk content\n');
    expect(existsSync(created)).toBe(false);
    expect(p.permissions).toHaveLength(0);

    const diffs = updatesOf(p, 'tool_call_update').flatMap((u) => u.content ?? []);
    expect(diffs).toContainEqual({
      type: 'diff',
      path: notes,
      oldText: 'buffer content\n',
      newText: 'edited content\n',
    });
    expect(diffs).toContainEqual({ type: 'diff', path: created, oldText: null, newText: 'from tea\n' });
  });

  it('cancels a running turn and answers cancelled', async () => {
    const p = start();
    await initialize(p);
    const { sessionId } = await newSession(p, setup.work);
    t.server.script(reply().hang());
    const running = prompt(p, sessionId, 'take your time');
    await waitFor(() => t.server.requests.length === 1, 'the model request');
    await p.agent.notify('session/cancel', { sessionId });
    expect((await running).stopReason).toBe('cancelled');

    // The session is usable again after a cancel.
    t.server.script(reply().text('back again'));
    expect((await prompt(p, sessionId, 'hello?')).stopReason).toBe('end_turn');
    expect(chunkText(p, 'agent_message_chunk')).toContain('back again');
  });

  it('cancelling while a permission request waits cancels the request and the call', async () => {
    const p = start();
    await initialize(p);
    const { sessionId } = await newSession(p, setup.work);
    let cancelledRequest = false;
    p.onPermission = (_req, signal) =>
      new Promise((resolve) => {
        signal.addEventListener('abort', () => {
          cancelledRequest = true;
          resolve({ outcome: { outcome: 'cancelled' } });
        });
      });
    t.server.script(reply().toolCall('write_file', { path: 'never.txt', content: 'x' }));
    const running = prompt(p, sessionId, 'write never.txt');
    await waitFor(() => p.permissions.length === 1, 'the permission request');
    await p.agent.notify('session/cancel', { sessionId });
    expect((await running).stopReason).toBe('cancelled');
    expect(cancelledRequest).toBe(true);
    expect(existsSync(path.join(setup.work, 'never.txt'))).toBe(false);
    expect(updatesOf(p, 'tool_call_update').at(-1)?.status).toBe('failed');
  });

  it('loads a stored session in a new process and replays it', async () => {
    const first = start();
    await initialize(first);
    const { sessionId } = await newSession(first, setup.work);
    writeFileSync(path.join(setup.work, 'a.txt'), 'a');
    t.server.script(
      reply().thinking('Listing.').text('Let me look.').toolCall('list_dir', {}),
      reply().text('There is a.txt.'),
    );
    expect((await prompt(first, sessionId, 'what is here?')).stopReason).toBe('end_turn');
    expect(await first.close()).toBe(0);

    const second = start();
    await initialize(second);
    const loaded = await second.agent.request('session/load', { sessionId, cwd: setup.work, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe('ask');
    expect(chunkText(second, 'user_message_chunk')).toBe('what is here?');
    expect(chunkText(second, 'agent_thought_chunk')).toBe('Listing.');
    expect(chunkText(second, 'agent_message_chunk')).toBe('Let me look.There is a.txt.');
    const call = updatesOf(second, 'tool_call')[0]!;
    // Titled with its subject: the replay loads the tools it shows.
    expect(call).toMatchObject({ kind: 'read', title: 'list_dir: .' });
    const result = updatesOf(second, 'tool_call_update').find((u) => u.toolCallId === call.toolCallId)!;
    expect(result.status).toBe('completed');
    expect(JSON.stringify(result.content)).toContain('a.txt');

    // The loaded session continues with its history.
    t.server.script(reply().text('Still here.'));
    expect((await prompt(second, sessionId, 'and now?')).stopReason).toBe('end_turn');
    const texts = wireMessages(t.server.requests.at(-1)!.body).map(wireText);
    expect(texts).toContain('what is here?');
    expect(texts.at(-1)).toBe('and now?');
  });

  it('set_mode read-only refuses writes; slash commands run without the model', async () => {
    const p = start();
    await initialize(p);
    const { sessionId } = await newSession(p, setup.work);
    await p.agent.request('session/set_mode', { sessionId, modeId: 'read-only' });
    t.server.script(
      reply().toolCall('write_file', { path: 'no.txt', content: 'x' }),
      reply().text('Refused.'),
    );
    expect((await prompt(p, sessionId, 'write no.txt')).stopReason).toBe('end_turn');
    expect(p.permissions).toHaveLength(0);
    expect(existsSync(path.join(setup.work, 'no.txt'))).toBe(false);
    const done = updatesOf(p, 'tool_call_update').at(-1)!;
    expect(done.status).toBe('failed');
    expect(JSON.stringify(done.content)).toContain('DENIED');

    await expect(p.agent.request('session/set_mode', { sessionId, modeId: 'turbo' })).rejects.toThrow(
      /unknown mode "turbo"/,
    );

    const before = t.server.requests.length;
    expect((await prompt(p, sessionId, '/mode yolo')).stopReason).toBe('end_turn');
    expect(updatesOf(p, 'current_mode_update').at(-1)?.currentModeId).toBe('yolo');
    expect((await prompt(p, sessionId, '/tools files')).stopReason).toBe('end_turn');
    expect(chunkText(p, 'agent_message_chunk')).toContain('files: read_file');
    expect(t.server.requests.length).toBe(before);
  });

  it('answers bad requests and model errors with clear JSON-RPC errors', async () => {
    const p = start();
    await initialize(p);
    await expect(newSession(p, 'relative/dir')).rejects.toThrow(/absolute path/);
    await expect(prompt(p, 'no-such-session', 'hi')).rejects.toMatchObject({ code: -32002 });
    const { sessionId } = await newSession(p, setup.work);
    await expect(prompt(p, sessionId, '   ')).rejects.toThrow(/prompt is empty/);
    await expect(
      p.agent.request('session/load', { sessionId: 'nope', cwd: setup.work, mcpServers: [] }),
    ).rejects.toThrow(/cannot load session nope/);

    t.server.script(reply().error(400, { message: 'model says no' }));
    await expect(prompt(p, sessionId, 'hi')).rejects.toThrow(/model says no/);
  });
});
