/**
 * `tea mcp login | logout | call`, and what `tea mcp tools` shares with them: a
 * server named in the config or given as a URL, and the browser login of the
 * terminal (the URL on stderr; a browser opened only on a terminal, or through
 * $TEA_BROWSER, a command that receives the URL).
 */
import { spawn } from 'node:child_process';
import type { McpServerSettings, TeaConfig } from '../config/types.js';
import { type LoginUi, type McpServerConfig, OAuthStore, serverKey, TokenFileError } from '../runtime/mcp.js';
import { CliError, EXIT } from './exit.js';

/** A server for one command: a configured name, or a URL (matched to a configured entry when one has it). */
export interface Target {
  name: string;
  servers: Record<string, McpServerConfig>;
  /** The config did not name it: no tool cache is written. */
  adHoc: boolean;
}

function isUrl(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

export function resolveTarget(cfg: TeaConfig, nameOrUrl: string, howToAdd: string): Target {
  const servers: Record<string, McpServerSettings> = { ...cfg.mcpServers };
  if (servers[nameOrUrl]) return { name: nameOrUrl, servers, adHoc: false };
  if (isUrl(nameOrUrl)) {
    let key: string;
    try {
      key = serverKey(nameOrUrl);
    } catch {
      throw new CliError(`not a URL: ${nameOrUrl}`);
    }
    for (const [name, s] of Object.entries(servers)) {
      if ('url' in s && serverKey(s.url) === key) return { name, servers, adHoc: false };
    }
    const name = 'remote';
    return { name, servers: { ...servers, [name]: { url: nameOrUrl, trusted: true } }, adHoc: true };
  }
  const known = Object.keys(servers);
  throw new CliError(
    `no MCP server named "${nameOrUrl}"; ${known.length ? `configured: ${known.join(', ')}` : `none is configured; ${howToAdd}`}`,
  );
}

/** The server's URL, or a usage error for a stdio server. */
export function urlOf(target: Target, action: string): string {
  const server = target.servers[target.name];
  if (!server || !('url' in server)) {
    throw new CliError(
      `MCP server "${target.name}" runs as a command (stdio); there is nothing to ${action}`,
    );
  }
  return server.url;
}

/** Opens `url` with $TEA_BROWSER, or the desktop's opener. Errors are ignored: the URL is printed anyway. */
function openBrowser(url: string, browserCommand: string | undefined): void {
  const [file, args] = browserCommand
    ? ['/bin/sh', ['-c', `${browserCommand} "$1"`, 'tea-browser', url]]
    : process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(file, args, { stdio: 'ignore', detached: true });
    child.on('error', () => undefined);
    child.unref();
  } catch {
    // The URL is on stderr.
  }
}

/**
 * The terminal's login: the URL goes to stderr; a browser opens when stdin and
 * stderr are a terminal (unless --no-browser), or always through $TEA_BROWSER.
 */
export function terminalLogin(opts: { browser?: boolean; timeoutMs?: number }): LoginUi {
  const env = process.env.TEA_BROWSER?.trim();
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  return {
    ...(opts.timeoutMs ? { timeoutMs: opts.timeoutMs } : {}),
    open(server, url) {
      process.stderr.write(
        `To log in to MCP server "${server}", open this address in a browser:\n  ${url.href}\n`,
      );
      if (opts.browser === false) return;
      if (env) openBrowser(url.href, env);
      else if (interactive) openBrowser(url.href, undefined);
    },
  };
}

/** Whether `tea mcp tools | call` may start a browser login. */
export function mayLogIn(flag: boolean | undefined): boolean {
  return flag === true || Boolean(process.stdin.isTTY && process.stderr.isTTY);
}

/** `tea mcp logout <server>`: forgets the tokens and client registration stored for its URL. */
export function logout(cfg: TeaConfig, target: Target): number {
  const url = urlOf(target, 'log out of');
  const store = new OAuthStore(cfg.home, url);
  if (store.remove()) {
    process.stdout.write(
      `Logged out of MCP server "${target.name}" (${serverKey(url)}): its stored login is deleted.\n`,
    );
  } else {
    process.stdout.write(`No stored login for MCP server "${target.name}" (${serverKey(url)}).\n`);
  }
  return EXIT.OK;
}

/** Before `tea mcp login`: drops the stored tokens (keeping the client registration) so the server asks again. */
export function forgetTokens(cfg: TeaConfig, target: Target): string {
  const url = urlOf(target, 'log in to');
  const server = target.servers[target.name];
  if (server && 'url' in server && server.oauth === false) {
    throw new CliError(`MCP server "${target.name}" has oauth: false in the config; remove it to log in`);
  }
  const store = new OAuthStore(cfg.home, url);
  try {
    store.invalidate('tokens');
  } catch (error) {
    if (!(error instanceof TokenFileError)) throw error;
    // An unsafe file is replaced by the new login.
    store.remove();
  }
  return store.file;
}
