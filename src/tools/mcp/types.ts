/** MCP servers as the runtime receives them from config, and the tool lists we cache. */
import type { McpOAuthSettings } from '../../util/mcp-oauth.js';

export type { McpOAuthSettings };

interface ServerCommon {
  /** Per-call time limit in milliseconds (absent: the manager's default). */
  timeoutMs?: number;
  /** Configured but switched off: no tools, never started. */
  disabled?: boolean;
  /**
   * False for servers from a project file (not the user's own config): their tools
   * never run without approval, whatever their annotations claim.
   */
  trusted?: boolean;
  /**
   * Who configured the server, for the hints of errors: Tea's config (default) or the
   * client that passed it (an editor over ACP, whose settings the user fixes instead).
   */
  from?: 'config' | 'client';
  /**
   * Whether Tea offers the server its roots (the workspace and added directories); a
   * server such as server-filesystem then serves them instead of the directories its
   * arguments name. Default (roots.ts): yes, unless a client passed the server
   * (`from: 'client'`) or its arguments name an existing directory.
   */
  roots?: boolean;
}

/** A server Tea starts as a child process and talks to over stdio. */
export interface McpStdioServerConfig extends ServerCommon {
  command: string;
  args?: string[];
  env?: Record<string, string>;
  /** Working directory of the server (relative: to the workspace). */
  cwd?: string;
  /** Run the server in the shell sandbox (opt-in), with or without the network. */
  sandbox?: { network: boolean };
}

/** A server reached over streamable HTTP (or the legacy HTTP+SSE transport). */
export interface McpHttpServerConfig extends ServerCommon {
  url: string;
  headers?: Record<string, string>;
  /** `http`: streamable HTTP only; `sse`: the legacy SSE transport only; absent: HTTP, falling back to SSE. */
  transport?: 'http' | 'sse';
  /** OAuth settings; false: never log in (a 401 is an error). */
  oauth?: McpOAuthSettings | false;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

export function isStdioServer(server: McpServerConfig): server is McpStdioServerConfig {
  return 'command' in server;
}

/** What an MCP server says about one of its tools (the part we keep). */
export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}
