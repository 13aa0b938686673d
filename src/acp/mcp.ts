/**
 * MCP servers an editor passes with `session/new` / `session/load`, connected
 * through Tea's MCP client for that session alone: their tools
 * (`mcp__<server>__<tool>`) go into an overlay of the shared tool registry that only
 * the session sees, so another session neither sees nor calls them, and two
 * sessions may each have a server of the same name with other settings.
 *
 * The servers are connected before the session is answered (a prompt sent right
 * after `session/new` finds their tools), and a server that cannot be connected
 * fails the request with an error naming it.
 */
import { type McpServer, RequestError } from '@agentclientprotocol/sdk';
import { McpManager, type McpServerConfig } from '../tools/mcp/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import { ToolError } from '../tools/types.js';

export interface McpConnectorOptions {
  /** Tea's data home. */
  home: string;
  warn: (message: string) => void;
  clientInfo?: { name: string; version: string };
  /** Time limit for starting one server and listing its tools (default: the MCP client's, 30 s). */
  connectTimeoutMs?: number;
}

/** The tools one session sees, and how to stop the servers behind them. */
export interface SessionMcp {
  /** An overlay of the shared registry holding the servers' tools (the shared one itself when none). */
  tools: ToolRegistry;
  /** Stops the session's servers (idempotent). */
  close(): Promise<void>;
}

export interface McpConnector {
  /**
   * Connects `servers` into a new overlay of `base`. Rejects with a JSON-RPC error
   * naming the server when one cannot be connected (the others are stopped again).
   */
  connect(base: ToolRegistry, servers: readonly McpServer[], cwd: string): Promise<SessionMcp>;
  /** Stops every session's servers (on exit). */
  close(): Promise<void>;
}

const pairs = (list: ReadonlyArray<{ name: string; value: string }>): Record<string, string> =>
  Object.fromEntries(list.map((p) => [p.name, p.value]));

/** An ACP server description as Tea's MCP config; undefined for transports Tea does not speak (SSE). */
export function toMcpConfig(server: McpServer): McpServerConfig | undefined {
  const common = { trusted: true, from: 'client' } as const;
  if ('type' in server && server.type === 'sse') return undefined;
  if ('url' in server) return { url: server.url, headers: pairs(server.headers), ...common };
  return { command: server.command, args: server.args, env: pairs(server.env), ...common };
}

/** The servers as Tea's MCP config: SSE ones are left out with a warning, a repeated name is refused. */
function configsOf(
  servers: readonly McpServer[],
  warn: (m: string) => void,
): Record<string, McpServerConfig> {
  const configs: Record<string, McpServerConfig> = {};
  for (const server of servers) {
    if (Object.hasOwn(configs, server.name)) {
      throw RequestError.invalidParams(
        { mcpServer: server.name },
        `two MCP servers are named "${server.name}"; give each server of a session its own name`,
      );
    }
    const config = toMcpConfig(server);
    if (!config) {
      warn(`MCP server "${server.name}" uses SSE, which Tea does not support; use stdio or http`);
      continue;
    }
    configs[server.name] = config;
  }
  return configs;
}

/** Why a server could not be connected, as one JSON-RPC error naming it. */
function connectError(name: string, error: unknown): RequestError {
  const message = error instanceof Error ? error.message : String(error);
  const hint = error instanceof ToolError && error.hint ? `\nHint: ${error.hint}` : '';
  const what = message.includes(`"${name}"`) ? message : `MCP server "${name}": ${message}`;
  return RequestError.invalidParams(
    { mcpServer: name },
    `could not connect the MCP server "${name}", so the session was not opened: ${what}${hint}`,
  );
}

export function mcpConnector(opts: McpConnectorOptions): McpConnector {
  const open = new Set<McpManager>();
  return {
    async connect(base, servers, cwd) {
      const configs = configsOf(servers, opts.warn);
      const names = Object.keys(configs);
      if (names.length === 0) return { tools: base, close: async () => undefined };
      const tools = base.overlay();
      const manager = new McpManager(tools, configs, {
        home: opts.home,
        cwd,
        warn: opts.warn,
        cache: false,
        ...(opts.clientInfo ? { clientInfo: opts.clientInfo } : {}),
        ...(opts.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: opts.connectTimeoutMs }),
      });
      open.add(manager);
      const close = async (): Promise<void> => {
        open.delete(manager);
        await manager.close();
      };
      const results = await Promise.allSettled(names.map((name) => manager.connection(name).connect()));
      const failed = results.findIndex((r) => r.status === 'rejected');
      if (failed >= 0) {
        await close();
        throw connectError(names[failed]!, (results[failed] as PromiseRejectedResult).reason);
      }
      return { tools, close };
    },
    async close() {
      const all = [...open];
      open.clear();
      await Promise.all(all.map((m) => m.close()));
    },
  };
}
