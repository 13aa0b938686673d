/** Turning MCP client failures into clear, model-readable ToolErrors. */
import { ToolError } from '../types.js';

/** JSON-RPC codes the MCP SDK uses for its own failures. */
export const MCP_CONNECTION_CLOSED = -32000;
export const MCP_REQUEST_TIMEOUT = -32001;

/** A request the server answered with a JSON-RPC error: its `code` kept for callers that map it (the web routes). */
export class McpRequestError extends ToolError {
  constructor(
    message: string,
    readonly code: unknown,
  ) {
    super(message);
  }
}

function field(error: unknown, key: string): unknown {
  return typeof error === 'object' && error !== null && key in error
    ? (error as Record<string, unknown>)[key]
    : undefined;
}

export function errorCode(error: unknown): unknown {
  return field(error, 'code');
}

/** The message of an error and of its cause (fetch hides ECONNREFUSED there). */
export function errorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = field(error, 'cause');
  const causeCode = field(cause, 'code');
  if (typeof causeCode === 'string' && !message.includes(causeCode)) return `${message} (${causeCode})`;
  return message;
}

/** The last lines a server wrote to stderr, as a hint suffix. */
export function stderrHint(tail: string): string {
  const lines = tail.trim().split('\n').slice(-5).join('\n');
  return lines ? `; its stderr ended with:\n${lines}` : '';
}

/** A start-up failure: the command could not run, or the server did not answer `initialize`. */
export function startError(
  server: string,
  what: string,
  error: unknown,
  stderrTail: string,
  from: 'config' | 'client' = 'config',
): ToolError {
  const code = field(error, 'code');
  const command =
    from === 'client'
      ? `the command the editor passes for MCP server "${server}"`
      : `mcp_servers.${server}.command`;
  if (code === 'ENOENT') {
    return new ToolError(
      `MCP server "${server}": cannot start ${what}: command not found (ENOENT)`,
      `check ${command}${from === 'client' ? '' : ' in your config'}: is the program installed and on PATH?`,
    );
  }
  if (code === 'EACCES') {
    return new ToolError(
      `MCP server "${server}": cannot start ${what}: permission denied (EACCES)`,
      `make ${command} executable, or run it through its interpreter`,
    );
  }
  if (code === MCP_REQUEST_TIMEOUT) {
    const slow =
      from === 'client' ? '' : ` A server that starts slowly needs a larger mcp_servers.${server}.timeout_s`;
    return new ToolError(
      `MCP server "${server}" (${what}) did not answer the MCP handshake in time`,
      `is it an MCP server?${slow}${stderrHint(stderrTail)}`,
    );
  }
  if (code === MCP_CONNECTION_CLOSED) {
    return new ToolError(
      `MCP server "${server}" (${what}) exited during start-up`,
      `run the command by hand to see why${stderrHint(stderrTail)}`,
    );
  }
  return new ToolError(
    `MCP server "${server}": cannot connect to ${what}: ${errorText(error)}`,
    `${from === 'client' ? `check the settings the editor passes for MCP server "${server}"` : `check mcp_servers.${server} in your config`}${stderrHint(stderrTail)}`,
  );
}
