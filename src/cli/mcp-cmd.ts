/** `tea mcp list | tools | serve`: loaded only when one of them runs. */
import path from 'node:path';
import { displayPath } from '../config/errors.js';
import { CONFIG_FILE } from '../config/files.js';
import { loadConfig } from '../config/load.js';
import type { McpServerSettings, TeaConfig } from '../config/types.js';
import { workspaceDir } from '../runtime/directories.js';
import { bridgeName, McpManager, readToolCache, ToolError, ToolRegistry } from '../runtime/mcp.js';
import { PermissionPolicy, permissionSettings } from '../runtime/permissions.js';
import { builtinRegistry, shellSetup } from '../runtime/tools.js';
import type { SandboxMode } from '../tools/sandbox/sandbox.js';
import { CliError, EXIT } from './exit.js';
import { jsonText } from './json-out.js';
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
    transport: 'command' in server ? 'stdio' : 'http',
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

/** `tea mcp tools <server>`: connects, lists the tools and refreshes the cache. */
export async function listServerTools(
  name: string,
  opts: { cwd?: string; json?: boolean; sandbox?: SandboxMode },
): Promise<number> {
  const cfg = await config(opts.cwd);
  if (!cfg.mcpServers[name]) {
    const known = Object.keys(cfg.mcpServers);
    throw new CliError(
      `no MCP server named "${name}"; ${known.length ? `configured: ${known.join(', ')}` : `none is configured; ${howToAdd(cfg)}`}`,
    );
  }
  const manager = new McpManager(new ToolRegistry(), cfg.mcpServers, {
    home: cfg.home,
    cwd: workspaceDir(opts.cwd),
    clientInfo: { name: 'tea-agent', version: VERSION },
    sandbox: shellSetup(cfg, opts.sandbox).sandbox,
  });
  try {
    const tools = await manager.refresh(name);
    if (opts.json) {
      const out = tools.map((t) => ({ ...t, tool: bridgeName(name, t.name) }));
      process.stdout.write(jsonText(out));
      return EXIT.OK;
    }
    const width = Math.max(0, ...tools.map((t) => t.name.length));
    for (const t of tools) {
      process.stdout.write(`${t.name.padEnd(width)}  ${firstSentence(t.description ?? '')}\n`);
    }
    process.stdout.write(
      `\n${tools.length} tools; the model calls them as ${bridgeName(name, 'TOOL').replace(/TOOL$/, '<tool>')}\n`,
    );
    return EXIT.OK;
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
