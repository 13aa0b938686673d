/**
 * MCP servers an editor passes with `session/new` / `session/load`, connected
 * through Tea's MCP client (`attachMcp`). Their tools join the runtime's registry
 * as `mcp__<server>__<tool>`; a server is attached once per process.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import { attachMcp, type McpManager, type McpServerConfig } from '../tools/mcp/index.js';
import type { ToolRegistry } from '../tools/registry.js';

export interface McpAttacherOptions {
  tools: ToolRegistry;
  /** Tea's data home (tool lists are cached under it). */
  home: string;
  warn: (message: string) => void;
  clientInfo?: { name: string; version: string };
}

export interface McpAttacher {
  /** Registers the servers' tools and starts connecting them in the background. */
  attach(servers: readonly McpServer[], cwd: string): Promise<void>;
  close(): Promise<void>;
}

const pairs = (list: ReadonlyArray<{ name: string; value: string }>): Record<string, string> =>
  Object.fromEntries(list.map((p) => [p.name, p.value]));

/** An ACP server description as Tea's MCP config; undefined for transports Tea does not speak (SSE). */
export function toMcpConfig(server: McpServer): McpServerConfig | undefined {
  if ('type' in server && server.type === 'sse') return undefined;
  if ('url' in server) return { url: server.url, headers: pairs(server.headers), trusted: true };
  return { command: server.command, args: server.args, env: pairs(server.env), trusted: true };
}

export function mcpAttacher(opts: McpAttacherOptions): McpAttacher {
  const managers: McpManager[] = [];
  const attached = new Map<string, string>();
  return {
    async attach(servers, cwd) {
      const fresh: Record<string, McpServerConfig> = {};
      for (const server of servers) {
        const config = toMcpConfig(server);
        if (!config) {
          opts.warn(`MCP server "${server.name}" uses SSE, which Tea does not support; use stdio or http`);
          continue;
        }
        const key = JSON.stringify(config);
        const known = attached.get(server.name);
        if (known === key) continue;
        if (known !== undefined) {
          opts.warn(
            `MCP server "${server.name}" is already attached with another configuration; keeping the first`,
          );
          continue;
        }
        attached.set(server.name, key);
        fresh[server.name] = config;
      }
      if (Object.keys(fresh).length === 0) return;
      const manager = await attachMcp(opts.tools, fresh, {
        home: opts.home,
        cwd,
        warn: opts.warn,
        ...(opts.clientInfo ? { clientInfo: opts.clientInfo } : {}),
      });
      managers.push(manager);
      // Connect now (in the background) so the tools are there for the first prompts.
      void manager.discover();
    },
    async close() {
      await Promise.all(managers.splice(0).map((m) => m.close()));
    },
  };
}
