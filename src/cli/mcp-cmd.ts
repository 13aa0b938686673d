/** `tea mcp list | tools | call | login | logout | serve`: loaded only when one of them runs. */
import path from 'node:path';
import { displayPath } from '../config/errors.js';
import { CONFIG_FILE } from '../config/files.js';
import { loadConfig } from '../config/load.js';
import type { McpServerSettings, TeaConfig } from '../config/types.js';
import { workspaceDir } from '../runtime/directories.js';
import {
  bridgeName,
  McpManager,
  mapCallResult,
  OAuthStore,
  readToolCache,
  ToolError,
  ToolRegistry,
} from '../runtime/mcp.js';
import { PermissionPolicy, permissionSettings } from '../runtime/permissions.js';
import { builtinRegistry, shellSetup } from '../runtime/tools.js';
import type { SandboxMode } from '../tools/sandbox/sandbox.js';
import { CliError, EXIT } from './exit.js';
import { jsonText } from './json-out.js';
import { forgetTokens, logout, mayLogIn, resolveTarget, terminalLogin, urlOf } from './mcp-login.js';
import { givenMode } from './options.js';
import { VERSION } from './version.js';

async function config(cwd: string | undefined): Promise<TeaConfig> {
  const loaded = await loadConfig({ cwd: workspaceDir(cwd), detectOllama: false });
  for (const warning of loaded.warnings) process.stderr.write(`tea: warning: ${warning}\n`);
  return loaded;
}

function target(server: McpServerSettings): string {
  return 'command' in server ? [server.command, ...(server.args ?? [])].join(' ') : server.url;
}

