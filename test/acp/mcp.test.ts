/**
 * MCP servers an editor passes with `session/new` / `session/load` belong to that
 * session alone: the built `tea acp`, a real ACP SDK client, real MCP servers from
 * npm, the model scripted at the wire.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { runTea } from '../support/cli.js';
import { reply } from '../support/script.js';
import { type WireMessage, wireMessages, wireText } from '../support/wire.js';
import { EVERYTHING_JS, FILESYSTEM_JS, waitGone } from '../tools/mcp/peers.js';
import { type AcpPeer, initialize, newSession, prompt } from './peer.js';
import { useAcp } from './setup.js';

const setup = useAcp();
const { t } = setup;

/** `tea acp` in yolo mode: MCP tools run without permission prompts. */
async function peer(): Promise<AcpPeer> {
  const p = setup.start(['--permission-mode', 'yolo']);
  await initialize(p);
  return p;
}

const everything = (name = 'everything'): acp.McpServer => ({
  name,
  command: process.execPath,
  args: [EVERYTHING_JS, 'stdio'],
  env: [],
});

const filesystem = (name: string, dir: string): acp.McpServer => ({
  name,
  command: process.execPath,
  args: [FILESYSTEM_JS, dir],
  env: [],
});

/** server-everything behind a shell that writes its pid to `file` first (`exec` keeps the pid). */
const everythingWithPid = (file: string): acp.McpServer => ({
  name: 'everything',
  command: '/bin/sh',
  args: ['-c', `echo $$ > '${file}'; exec '${process.execPath}' '${EVERYTHING_JS}' stdio`],
  env: [],
});

function open(p: AcpPeer, mcpServers: acp.McpServer[]): Promise<acp.NewSessionResponse> {
  return p.agent.request('session/new', { cwd: setup.work, mcpServers });
}

/** The model request number `i` (0-based) of this test. */
const request = (i: number): WireMessage[] => wireMessages(t.server.requests[i]!.body);
/** The texts of the tool results in model request `i`. */
const toolResults = (i: number): string[] =>
  request(i)
    .filter((m) => m.role === 'tool')
    .map(wireText);
const systemPrompt = (i: number): string => wireText(request(i).find((m) => m.role === 'system')!);

describe('tea acp: MCP servers per session', () => {
  it("a session's MCP tools are its own: another session cannot see or call them", async () => {
    const p = await peer();
    const a = await open(p, [everything()]);
    const b = await newSession(p, setup.work);

    t.server.script(
      reply().toolCall('tool_search', { query: 'echo' }),
      reply().toolCall('mcp__everything__echo', { message: 'from A' }),
      reply().text('A is done.'),
    );
    expect((await prompt(p, a.sessionId, 'echo something')).stopReason).toBe('end_turn');
    expect(systemPrompt(0)).toContain('mcp__everything__echo');
    expect(toolResults(1)[0]).toContain('mcp__everything__echo');
    expect(toolResults(2)[1]).toContain('Echo: from A');

    // With A's server up and used, B asks for its tool by name, then calls it anyway.
    t.server.script(
      reply().toolCall('tool_search', { names: ['mcp__everything__echo'] }),
      reply().toolCall('mcp__everything__echo', { message: 'from B' }),
      reply().text('B is done.'),
    );
    expect((await prompt(p, b.sessionId, 'echo something')).stopReason).toBe('end_turn');
    expect(systemPrompt(3)).not.toContain('mcp__everything__');
    expect(toolResults(4)[0]).toMatch(/^\[ERROR\] no tool matches "mcp__everything__echo"/);
    expect(toolResults(5)[1]).toMatch(/^\[ERROR\] Unknown tool "mcp__everything__echo"/);
  });

  it('two sessions with a server of the same name and other settings each get their own', async () => {
    const dirA = path.join(setup.work, 'a');
    const dirB = path.join(setup.work, 'b');
    mkdirSync(dirA);
    mkdirSync(dirB);
    const p = await peer();
    const a = await open(p, [filesystem('fs', dirA)]);
    const b = await open(p, [filesystem('fs', dirB)]);

    for (const s of [b, a]) {
      t.server.script(reply().toolCall('mcp__fs__list_allowed_directories', {}), reply().text('Listed.'));
      expect((await prompt(p, s.sessionId, 'where may you go?')).stopReason).toBe('end_turn');
    }
    const seenByB = toolResults(1).join('\n');
    const seenByA = toolResults(3).join('\n');
    expect(seenByB).toContain(dirB);
    expect(seenByB).not.toContain(dirA);
    expect(seenByA).toContain(dirA);
    expect(seenByA).not.toContain(dirB);
  });

  it('a prompt sent right after session/new or session/load can call the session’s MCP tool', async () => {
    const p = await peer();
    const { sessionId } = await open(p, [everything()]);
    t.server.script(
      reply().toolCall('mcp__everything__echo', { message: 'at once' }),
      reply().text('Echoed.'),
    );
    expect((await prompt(p, sessionId, 'echo at once')).stopReason).toBe('end_turn');
    expect(toolResults(1)).toEqual([expect.stringContaining('Echo: at once')]);
    expect(await p.close()).toBe(0);

    // In a new process, the stored session is loaded with its server and used at once.
    const q = await peer();
    await q.agent.request('session/load', { sessionId, cwd: setup.work, mcpServers: [everything()] });
    t.server.script(
      reply().toolCall('mcp__everything__echo', { message: 'after load' }),
      reply().text('Echoed again.'),
    );
    expect((await prompt(q, sessionId, 'echo again')).stopReason).toBe('end_turn');
    expect(toolResults(3).at(-1)).toContain('Echo: after load');
  });

  it('a server that cannot start fails session/new with an error naming it, and opens no session', async () => {
    const p = await peer();
    const missing = path.join(setup.work, 'no-such-mcp-server');
    const failed = open(p, [everything(), { name: 'broken', command: missing, args: [], env: [] }]);
    await expect(failed).rejects.toMatchObject({
      code: -32602,
      message: expect.stringMatching(
        /could not connect the MCP server "broken".*cannot start command ".*no-such-mcp-server": command not found \(ENOENT\)/s,
      ),
      data: { mcpServer: 'broken' },
    });
    await expect(failed).rejects.toThrow(/Hint: check the command the editor passes for MCP server "broken"/);

    // The agent goes on serving, and only the session that opened was stored.
    const { sessionId } = await newSession(p, setup.work);
    t.server.script(reply().text('Fine.'));
    expect((await prompt(p, sessionId, 'hello')).stopReason).toBe('end_turn');
    const listed = await runTea(['sessions', 'list', '--json'], { env: t.ctx.env, cwd: setup.work });
    expect(JSON.parse(listed.stdout).sessions.map((s: { id: string }) => s.id)).toEqual([sessionId]);
  });

  it('session/close and the end of tea acp stop the session’s servers', async () => {
    const p = await peer();
    const closedPid = path.join(setup.work, 'closed.pid');
    const exitPid = path.join(setup.work, 'exit.pid');
    const closing = await open(p, [everythingWithPid(closedPid)]);
    await open(p, [everythingWithPid(exitPid)]);
    const pidOf = (file: string): number => Number(readFileSync(file, 'utf8').trim());

    await p.agent.request('session/close', { sessionId: closing.sessionId });
    await waitGone(pidOf(closedPid));
    await expect(prompt(p, closing.sessionId, 'still there?')).rejects.toMatchObject({ code: -32002 });

    const other = pidOf(exitPid);
    process.kill(other, 0); // still running
    expect(await p.close()).toBe(0);
    await waitGone(other);
  });
});
