/**
 * The MCP servers of one runtime: their bridge tools in the registry (from the
 * cache at start-up, refreshed on every connection), one connection per server,
 * and discovery of servers that have no cached tool list yet.
 */
import { addToolDiscoverer } from '../loading.js';
import type { ToolRegistry } from '../registry.js';
import type { Sandbox } from '../sandbox/index.js';
import { bridgeTool } from './bridge.js';
import { readToolCache, writeToolCache } from './cache.js';
import { McpConnection } from './connection.js';
import type { LoginUi } from './oauth.js';
import { DEFAULT_SAMPLING_LIMITS, SamplingBudget, type SamplingLimits } from './sampling.js';
import { isStdioServer, type McpServerConfig, type McpToolInfo } from './types.js';

export interface McpManagerOptions {
  /** The data home; tool lists are cached in `<home>/mcp/`. */
  home: string;
  /** The workspace (relative server `cwd`s resolve against it); default: the process cwd. */
  cwd?: string;
  /** Problems that should not stop the run (a server that cannot start, a name clash). */
  warn?: (message: string) => void;
  /** Per-call time limit for servers without `timeoutMs` (default 60 s). */
  defaultTimeoutMs?: number;
  /** Time limit for starting a server and listing its tools (default 30 s, at least the call limit). */
  connectTimeoutMs?: number;
  clientInfo?: { name: string; version: string };
  /** Where stdio servers that opt in (`sandbox: true`) run; without one they run unsandboxed. */
  sandbox?: Sandbox;
  /**
   * Keep each server's tool list in `<home>/mcp/` (default true). Off for servers a
   * client passes for one session: the cache is by name, and such a name may be
   * another session's or the config's server.
   */
  cache?: boolean;
  /** Present when this run may log in to a remote server in a browser (else: a clear error). */
  login?: LoginUi;
  /** Directories added to the workspace: offered to servers as roots after it. */
  roots?: readonly string[];
  /** Token limits of the servers' sampling requests (config `mcp_sampling`). */
  sampling?: SamplingLimits;
  /** Elicitation where nobody can answer (config `mcp_elicitation.unattended`; default decline). */
  unattended?: 'decline' | 'defaults';
}

export const DEFAULT_MCP_TIMEOUT_MS = 60_000;
export const DEFAULT_MCP_CONNECT_TIMEOUT_MS = 30_000;