function firstSentence(text: string, max = 100): string {
  const s = (text.split(/(?<=\.)\s/)[0] ?? text).trim().replace(/\s+/g, ' ');
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** How to add a server, naming the user's config file (in TEA_HOME). */
const howToAdd = (cfg: TeaConfig): string =>
  `add one to ${displayPath(path.join(cfg.home, CONFIG_FILE))}, e.g.\n  mcp_servers:\n    fs: { command: npx, args: [-y, "@modelcontextprotocol/server-filesystem", /tmp] }\n`;

/** `tea mcp list`: every configured server with its transport, state and cached tool count. */
export async function listServers(opts: { cwd?: string; json?: boolean }): Promise<number> {
  const cfg = await config(opts.cwd);
  const rows = Object.entries(cfg.mcpServers).map(([name, server]) => ({
    name,
    transport: 'command' in server ? 'stdio' : (server.transport ?? 'http'),
    target: target(server),
    enabled: !server.disabled,
    trusted: server.trusted,
    cachedTools: readToolCache(cfg.home, name)?.length ?? null,
  }));
  if (opts.json) {
    process.stdout.write(jsonText(rows));
    return EXIT.OK;
  }
  if (rows.length === 0) {
    process.stdout.write(`No MCP servers configured; ${howToAdd(cfg)}`);
    return EXIT.OK;
  }
  const width = Math.max(...rows.map((r) => r.name.length));
  for (const r of rows) {
    const state = r.enabled ? 'enabled ' : 'disabled';
    const tools = r.cachedTools === null ? 'tools: not listed yet' : `tools: ${r.cachedTools}`;
    process.stdout.write(
      `${r.name.padEnd(width)}  ${r.transport.padEnd(5)}  ${state}  ${tools.padEnd(21)}  ${r.target}\n`,
    );
  }
  return EXIT.OK;
}

interface ConnectFlags {
  cwd?: string;
  json?: boolean;
  sandbox?: SandboxMode;
  /** May start a browser login (default: when on a terminal). */
  login?: boolean;
  /** --no-browser: print the login address only. */
  browser?: boolean;
}

/** A manager for one command's server (a browser login when allowed), closed by `run`'s end. */
async function withServer<T>(
  nameOrUrl: string,
  opts: ConnectFlags,
  interactive: boolean,
  run: (manager: McpManager, name: string, cfg: TeaConfig) => Promise<T>,
): Promise<T> {
  const cfg = await config(opts.cwd);
  const target = resolveTarget(cfg, nameOrUrl, howToAdd(cfg));
  const manager = new McpManager(new ToolRegistry(), target.servers, {
    home: cfg.home,
    cwd: workspaceDir(opts.cwd),
    clientInfo: { name: 'tea-agent', version: VERSION },
    sandbox: shellSetup(cfg, opts.sandbox).sandbox,
    sampling: cfg.mcpSampling,
    unattended: cfg.mcpElicitation.unattended,
    ...(target.adHoc ? { cache: false } : {}),
    ...(interactive
      ? { login: terminalLogin({ ...(opts.browser === false ? { browser: false } : {}) }) }
      : {}),
  });
  try {
    return await run(manager, target.name, cfg);
  } catch (error) {
    if (error instanceof ToolError) {
      throw new CliError(`${error.message}${error.hint ? `\n${error.hint}` : ''}`, EXIT.ERROR);
    }
    if (error instanceof Error && /disabled/.test(error.message)) throw new CliError(error.message);
    throw error;
  } finally {
    await manager.close();
  }
}

/** `tea mcp tools <server>`: connects, lists the tools and refreshes the cache. */
export async function listServerTools(name: string, opts: ConnectFlags): Promise<number> {
  return withServer(name, opts, mayLogIn(opts.login), async (manager, server) => {
    const tools = await manager.refresh(server);
    if (opts.json) {
      const out = tools.map((t) => ({ ...t, tool: bridgeName(server, t.name) }));
      process.stdout.write(jsonText(out));
      return EXIT.OK;
    }
    const width = Math.max(0, ...tools.map((t) => t.name.length));
    for (const t of tools) {
      process.stdout.write(`${t.name.padEnd(width)}  ${firstSentence(t.description ?? '')}\n`);
    }
    process.stdout.write(
      `\n${tools.length} tools; the model calls them as ${bridgeName(server, 'TOOL').replace(/TOOL$/, '<tool>')}\n`,
    );
    return EXIT.OK;
  });
}

function parseArgs(text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new CliError(`the tool's arguments are not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CliError('the tool\'s arguments must be a JSON object, e.g. \'{"path": "README.md"}\'');
  }
  return value as Record<string, unknown>;
}

/** `tea mcp call <server> <tool> [json]`: calls one tool and prints its result (exit 1 when the tool failed). */
export async function callServerTool(
  name: string,
  tool: string,
  argsJson: string | undefined,
  opts: ConnectFlags,
): Promise<number> {
  const args = parseArgs(argsJson);
  return withServer(name, opts, mayLogIn(opts.login), async (manager, server) => {
    const raw = await manager.connection(server).callTool(tool, args);
    if (opts.json) {
      process.stdout.write(jsonText(raw));
      return (raw as { isError?: unknown }).isError === true ? EXIT.ERROR : EXIT.OK;
    }
    try {
      const result = mapCallResult(raw, `${server}/${tool}`);
      process.stdout.write(`${result.output}\n`);
      return EXIT.OK;
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      process.stdout.write(`${error.message}\n`);
      return EXIT.ERROR;
    }
  });
}

/** `tea mcp login <server>`: a browser login; the tokens are stored for the server's URL. */
export async function loginServer(name: string, opts: ConnectFlags & { timeout?: number }): Promise<number> {
  const cfg = await config(opts.cwd);
  const target = resolveTarget(cfg, name, howToAdd(cfg));
  const file = forgetTokens(cfg, target);
  const url = urlOf(target, 'log in to');
  const manager = new McpManager(new ToolRegistry(), target.servers, {
    home: cfg.home,
    cwd: workspaceDir(opts.cwd),
    clientInfo: { name: 'tea-agent', version: VERSION },
    cache: false,
    login: terminalLogin({
      ...(opts.browser === false ? { browser: false } : {}),
      ...(opts.timeout ? { timeoutMs: opts.timeout * 1000 } : {}),
    }),
  });
  try {
    const tools = await manager.refresh(target.name);
    const stored = new OAuthStore(cfg.home, url).read().tokens !== undefined;
    process.stdout.write(
      stored
        ? `Logged in to MCP server "${target.name}" (${url}); ${tools.length} tools. The login is kept in ${file}.\n`
        : `MCP server "${target.name}" (${url}) did not ask for a login; ${tools.length} tools.\n`,
    );
    return EXIT.OK;
  } catch (error) {
    if (error instanceof ToolError) throw new CliError(`tea mcp login: ${error.message}`, EXIT.ERROR);
    throw error;
  } finally {
    await manager.close();
  }
}

/** `tea mcp logout <server>`. */
export async function logoutServer(name: string, opts: { cwd?: string }): Promise<number> {
  const cfg = await config(opts.cwd);
  return logout(cfg, resolveTarget(cfg, name, howToAdd(cfg)));
}

export interface ServeFlags {
  http?: boolean;
  port?: number;
  host?: string;
  token?: string;
  /** read-only | ask | auto-edit | yolo. */
  permissionMode?: string;
  /** The deprecated name of `--permission-mode`. */
  mode?: string;
  yolo?: boolean;
  allow?: string[];
  /** Directories file tools may use besides the workspace (added to `permissions.roots`). */
  addDir?: string[];
  cwd?: string;
  sandbox?: SandboxMode;
  /** Streamable HTTP / SSE sessions open at once, at most. */
  maxSessions?: number;
  /** Seconds an idle HTTP session lives. */
  sessionIdle?: number;
}

/** The mode, rules and roots of the config and the flags (`--yolo`, `--permission-mode`, `--allow`, `--add-dir`). */
function permissionsFor(cfg: TeaConfig, flags: ServeFlags, tools: readonly string[]) {
  const mode = flags.yolo ? 'yolo' : givenMode(flags);
  const settings = permissionSettings(
    cfg,
    { ...(mode ? { permissionMode: mode } : {}), allow: flags.allow ?? [], addDir: flags.addDir ?? [] },
    tools,
  );
  return { policy: new PermissionPolicy(settings.mode, settings.rules), roots: settings.roots };
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

/** `tea mcp serve`: Tea's tools for MCP clients, over stdio or streamable HTTP. */
export async function serveMcp(flags: ServeFlags): Promise<number> {
  const cfg = await config(flags.cwd);
  const registry = await builtinRegistry(cfg, shellSetup(cfg, flags.sandbox));
  const { policy, roots } = permissionsFor(cfg, flags, registry.names());
  const cwd = workspaceDir(flags.cwd);
  const { serveExtras, serveStdio } = await import('../runtime/mcp-serve.js');
  const { content } = serveExtras(cfg, registry, cwd, policy);
  const options = {
    registry,
    cwd,
    content,
    policy,
    allowedRoots: roots,
    serverInfo: { name: 'tea-agent', version: VERSION },
    maxOutputChars: cfg.tools.maxOutputChars,
    outputDir: path.join(cfg.home, 'tool-output'),
  };
  if (!flags.http) {
    process.stderr.write(`tea mcp serve: stdio, ${policy.mode} mode, workspace ${options.cwd}\n`);
    await serveStdio(options);
    content.close();
    return EXIT.OK;
  }
  const { serveHttp } = await import('../runtime/mcp-serve-http.js');
  const token = flags.token ?? process.env.TEA_MCP_TOKEN;
  let handle: Awaited<ReturnType<typeof serveHttp>>;
  try {
    handle = await serveHttp({
      ...options,
      host: flags.host ?? '127.0.0.1',
      port: flags.port ?? 0,
      ...(token ? { token } : {}),
      ...(flags.maxSessions ? { maxSessions: flags.maxSessions } : {}),
      ...(flags.sessionIdle ? { idleMs: flags.sessionIdle * 1000 } : {}),
      onSessionEvent: (message) => process.stderr.write(`tea mcp serve: ${message}\n`),
    });
  } catch (error) {
    throw new CliError(`tea mcp serve: ${(error as Error).message}`);
  }
  process.stderr.write(
    `tea mcp serve: listening on ${handle.url} (${policy.mode} mode; legacy SSE: ${handle.sseUrl})\n`,
  );
  await untilSignal();
  await handle.close();
  content.close();
  return EXIT.OK;
}
