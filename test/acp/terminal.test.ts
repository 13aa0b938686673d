/**
 * `tea acp` runs bash in the editor's terminal when the client offers one
 * (`clientCapabilities.terminal`): terminal/create with the command and workspace, the
 * tool call embedding the terminal, wait_for_exit, output, release; a cancel or the
 * deadline kills it (terminal/kill). The permission check comes first: a refused
 * command never reaches the editor. A client without terminals: bash runs locally.
 * The test editor really runs each command (terminal-client.ts).
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { isChild, isFirstCall, task } from '../multi/helpers.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { outsideTmp, requireBwrap } from '../tools/sandbox-helpers.js';
import { type AcpPeer, initialize, newSession, prompt, updatesOf, waitFor } from './peer.js';
import { useAcp } from './setup.js';

const setup = useAcp({
  extra: () =>
    `permissions: ${JSON.stringify({ rules: [{ tool: 'bash', pattern: 'echo *', action: 'allow' }] })}`,
});
const { t } = setup;

function peer(args: string[] = ['--sandbox', 'off', '--permission-mode', 'yolo']): AcpPeer {
  return setup.start(args);
}

async function withTerminal(p: AcpPeer): Promise<string> {
  await initialize(p, false, { terminal: true });
  return (await newSession(p, setup.work)).sessionId;
}

/** The tool result the model got in request `n` (0-based) for the last tool call. */
function toolResult(n: number): string {
  const msgs = wireMessages(t.server.requests[n]!.body).filter((m) => m.role === 'tool');
  return wireText(msgs.at(-1)!);
}

/** The updates of one call, in order. */
function callUpdates(p: AcpPeer, id: string): Array<acp.ToolCall | acp.ToolCallUpdate> {
  return p.updates.flatMap((n) =>
    (n.update.sessionUpdate === 'tool_call' || n.update.sessionUpdate === 'tool_call_update') &&
    n.update.toolCallId === id
      ? [n.update]
      : [],
  );
}

