/**
 * OAuth for remote MCP servers through the built CLI, against an OAuth-protected MCP
 * server on loopback (the SDK's server-side auth helpers): `tea mcp login` with a
 * headless browser ($TEA_BROWSER) through the loopback redirect, stored tokens used by
 * later runs, refresh, logout, and the attack table (token file permissions, one
 * server's token never sent to another, a refused authorization).
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { authFile } from '../../src/tools/mcp/oauth-store.js';
import { type CliEnv, cliEnv, runTea } from '../support/cli.js';
import { type OAuthMcpServer, startOAuthMcpServer } from '../support/oauth-mcp-server.mjs';

const HEADLESS = path.resolve(import.meta.dirname, '..', 'support', 'headless-browser.mjs');
const BROWSER = `${JSON.stringify(process.execPath)} ${JSON.stringify(HEADLESS)}`;

let ctx: CliEnv;
let server: OAuthMcpServer;
let browserLog: string;
const others: OAuthMcpServer[] = [];

function configure(servers: Record<string, string>): void {
  const lines = Object.entries(servers).map(([name, url]) => `  ${name}: { url: "${url}" }`);
  writeFileSync(path.join(ctx.home, 'config.yaml'), `mcp_servers:\n${lines.join('\n')}\n`);
}

beforeEach(async () => {
  server = await startOAuthMcpServer();
  ctx = cliEnv();
  browserLog = path.join(ctx.home, '..', 'browser.log');
  ctx.env.TEA_BROWSER = BROWSER;
  ctx.env.HEADLESS_BROWSER_LOG = browserLog;
  configure({ docs: server.url });
});
afterEach(async () => {
  await server.close();
  for (const o of others.splice(0)) await o.close();
  ctx.cleanup();
});

const tea = (...args: string[]) => runTea(args, { env: ctx.env, cwd: ctx.work });
const tokenFile = (url = server.url) => authFile(ctx.home, url);
const mcpRequests = (s = server) => s.seen.requests.filter((r) => r.path === '/mcp');

async function login(): Promise<void> {
  const r = await tea('mcp', 'login', 'docs');
  expect(r.code, r.stderr).toBe(0);
}

describe('tea mcp login', () => {
  it('logs in through the loopback redirect; the tokens are kept 0600 and never printed', async () => {
    const r = await tea('mcp', 'login', 'docs');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `Logged in to MCP server "docs" (${server.url}); 1 tools. The login is kept in ${tokenFile()}.\n`,
    );
    expect(r.stderr).toContain(
      'To log in to MCP server "docs", open this address in a browser:\n  http://127.0.0.1:',
    );
    // Dynamic registration with the loopback redirect; the authorization carried a fresh state.
    expect(server.seen.registered).toHaveLength(1);
    const [authz] = server.seen.authorize;
    expect(authz?.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(server.seen.registered[0]?.redirect_uris).toEqual([authz?.redirectUri]);
    expect(authz?.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(server.seen.token.map((t) => t.grant)).toEqual(['authorization_code']);

    const file = tokenFile();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
    const token = server.seen.issued[0]!;
    expect(readFileSync(file, 'utf8')).toContain(token);
    expect(r.stdout + r.stderr).not.toContain(token);

    // A later run (no terminal, no login possible) uses the stored token.
    const call = await tea('mcp', 'call', 'docs', 'whoami');
    expect(call.code, call.stderr).toBe(0);
    expect(call.stdout).toBe(`client ${authz?.clientId}\n`);
    expect(call.stdout + call.stderr).not.toContain(token);
    expect(mcpRequests().at(-1)?.authorization).toBe(`Bearer ${token}`);
    expect(server.seen.authorize).toHaveLength(1);
  });

  it('a run that cannot log in says so, names `tea mcp login`, and opens no browser', async () => {
    const r = await tea('mcp', 'tools', 'docs');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`MCP server "docs" (${server.url}) needs you to log in`);
    expect(r.stderr).toContain('run `tea mcp login docs` in a terminal, then try again');
    expect(server.seen.registered).toHaveLength(0);
    expect(server.seen.authorize).toHaveLength(0);
    expect(existsSync(browserLog)).toBe(false);
  });

  it('an authorization the server refuses (error= in the callback) fails clearly and stores no tokens', async () => {
    const denying = await startOAuthMcpServer({ deny: true });
    others.push(denying);
    configure({ docs: denying.url });
    const r = await tea('mcp', 'login', 'docs');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'the authorization server refused the login (access_denied: the user said no)',
    );
    expect(denying.seen.token).toHaveLength(0);
    const stored = JSON.parse(readFileSync(authFile(ctx.home, denying.url), 'utf8')) as { tokens?: unknown };
    expect(stored.tokens).toBeUndefined();
  });

  it('logs in again with the same client registration', async () => {
    await login();
    await login();
    expect(server.seen.registered).toHaveLength(1);
    expect(server.seen.authorize).toHaveLength(2);
    expect(server.seen.authorize[1]?.state).not.toBe(server.seen.authorize[0]?.state);
  });
});

describe('refresh', () => {
  it('a 401 on an expired access token is answered with the refresh token, not a new login', async () => {
    await login();
    server.expireAccessTokens();
    const r = await tea('mcp', 'call', 'docs', 'whoami');
    expect(r.code, r.stderr).toBe(0);
    expect(server.seen.token.map((t) => t.grant)).toEqual(['authorization_code', 'refresh_token']);
    expect(server.seen.authorize).toHaveLength(1);
    expect(mcpRequests().at(-1)?.authorization).toBe(`Bearer ${server.seen.issued[1]}`);
  });

  it('a token past its expiry is refreshed before the first request', async () => {
    await login();
    const file = tokenFile();
    const stored = JSON.parse(readFileSync(file, 'utf8'));
    stored.tokens.expires_at = Date.now() - 1000;
    writeFileSync(file, JSON.stringify(stored));
    const before = mcpRequests().length;
    const r = await tea('mcp', 'call', 'docs', 'whoami');
    expect(r.code, r.stderr).toBe(0);
    expect(server.seen.token.map((t) => t.grant)).toEqual(['authorization_code', 'refresh_token']);
    // The first request of this run already carried the new token (no 401 round).
    expect(mcpRequests()[before]?.authorization).toBe(`Bearer ${server.seen.issued[1]}`);
  });
});

describe('tea mcp logout', () => {
  it('forgets the stored login; the next run needs a login again', async () => {
    await login();
    const r = await tea('mcp', 'logout', 'docs');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`Logged out of MCP server "docs" (${server.url}): its stored login is deleted.\n`);
    expect(existsSync(tokenFile())).toBe(false);
    expect((await tea('mcp', 'logout', 'docs')).stdout).toBe(
      `No stored login for MCP server "docs" (${server.url}).\n`,
    );
    const after = await tea('mcp', 'tools', 'docs');
    expect(after.stderr).toContain('needs you to log in');
  });
});

describe('attacks', () => {
  it('a token file other users can read is refused and its token is not sent', async () => {
    await login();
    chmodSync(tokenFile(), 0o644);
    const before = server.seen.requests.length;
    const r = await tea('mcp', 'call', 'docs', 'whoami');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`the OAuth token file ${tokenFile()} can be read by other users (mode 644)`);
    expect(r.stderr).toContain('`tea mcp login docs`');
    expect(server.seen.requests.slice(before).filter((q) => q.authorization)).toEqual([]);
    expect(r.stderr).not.toContain(server.seen.issued[0]!);
  });

  it("server B never receives server A's token, even from a copy of A's file under B's name", async () => {
    const other = await startOAuthMcpServer();
    others.push(other);
    configure({ docs: server.url, other: other.url });
    await login();
    const first = await tea('mcp', 'tools', 'other');
    expect(first.code).toBe(1);
    expect(first.stderr).toContain(`MCP server "other" (${other.url}) needs you to log in`);
    copyFileSync(tokenFile(), authFile(ctx.home, other.url));
    const second = await tea('mcp', 'tools', 'other');
    expect(second.code).toBe(1);
    expect(second.stderr).toContain('needs you to log in');
    expect(other.seen.requests.filter((q) => q.authorization)).toEqual([]);
    expect(other.seen.token).toHaveLength(0);
  });

  it('a server with a configured Authorization header gets that header, never an OAuth token', async () => {
    await login();
    writeFileSync(
      path.join(ctx.home, 'config.yaml'),
      `mcp_servers:\n  docs: { url: "${server.url}", headers: { Authorization: "Bearer configured" } }\n`,
    );
    const r = await tea('mcp', 'tools', 'docs');
    expect(r.code).toBe(1);
    expect(mcpRequests().at(-1)?.authorization).toBe('Bearer configured');
    expect(readdirSync(path.dirname(tokenFile()))).toHaveLength(1);
  });
});

describe('grant: client_credentials', () => {
  it('names the missing client settings', async () => {
    writeFileSync(
      path.join(ctx.home, 'config.yaml'),
      `mcp_servers:\n  docs: { url: "${server.url}", oauth: { grant: client_credentials, client_id: bot } }\n`,
    );
    const r = await tea('mcp', 'tools', 'docs');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'MCP server "docs": grant: client_credentials needs mcp_servers.docs.oauth.client_secret or mcp_servers.docs.oauth.private_key_file',
    );
    writeFileSync(
      path.join(ctx.home, 'config.yaml'),
      `mcp_servers:\n  docs: { url: "${server.url}", oauth: { grant: client_credentials, client_id: bot, private_key_file: ./nope.pem } }\n`,
    );
    const missing = await tea('mcp', 'tools', 'docs');
    expect(missing.stderr).toContain(
      'cannot read mcp_servers.docs.oauth.private_key_file ./nope.pem: ENOENT',
    );
    expect(server.seen.requests).toEqual([]);
  });
});
