/**
 * acpx (a headless ACP client from npm) against the built `tea acp`: `exec` with an MCP
 * server from npm given to the session (`--mcp-config`), the scripted model calling its
 * tool through Tea, and `sessions list` through `session/list`.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CliResult, TEA_BIN } from '../support/cli.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { EVERYTHING_JS } from '../tools/mcp/peers.js';
import { useAcp } from './setup.js';

const ACPX = path.resolve(import.meta.dirname, '..', '..', 'node_modules', 'acpx', 'dist', 'cli.js');
const AGENT = `${process.execPath} ${TEA_BIN} acp`;

/** acpx is a CLI of its own (start, agent start, its session records): slow on a loaded machine. */
const SLOW = { timeout: 120_000 };

const setup = useAcp();
const { t } = setup;

function acpx(args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [ACPX, '--agent', AGENT, '--cwd', setup.work, ...args], {
      env: t.ctx.env,
      cwd: setup.work,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The JSON lines acpx printed. */
const jsonLines = (out: string): Array<Record<string, unknown>> =>
  out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('acpx against tea acp', () => {
  it('exec with an MCP server from --mcp-config: the model calls its tool through Tea', SLOW, async () => {
    const config = path.join(t.ctx.home, 'mcp.json');
    writeFileSync(
      config,
      JSON.stringify({
        mcpServers: [{ name: 'everything', command: process.execPath, args: [EVERYTHING_JS, 'stdio'] }],
      }),
    );
    t.server.script(
      reply().toolCall('mcp__everything__echo', { message: 'hello from acpx' }),
      reply().text('The server echoed it.'),
    );
    const r = await acpx(['--approve-all', '--format', 'json', '--mcp-config', config, 'exec', 'echo it']);
    expect(r.stderr).not.toMatch(/error/i);
    expect(r.code).toBe(0);
    const lines = jsonLines(r.stdout);
    // acpx prints the agent's updates: the tool call's result and the answer.
    const updates = lines.flatMap((l) =>
      l.method === 'session/update' ? [(l.params as { update: Record<string, unknown> }).update] : [],
    );
    const done = updates.find((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'completed');
    expect(JSON.stringify(done?.content)).toContain('Echo: hello from acpx');
    const answer = updates
      .filter((u) => u.sessionUpdate === 'agent_message_chunk')
      .map((u) => (u.content as { text: string }).text)
      .join('');
    expect(answer).toBe('The server echoed it.');
    // The model saw the MCP tool's result.
    const second = wireMessages(t.server.requests[1]!.body);
    expect(second.filter((m) => m.role === 'tool').map(wireText)).toEqual([
      expect.stringContaining('Echo: hello from acpx'),
    ]);
  });

  it('sessions list goes through session/list', SLOW, async () => {
    t.server.script(reply().text('First.'));
    expect((await acpx(['--approve-all', 'exec', 'the first question'])).code).toBe(0);
    const r = await acpx(['--format', 'json', 'sessions', 'list']);
    expect(r.code).toBe(0);
    const listed = JSON.parse(r.stdout) as {
      source: string;
      sessions: Array<{ cwd: string; title: string }>;
    };
    expect(listed.source).toBe('agent');
    expect(listed.sessions).toEqual([
      expect.objectContaining({ cwd: setup.work, title: 'the first question' }),
    ]);
    const elsewhere = await acpx([
      '--format',
      'json',
      'sessions',
      'list',
      '--filter-cwd',
      path.dirname(setup.work),
    ]);
    expect((JSON.parse(elsewhere.stdout) as { sessions: unknown[] }).sessions).toEqual([]);
  });
});
