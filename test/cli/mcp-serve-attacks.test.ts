/**
 * `tea mcp serve` (the built CLI, over stdio, with the MCP SDK's client) goes through
 * the same permission entry point as a session: every bypass attempt of the shell
 * attack table that a session refuses is refused over MCP too, with the same verdict
 * and the same reason.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliEnv, cliEnv, TEA_BIN } from '../support/cli.js';
import { type Refusal, sessionJudge } from '../support/session-refusal.js';
import { BYPASSES, RULES } from '../tools/shell/cases.js';

let ctx: CliEnv;
let client: Client;
let judge: ReturnType<typeof sessionJudge>;

beforeAll(async () => {
  ctx = cliEnv();
  writeFileSync(path.join(ctx.home, 'config.yaml'), `permissions: ${JSON.stringify({ rules: RULES })}\n`);
  judge = sessionJudge(ctx.work, 'ask', RULES);
  client = new Client({ name: 'tea-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [TEA_BIN, 'mcp', 'serve', '--cwd', ctx.work, '--permission-mode', 'ask'],
      env: ctx.env as Record<string, string>,
      stderr: 'pipe',
    }),
  );
});
afterAll(async () => {
  await client.close();
  judge.close();
  ctx.cleanup();
});

async function call(command: string): Promise<{ text: string; isError: boolean }> {
  const r = (await client.callTool({ name: 'bash', arguments: { command } })) as {
    content: Array<{ type: string; text?: string }>;
    isError?: boolean;
  };
  return { text: r.content.map((c) => c.text ?? '').join('\n'), isError: r.isError === true };
}

/** The refusal's first line over MCP for what the session refused, in MCP's words. */
function mcpWords(r: Refusal): string {
  return r.action === 'deny'
    ? `[DENIED] ${r.label} is not allowed here (${r.reason}).\n`
    : `[DENIED] ${r.label} needs approval (${r.reason}), and nobody can approve calls made over MCP.\n`;
}

describe('tea mcp serve refuses what a session refuses, for the same reason', () => {
  it.each(BYPASSES)('%j (%s)', async (command, expected) => {
    const session = await judge.refusal(command);
    expect(session?.action).toBe(expected);
    const r = await call(command);
    expect(r.isError).toBe(true);
    expect(r.text.startsWith(mcpWords(session!))).toBe(true);
  });

  it('runs what the rules allow, as a session would', async () => {
    expect(await judge.refusal('echo allowed-by-rule')).toBeUndefined();
    const r = await call('echo allowed-by-rule');
    expect(r.isError).toBe(false);
    expect(r.text).toContain('allowed-by-rule');
  });
});