export class McpManager {
  private readonly connections = new Map<string, McpConnection>();
  /** Bridge tool name → the tool info it was built from (JSON), per server. */
  private readonly registered = new Map<string, Map<string, string>>();
  private readonly undiscovered = new Set<string>();
  private removeDiscoverer: (() => void) | undefined;
  private readonly budget: SamplingBudget;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly servers: Readonly<Record<string, McpServerConfig>>,
    private readonly opts: McpManagerOptions,
  ) {
    this.budget = new SamplingBudget(opts.sampling ?? DEFAULT_SAMPLING_LIMITS);
  }

  /** Enabled servers, in config order. */
  serverNames(): string[] {
    return Object.entries(this.servers)
      .filter(([, s]) => !s.disabled)
      .map(([name]) => name);
  }

  /** Every configured server with its settings, disabled ones included, in config order. */
  allServers(): Array<[string, McpServerConfig]> {
    return Object.entries(this.servers);
  }

  /** The bridge tool names currently registered for `server`. */
  toolNames(server: string): string[] {
    return [...(this.registered.get(server)?.keys() ?? [])];
  }

  /** Registers every enabled server's cached tools; servers without a cache wait for discovery. */
  registerCached(): void {
    for (const name of this.serverNames()) {
      const cached = readToolCache(this.opts.home, name);
      if (cached) this.sync(name, cached);
      else this.undiscovered.add(name);
    }
    if (this.undiscovered.size > 0 && !this.removeDiscoverer) {
      this.removeDiscoverer = addToolDiscoverer(this.registry, () => this.discover());
    }
  }

  /** Connects every server that has no cached tool list yet (each is tried once). */
  async discover(): Promise<void> {
    const pending = [...this.undiscovered];
    this.undiscovered.clear();
    this.removeDiscoverer?.();
    this.removeDiscoverer = undefined;
    await Promise.all(
      pending.map(async (name) => {
        try {
          await this.connection(name).connect();
        } catch (error) {
          this.opts.warn?.(error instanceof Error ? error.message : String(error));
        }
      }),
    );
  }

  /** The connection of an enabled server (created on first use; connects lazily). */
  connection(name: string): McpConnection {
    const existing = this.connections.get(name);
    if (existing) return existing;
    const server = this.servers[name];
    if (!server) {
      const known = Object.keys(this.servers);
      throw new Error(
        `no MCP server named "${name}"; ${known.length ? `configured: ${known.join(', ')}` : 'none is configured (mcp_servers in config.yaml)'}`,
      );
    }
    if (server.disabled) throw new Error(`MCP server "${name}" is disabled in the config`);
    const connection = new McpConnection({
      name,
      server,
      workspace: this.opts.cwd ?? process.cwd(),
      defaultTimeoutMs: this.opts.defaultTimeoutMs ?? DEFAULT_MCP_TIMEOUT_MS,
      connectTimeoutMs: this.opts.connectTimeoutMs ?? DEFAULT_MCP_CONNECT_TIMEOUT_MS,
      clientInfo: this.opts.clientInfo ?? { name: 'tea-agent', version: '0.1.0' },
      ...(this.opts.sandbox ? { sandbox: this.opts.sandbox } : {}),
      home: this.opts.home,
      ...(this.opts.login ? { login: this.opts.login } : {}),
      budget: this.budget,
      ...(this.opts.unattended ? { unattended: this.opts.unattended } : {}),
      ...(this.opts.roots?.length ? { extraRoots: this.opts.roots } : {}),
      onTools: (tools) => {
        this.undiscovered.delete(name);
        this.sync(name, tools);
        if (this.opts.cache === false) return;
        try {
          writeToolCache(this.opts.home, name, tools);
        } catch (error) {
          this.opts.warn?.(`cannot cache the tools of MCP server "${name}": ${(error as Error).message}`);
        }
      },
    });
    this.connections.set(name, connection);
    return connection;
  }

  /** Connects `server` if needed and returns its live tool list (the registry and cache follow). */
  async refresh(server: string): Promise<McpToolInfo[]> {
    const tools = await this.connection(server).listTools();
    this.sync(server, tools);
    if (this.opts.cache !== false) writeToolCache(this.opts.home, server, tools);
    return tools;
  }

  /** Makes the registry hold exactly `tools` for `server`: adds, replaces changed, removes gone. */
  private sync(server: string, tools: readonly McpToolInfo[]): void {
    const config = this.servers[server];
    if (!config) return;
    const before = this.registered.get(server) ?? new Map<string, string>();
    const after = new Map<string, string>();
    const timeoutMs = config.timeoutMs ?? this.opts.defaultTimeoutMs ?? DEFAULT_MCP_TIMEOUT_MS;
    for (const info of tools) {
      const tool = bridgeTool(info, {
        server,
        transport: isStdioServer(config) ? 'stdio' : 'http',
        trusted: config.trusted !== false,
        timeoutMs,
        call: (name, args, signal, ctx) => this.connection(server).callTool(name, args, signal, ctx),
      });
      const key = JSON.stringify(info);
      if (before.get(tool.name) === key) {
        after.set(tool.name, key);
        continue;
      }
      if (before.has(tool.name)) this.registry.unregister(tool.name);
      try {
        this.registry.register(tool);
        after.set(tool.name, key);
      } catch (error) {
        this.opts.warn?.(`MCP server "${server}": tool ${info.name} skipped: ${(error as Error).message}`);
      }
    }
    for (const name of before.keys()) if (!after.has(name)) this.registry.unregister(name);
    this.registered.set(server, after);
  }

  /** Stops every server and closes every connection. */
  async close(): Promise<void> {
    this.removeDiscoverer?.();
    this.removeDiscoverer = undefined;
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((c) => c.close()));
  }
}
