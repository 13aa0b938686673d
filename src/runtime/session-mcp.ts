/**
 * MCP servers for one session alone (an editor passes them with the session): they
 * are connected into an overlay of the runtime's tool registry that only that
 * session sees, before the session starts, and stopped with it. Their tool lists are
 * not cached (the cache is by server name, and such a name may be another session's
 * or the config's server).
 */
import { McpManager, type McpServerConfig, type SamplingLimits } from '../tools/mcp/index.js';
import type { ToolRegistry } from '../tools/registry.js';
import { ToolError } from '../tools/types.js';

export interface SessionMcpOptions {
  /** Tea's data home. */
  home: string;
  warn: (message: string) => void;
  clientInfo?: { name: string; version: string };
  /** Time limit for starting one server and listing its tools (default: the MCP client's, 30 s). */
  connectTimeoutMs?: number;
  /** Token limits of the servers' sampling requests (config `mcp_sampling`). */
  sampling?: SamplingLimits;
  /** Elicitation where nobody can answer (config `mcp_elicitation.unattended`). */
  unattended?: 'decline' | 'defaults';
}

/** The tools one session sees, and how to stop the servers behind them. */
export interface SessionMcp {
  /** An overlay of the shared registry holding the servers' tools (the shared one itself when none). */
  tools: ToolRegistry;
  /** Stops the session's servers (idempotent). */
  close(): Promise<void>;
}

/** A session's MCP server could not be connected. */
export class McpConnectError extends Error {
  constructor(
    readonly server: string,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'McpConnectError';
  }
}

export interface SessionMcpConnector {
  /**
   * Connects `servers` into a new overlay of `base`. Rejects with an `McpConnectError`
   * naming the first server that could not be connected (the others are stopped again).
   */
  connect(
    base: ToolRegistry,
    servers: Readonly<Record<string, McpServerConfig>>,
    cwd: string,
  ): Promise<SessionMcp>;
  /** Stops every session's servers (on exit). */
  close(): Promise<void>;
}

export function sessionMcpConnector(opts: SessionMcpOptions): SessionMcpConnector {
  const open = new Set<McpManager>();
  return {
    async connect(base, servers, cwd) {
      const names = Object.keys(servers);
      if (names.length === 0) return { tools: base, close: async () => undefined };
      const tools = base.overlay();
      const manager = new McpManager(tools, servers, {
        home: opts.home,
        cwd,
        warn: opts.warn,
        cache: false,
        ...(opts.clientInfo ? { clientInfo: opts.clientInfo } : {}),
        ...(opts.sampling ? { sampling: opts.sampling } : {}),
        ...(opts.unattended ? { unattended: opts.unattended } : {}),
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
        const name = names[failed]!;
        const error: unknown = (results[failed] as PromiseRejectedResult).reason;
        const message = error instanceof Error ? error.message : String(error);
        const hint = error instanceof ToolError ? error.hint : undefined;
        throw new McpConnectError(
          name,
          message.includes(`"${name}"`) ? message : `MCP server "${name}": ${message}`,
          hint,
        );
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
