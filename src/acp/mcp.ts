/**
 * MCP servers an editor passes with `session/new` / `session/load`, for that session
 * alone (runtime/session-mcp.ts): their tools (`mcp__<server>__<tool>`) go into an
 * overlay of the shared tool registry that only the session sees, so another session
 * neither sees nor calls them, and two sessions may each have a server of the same
 * name with other settings.
 *
 * The servers are connected before the session is answered (a prompt sent right
 * after `session/new` finds their tools), and a server that cannot be connected
 * fails the request with an error naming it.
 */
import { type McpServer, RequestError } from '@agentclientprotocol/sdk';
import {
  McpConnectError,
  type SessionMcp,
  type SessionMcpOptions,
  sessionMcpConnector,
} from '../runtime/session-mcp.js';
import type { McpServerConfig } from '../tools/mcp/index.js';
import type { ToolRegistry } from '../tools/registry.js';

export type { SessionMcp } from '../runtime/session-mcp.js';

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

export function mcpConnector(opts: SessionMcpOptions): McpConnector {
  const connector = sessionMcpConnector(opts);
  return {
    async connect(base, servers, cwd) {
      try {
        return await connector.connect(base, configsOf(servers, opts.warn), cwd);
      } catch (error) {
        if (!(error instanceof McpConnectError)) throw error;
        const hint = error.hint ? `\nHint: ${error.hint}` : '';
        throw RequestError.invalidParams(
          { mcpServer: error.server },
          `could not connect the MCP server "${error.server}", so the session was not opened: ${error.message}${hint}`,
        );
      }
    },
    close: () => connector.close(),
  };
}
