/** `tea mcp call` and a server given as a URL (no config entry), against a plain MCP server on loopback. */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliEnv, cliEnv, runTea } from '../support/cli.js';
import { type OAuthMcpServer, startOAuthMcpServer } from '../support/oauth-mcp-server.mjs';

let ctx: CliEnv;
let server: OAuthMcpServer;
beforeAll(async () => {
  server = await startOAuthMcpServer({ open: true });
  ctx = cliEnv();
});
afterAll(async () => {
  await server.close();
  ctx.cleanup();
});

const tea = (...args: string[]) => runTea(args, { env: ctx.env, cwd: ctx.work });

describe('tea mcp call', () => {
  it('calls a tool of a server given by URL and prints its text', async () => {
    const r = await tea('mcp', 'call', server.url, 'whoami');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('client anonymous\n');
    // A URL that is not in the config leaves no tool cache behind.
    expect(existsSync(path.join(ctx.home, 'mcp'))).toBe(false);
  });

  it('--json prints the raw tools/call result', async () => {
    const r = await tea('mcp', 'call', '--json', server.url, 'whoami', '{}');
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ content: [{ type: 'text', text: 'client anonymous' }] });
  });

  it('an unknown tool is the server’s error, exit 1', async () => {
    const r = await tea('mcp', 'call', server.url, 'nope');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Tool nope not found');
  });

  it('arguments that are not a JSON object are a usage error before connecting', async () => {
    const before = server.seen.requests.length;
    let r = await tea('mcp', 'call', server.url, 'whoami', '{oops');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the tool's arguments are not JSON");
    r = await tea('mcp', 'call', server.url, 'whoami', '[1]');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the tool's arguments must be a JSON object");
    expect(server.seen.requests.length).toBe(before);
  });

  it('tea mcp tools lists a URL server; logout of a URL without a login says so', async () => {
    const r = await tea('mcp', 'tools', server.url);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /^whoami {2}Says which client called\.\n\n1 tools; the model calls them as mcp__remote__<tool>\n$/,
    );
    const out = await tea('mcp', 'logout', server.url);
    expect(out.stdout).toBe(`No stored login for MCP server "remote" (${server.url}).\n`);
  });

  it('login and logout name what is wrong: an unknown server, a stdio server', async () => {
    writeFileSync(path.join(ctx.home, 'config.yaml'), 'mcp_servers:\n  fs: { command: mcp-fs }\n');
    let r = await tea('mcp', 'login', 'missing-server');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no MCP server named "missing-server"; configured: fs');
    r = await tea('mcp', 'login', 'fs');
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('MCP server "fs" runs as a command (stdio); there is nothing to log in to');
    r = await tea('mcp', 'logout', 'fs');
    expect(r.stderr).toContain('MCP server "fs" runs as a command (stdio); there is nothing to log out of');
  });
});