describe('tea acp runs bash in the client terminal', () => {
  it('creates a terminal with the command and workspace, shows it in the call, and gives the model its output', async () => {
    const p = peer();
    const sessionId = await withTerminal(p);
    const command = 'echo "out from $PWD"; echo "err line" >&2; echo "key=[$OPENAI_API_KEY]"; exit 3';
    t.server.script(reply().toolCall('bash', { command }), reply().text('Done.'));
    expect((await prompt(p, sessionId, 'run it')).stopReason).toBe('end_turn');

    expect(p.terminals.all).toHaveLength(1);
    const term = p.terminals.all[0]!;
    expect(term.request).toMatchObject({
      sessionId,
      command: 'bash',
      args: ['-c', command],
      cwd: setup.work,
    });
    expect(term.request.outputByteLimit).toBeGreaterThan(0);
    // The model key the scrub drops is blanked in the editor's environment too.
    expect(term.request.env).toContainEqual({ name: 'OPENAI_API_KEY', value: '' });
    expect(p.terminals.calls.map((c) => c.method)).toEqual(['create', 'wait_for_exit', 'output', 'release']);

    const result = toolResult(1);
    expect(result.split('\n')[0]).toBe('exit code: 3');
    expect(result).toContain(`out from ${setup.work}`);
    expect(result).toContain('err line');
    expect(result).toContain('key=[]');

    const callId = updatesOf(p, 'tool_call')[0]!.toolCallId;
    const shown = callUpdates(p, callId);
    const embed = { type: 'terminal', terminalId: term.id };
    const embedAt = shown.findIndex((u) => u.content?.some((c) => c.type === 'terminal'));
    expect(shown[0]).toMatchObject({ sessionUpdate: 'tool_call', status: 'pending' });
    expect(embedAt).toBeGreaterThan(0);
    expect(shown[embedAt]!.content).toEqual([embed]);
    // The last update keeps the terminal (released, the editor still shows its output).
    expect(shown.at(-1)).toMatchObject({ status: 'completed', content: [embed] });
    expect(embedAt).toBeLessThan(shown.length - 1);
  });

  it('a cancel mid-command kills it in the terminal, then releases it', async () => {
    const p = peer();
    const sessionId = await withTerminal(p);
    t.server.script(reply().toolCall('bash', { command: 'echo started; sleep 60; echo never' }));
    const answer = prompt(p, sessionId, 'run the long one');
    await waitFor(() => p.terminals.all[0]?.output.includes('started') === true, 'the command to start');
    await p.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await answer).stopReason).toBe('cancelled');
    await waitFor(() => p.terminals.calls.some((c) => c.method === 'release'), 'the terminal to be released');
    const methods = p.terminals.calls.map((c) => c.method);
    expect(methods.indexOf('kill')).toBeGreaterThan(0);
    expect(methods.indexOf('kill')).toBeLessThan(methods.indexOf('release'));
    const exit = await p.terminals.all[0]!.exited;
    expect(exit.signal).toBe('SIGKILL');
    expect(p.terminals.all[0]!.output).not.toContain('never');
  });

  it('a client that never reports the exit after a kill does not hold the turn', async () => {
    const p = peer();
    p.terminals.stuck = true;
    const sessionId = await withTerminal(p);
    t.server.script(reply().toolCall('bash', { command: 'echo started; sleep 60' }));
    const answer = prompt(p, sessionId, 'run the long one');
    await waitFor(() => p.terminals.all[0]?.output.includes('started') === true, 'the command to start');
    await p.agent.notify(acp.methods.agent.session.cancel, { sessionId });
    expect((await answer).stopReason).toBe('cancelled');
    await waitFor(() => p.terminals.calls.some((c) => c.method === 'release'), 'the release', 15_000);
    expect(p.terminals.calls.map((c) => c.method)).toContain('kill');
    // The editor never said it ended: it still runs until the editor goes (afterEach).
    expect(p.terminals.all[0]!.exit).toBeUndefined();
  });

  it('the bash deadline applies: a silent command past timeout_ms is killed and the model told so', async () => {
    const p = peer();
    const sessionId = await withTerminal(p);
    t.server.script(
      reply().toolCall('bash', { command: 'sleep 60', timeout_ms: 2000 }),
      reply().text('It timed out.'),
    );
    expect((await prompt(p, sessionId, 'run it')).stopReason).toBe('end_turn');
    const result = toolResult(1);
    expect(result).toMatch(/^\[ERROR\] killed: timeout after 2 s \(idle\)\n/);
    expect(p.terminals.calls.map((c) => c.method)).toContain('kill');
    const callId = updatesOf(p, 'tool_call')[0]!.toolCallId;
    const last = callUpdates(p, callId).at(-1)!;
    expect(last.status).toBe('failed');
    expect(last.content?.[0]).toEqual({ type: 'terminal', terminalId: p.terminals.all[0]!.id });
    expect(JSON.stringify(last.content)).toContain('killed: timeout');
  });

  it('a command that keeps printing gets more time past timeout_ms, as bash gives a busy one', async () => {
    const p = peer();
    const sessionId = await withTerminal(p);
    const command = 'for i in $(seq 1 20); do echo tick $i; sleep 0.25; done';
    t.server.script(reply().toolCall('bash', { command, timeout_ms: 3000 }), reply().text('Done.'));
    expect((await prompt(p, sessionId, 'run it')).stopReason).toBe('end_turn');
    const result = toolResult(1);
    expect(result.split('\n')[0]).toBe('exit code: 0');
    expect(result).toContain('tick 20');
    const methods = p.terminals.calls.map((c) => c.method);
    expect(methods).not.toContain('kill');
    // The output was looked at while it ran (before the exit was known).
    expect(methods.indexOf('output')).toBeLessThan(methods.lastIndexOf('output'));
  });

  it('a sub-agent’s bash runs in the terminal too, shown in the child’s own call', async () => {
    t.server.respond((body) => {
      if (isChild(body)) {
        const results = wireMessages(body).filter((m) => m.role === 'tool').length;
        if (results === 0) return reply().toolCall('bash', { command: 'echo from the child' });
        return reply().text('CHILD: ran it');
      }
      if (isFirstCall(body)) return reply().toolCall('task', task(1, { role: 'coder' }));
      return reply().text('Done.');
    });
    const p = peer();
    const sessionId = await withTerminal(p);
    expect((await prompt(p, sessionId, 'delegate')).stopReason).toBe('end_turn');
    expect(p.terminals.all).toHaveLength(1);
    const term = p.terminals.all[0]!;
    // The terminal belongs to the editor's session; the call it shows in is the child's.
    expect(term.request).toMatchObject({ sessionId, args: ['-c', 'echo from the child'] });
    const child = updatesOf(p, 'tool_call').find((c) => c.title.startsWith('coder #1: bash'))!;
    expect(child.toolCallId).toMatch(/^[0-9a-f-]{36}:/);
    const shown = callUpdates(p, child.toolCallId);
    const embed = { type: 'terminal', terminalId: term.id };
    expect(shown.find((u) => !u.status && u.content)?.content).toEqual([embed]);
    expect(shown.at(-1)).toMatchObject({ status: 'completed', content: [embed] });
    expect(term.output).toBe('from the child\n');
  });

  const ATTACKS = [
    'echo a; touch pwned',
    'echo a && touch pwned',
    'echo $(touch pwned)',
    'echo `touch pwned`',
    'echo a\ntouch pwned',
  ];

  it('a command the policy does not allow never reaches the terminal (ask mode, the user rejects)', async () => {
    const p = peer(['--sandbox', 'off']);
    p.onPermission = () => ({ outcome: { outcome: 'selected', optionId: 'reject' } });
    const sessionId = await withTerminal(p);
    for (const command of ATTACKS) {
      t.server.script(reply().toolCall('bash', { command }), reply().text('Refused.'));
      await prompt(p, sessionId, 'go');
    }
    expect(p.permissions.map((r) => r.toolCall.rawInput)).toEqual(ATTACKS.map((command) => ({ command })));
    expect(p.terminals.calls).toEqual([]);
    expect(existsSync(path.join(setup.work, 'pwned'))).toBe(false);
    // The rule's own command runs without asking, in the terminal.
    t.server.script(reply().toolCall('bash', { command: 'echo fine' }), reply().text('Ran.'));
    await prompt(p, sessionId, 'go');
    expect(p.terminals.all.map((x) => x.request.args)).toEqual([['-c', 'echo fine']]);
    expect(p.permissions).toHaveLength(ATTACKS.length);
  });

  it('read-only mode refuses every chained command without asking and without a terminal', async () => {
    const p = peer(['--sandbox', 'off', '--permission-mode', 'read-only']);
    const sessionId = await withTerminal(p);
    for (const command of ATTACKS) {
      t.server.script(reply().toolCall('bash', { command }), reply().text('Refused.'));
      await prompt(p, sessionId, 'go');
      expect(toolResult(t.server.requests.length - 1)).toMatch(/^\[DENIED\] bash/);
    }
    expect(p.permissions).toEqual([]);
    expect(p.terminals.calls).toEqual([]);
    expect(existsSync(path.join(setup.work, 'pwned'))).toBe(false);
  });

  it('with the sandbox on, the terminal runs the command inside it', async () => {
    const bwrap = requireBwrap();
    const outside = outsideTmp('tea-acp-term-');
    try {
      const p = peer(['--sandbox', 'on', '--permission-mode', 'yolo']);
      const sessionId = await withTerminal(p);
      const target = path.join(outside.dir, 'escaped');
      const command = `touch ${target}; echo "status $?"`;
      t.server.script(reply().toolCall('bash', { command }), reply().text('Done.'));
      await prompt(p, sessionId, 'go');
      const req = p.terminals.all[0]!.request;
      expect(realpathSync(req.command)).toBe(realpathSync(bwrap));
      expect(req.args?.slice(-4)).toEqual(['--', 'bash', '-c', command]);
      expect(existsSync(target)).toBe(false);
      expect(toolResult(1)).toContain('status 1');
    } finally {
      outside.cleanup();
    }
  });

  it('a client without terminals: bash runs locally, as before', async () => {
    const p = peer();
    await initialize(p);
    const { sessionId } = await newSession(p, setup.work);
    t.server.script(reply().toolCall('bash', { command: 'echo "local in $PWD"' }), reply().text('Ran.'));
    expect((await prompt(p, sessionId, 'go')).stopReason).toBe('end_turn');
    expect(p.terminals.calls).toEqual([]);
    expect(toolResult(1)).toBe(`exit code: 0\nlocal in ${setup.work}`);
    const callId = updatesOf(p, 'tool_call')[0]!.toolCallId;
    expect(JSON.stringify(callUpdates(p, callId))).not.toContain('"terminal"');
  });
});
