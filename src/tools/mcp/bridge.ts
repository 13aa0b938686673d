/** An MCP server's tool as a Tea tool named `mcp__<server>__<tool>`. */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { type ApprovalClass, defineTool, type Tool, type ToolContext } from '../types.js';
import { mapCallResult } from './result.js';
import type { McpToolInfo } from './types.js';

export const MCP_CATEGORY = 'mcp';
const MAX_NAME = 64;

/** Names the model APIs accept: letters, digits, `_` and `-`. */
function safe(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** `mcp__<server>__<tool>`, shortened with a hash suffix when it passes 64 characters. */
export function bridgeName(server: string, tool: string): string {
  const name = `mcp__${safe(server)}__${safe(tool)}`;
  if (name.length <= MAX_NAME) return name;
  const hash = createHash('sha256').update(`${server}\u0000${tool}`).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_NAME - 9)}_${hash}`;
}

export interface BridgeOptions {
  server: string;
  /** HTTP servers reach the network: their write-capable tools need 'network' approval. */
  transport: 'stdio' | 'http';
  /** False for project-file servers: their read-only claims are not believed. */
  trusted: boolean;
  /** Per-call time limit of the MCP request (the runner allows a little more). */
  timeoutMs: number;
  /** `ctx`: the calling session's side, for the server's sampling and elicitation requests. */
  call(tool: string, args: Record<string, unknown>, signal: AbortSignal, ctx?: ToolContext): Promise<unknown>;
}

/** The approval class: read-only tools of trusted servers run freely; others as exec or network. */
export function approvalFor(
  info: McpToolInfo,
  opts: Pick<BridgeOptions, 'transport' | 'trusted'>,
): ApprovalClass {
  if (opts.trusted && info.annotations?.readOnlyHint === true) return 'none';
  return opts.transport === 'http' ? 'network' : 'exec';
}

export function bridgeTool(info: McpToolInfo, opts: BridgeOptions): Tool {
  const approval = approvalFor(info, opts);
  const description = (info.description ?? info.annotations?.title ?? '').trim();
  return defineTool({
    name: bridgeName(opts.server, info.name),
    description: description
      ? `${description} (MCP server ${opts.server})`
      : `Tool ${info.name} of MCP server ${opts.server}.`,
    parameters: z.looseObject({}),
    inputSchema: info.inputSchema,
    category: MCP_CATEGORY,
    // Only the server's name: tool-name words (read, file, get) would pre-load MCP tools on every prompt.
    keywords: [opts.server],
    readOnly: approval === 'none',
    concurrencySafe: approval === 'none',
    approval,
    // The MCP request times out first, with a message naming the server.
    timeoutMs: opts.timeoutMs + 1_000,
    async execute(args, ctx) {
      const result = await opts.call(info.name, args, ctx.signal, ctx);
      return mapCallResult(result, `MCP tool ${info.name} (server ${opts.server})`);
    },
  });
}
