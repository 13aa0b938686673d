/**
 * The MCP server side: a registry's tools offered to MCP clients. Every call runs
 * through `runTool` under a fixed permission policy; nobody can answer an approval
 * request here, so a call the policy would ask about is refused with a clear result.
 */

import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { authorizeCall, type Unanswerable } from '../authorize.js';
import type { PermissionPolicy } from '../permissions.js';
import type { ToolRegistry } from '../registry.js';
import type { Authorization } from '../run.js';
import type { Tool, ToolContext, ToolInfo } from '../types.js';
import { registerCalls } from './serve-calls.js';
import { contentCapabilities, registerContent, type ServedContent } from './serve-content.js';

export interface McpServeOptions {
  /** The tools to offer (those needing a session, like ask_user, are left out). */
  registry: ToolRegistry;
  /** The workspace file tools work in. */
  cwd: string;
  policy: PermissionPolicy;
  allowedRoots?: string[];
  serverInfo?: { name: string; version: string };
  maxOutputChars?: number;
  /** Where truncated outputs are saved in full. */
  outputDir?: string;
  /** Tools not to offer; default: those that need an interactive session. */
  exclude?: (tool: ToolInfo) => boolean;
  /** Resources and prompts besides the tools (absent: tools only). */
  content?: ServedContent;
  /** How often a long call reports it is still running, to a client that asked for progress (ms). */
  heartbeatMs?: number;
}

/** Tools that only work inside an agent session (they ask the user, steer the model or start sub-agents). */
const SESSION_CATEGORIES = new Set(['meta', 'interaction', 'agents']);
const SESSION_TOOLS = new Set(['history_search', 'notify']);

export function needsSession(tool: ToolInfo): boolean {
  return SESSION_CATEGORIES.has(tool.category) || SESSION_TOOLS.has(tool.name);
}

/** A registry holding only the tools to offer (so unknown-name hints stay within them). */
export function servedRegistry(opts: Pick<McpServeOptions, 'registry' | 'exclude'>): ToolRegistry {
  const exclude = opts.exclude ?? needsSession;
  return opts.registry.subset((tool) => !exclude(tool));
}

/** Nobody can answer an ask over MCP: it is refused, with the flags that would let it run. */
function unanswerable(r: Unanswerable): string {
  const rewrite =
    r.verdict.part !== undefined && r.flags === undefined ? 'write the command without that part; ' : '';
  return (
    `[DENIED] ${r.label} needs approval (${r.verdict.reason}), and nobody can approve calls made over MCP.\n` +
    `Hint: ${rewrite}the user can restart tea mcp serve with --yolo${r.flags ? `, or ${r.flags}` : ''}.`
  );
}

/** The permission entry point for calls over MCP: the policy decides, and an ask is a refusal. */
export function authorizer(
  policy: PermissionPolicy,
): (tool: Tool, args: unknown, ctx?: Pick<ToolContext, 'cwd' | 'allowedRoots'>) => Promise<Authorization> {
  return (tool, args, ctx) =>
    authorizeCall(tool, args, {
      policy,
      where: { ...(ctx ? { cwd: ctx.cwd } : {}), ...(ctx?.allowedRoots ? { roots: ctx.allowedRoots } : {}) },
      unanswerable,
      remedy: (flags) => `the user can restart tea mcp serve with ${flags}`,
    });
}

/** The JSON Schema dialect zod writes tools' parameters in, and MCP's default. */
export const JSON_SCHEMA_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

function annotations(tool: ToolInfo) {
  return {
    readOnlyHint: tool.readOnly,
    destructiveHint: tool.approval === 'write' || tool.approval === 'exec',
    openWorldHint: tool.approval === 'network',
  };
}

/** An MCP `Server` (not yet connected to a transport) offering the served tools and content. */
export async function createToolServer(
  opts: McpServeOptions,
  served = servedRegistry(opts),
): Promise<Server> {
  const [{ Server }, { ListToolsRequestSchema }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/index.js'),
    import('@modelcontextprotocol/sdk/types.js'),
  ]);
  const server = new Server(opts.serverInfo ?? { name: 'tea-agent', version: '0.1.0' }, {
    // logging: logging/setLevel is answered (serve-calls.ts) and honoured.
    capabilities: { tools: {}, logging: {}, ...contentCapabilities(opts.content) },
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: served.list().map((tool) => {
      const spec = served.specs([tool.name])[0]!;
      // The dialect the schema is written in (SEP-1613): a remote tool's own, else zod's 2020-12.
      const own = (tool as { inputSchema?: { $schema?: unknown } }).inputSchema?.$schema;
      return {
        name: tool.name,
        description: tool.description,
        inputSchema: {
          $schema: typeof own === 'string' ? own : JSON_SCHEMA_2020_12,
          ...spec.parameters,
          type: 'object' as const,
        },
        annotations: annotations(tool),
      };
    }),
  }));
  const authorize = authorizer(opts.policy);
  await registerCalls(server, {
    served,
    cwd: opts.cwd,
    ...(opts.allowedRoots ? { allowedRoots: opts.allowedRoots } : {}),
    policy: opts.policy,
    authorize: (tool, args) =>
      authorize(tool, args, {
        cwd: opts.cwd,
        ...(opts.allowedRoots ? { allowedRoots: opts.allowedRoots } : {}),
      }),
    ...(opts.maxOutputChars ? { maxOutputChars: opts.maxOutputChars } : {}),
    ...(opts.outputDir ? { outputDir: opts.outputDir } : {}),
    ...(opts.heartbeatMs ? { heartbeatMs: opts.heartbeatMs } : {}),
  });
  await registerContent(server, opts.content);
  return server;
}

/** Serves over stdin/stdout until stdin ends; resolves then. Nothing else may write to stdout. */
export async function serveStdio(opts: McpServeOptions): Promise<void> {
  const { StdioServerTransport } = await import('@modelcontextprotocol/sdk/server/stdio.js');
  const server = await createToolServer(opts);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    const before = server.onclose;
    server.onclose = () => {
      before?.();
      resolve();
    };
  });
  await server.connect(transport);
  const unanswered = trackRequests(transport);
  // The client hung up: answer the requests already received, then stop.
  process.stdin.once('end', () => void unanswered().then(() => server.close()));
  await closed;
}

/**
 * Counts requests received and not yet answered on a connected transport; the
 * returned function resolves once none are left.
 */
function trackRequests(transport: Transport): () => Promise<void> {
  const pending = new Set<string | number>();
  let waiters: Array<() => void> = [];
  const receive = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if ('method' in message && 'id' in message) pending.add(message.id);
    receive?.(message, extra);
  };
  const send = transport.send.bind(transport);
  transport.send = async (message, options) => {
    await send(message, options);
    if (!('method' in message) && 'id' in message && message.id !== undefined) {
      pending.delete(message.id);
      if (pending.size === 0) for (const done of waiters.splice(0)) done();
    }
  };
  return () =>
    pending.size === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          waiters = [...waiters, resolve];
        });
}
