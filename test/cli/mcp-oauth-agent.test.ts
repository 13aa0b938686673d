/**
 * An OAuth-protected MCP server in an agent turn (`tea -p`, scripted model): without a
 * login, the model's call gets a clear tool error naming `tea mcp login` (no browser, no
 * hang); after `tea mcp login`, the same call runs with the stored token.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeToolCache } from '../../src/tools/mcp/cache.js';
import { NO_MEMORY_JOBS, runTea, useScriptedCli } from '../support/cli.js';
import { type OAuthMcpServer, startOAuthMcpServer } from '../support/oauth-mcp-server.mjs';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

const HEADLESS = path.resolve(import.meta.dirname, '..', 'support', 'headless-browser.mjs');
const t = useScriptedCli();
let mcp: OAuthMcpServer;

beforeEach(async () => {
  mcp = await startOAuthMcpServer();
  writeFileSync(
    path.join(t.ctx.home, 'config.yaml'),
    `${NO_MEMORY_JOBS}mcp_servers:\n  docs: { url: "${mcp.url}" }\n`,
  );
  // The tool list as an earlier session cached it: the bridge tool is offered without connecting.
  writeToolCache(t.ctx.home, 'docs', [{ name: 'whoami', inputSchema: { type: 'object' } }]);
});
afterEach(() => mcp.close());

const ask = () =>
  runTea(['-p', 'who am I on docs?', '--allow', 'mcp__docs__whoami'], { env: t.ctx.env, cwd: t.ctx.work });

/** The text of the tool result the model got in its second request. */
function toolResult(): string {
  const second = t.server.requests[1];
  expect(second).toBeDefined();
  const tool = wireMessages(second!.body).find((m) => m.role === 'tool');
  return wireText(tool!);
}

describe('an OAuth MCP server in a tea -p turn', () => {
  it('without a login, the call is a tool error that says how to log in', async () => {
    t.server.script(reply().toolCall('mcp__docs__whoami', {}), reply().text('You need to log in first.'));
    const r = await ask();
    expect(r.stdout).toContain('You need to log in first.');
    const result = toolResult();
    expect(result).toContain(`MCP server "docs" (${mcp.url}) needs you to log in`);
    expect(result).toContain('run `tea mcp login docs` in a terminal, then try again');
    expect(mcp.seen.authorize).toHaveLength(0);
  });

  it('after `tea mcp login`, the same call runs with the stored token', async () => {
    const env = {
      ...t.ctx.env,
      TEA_BROWSER: `${JSON.stringify(process.execPath)} ${JSON.stringify(HEADLESS)}`,
    };
    const login = await runTea(['mcp', 'login', 'docs'], { env, cwd: t.ctx.work });
    expect(login.code, login.stderr).toBe(0);
    t.server.script(reply().toolCall('mcp__docs__whoami', {}), reply().text('Done.'));
    const r = await ask();
    expect(r.code, r.stderr).toBe(0);
    expect(toolResult()).toBe(`client ${mcp.seen.authorize[0]?.clientId}`);
    expect(r.stdout + r.stderr).not.toContain(mcp.seen.issued[0]!);
  });
});
