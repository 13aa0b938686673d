/**
 * Two tools give the model what MCP servers offer besides tools: `mcp_resource`
 * lists and reads resources (documents, records, files a server exposes) and
 * `mcp_prompt` lists and fills in prompts (templates a server offers). Two tools for
 * every server, instead of one per resource or prompt, keep the tool list short.
 */
import * as z from 'zod';
import { defineTool, type Tool, ToolError, type ToolResult } from '../types.js';
import { MCP_CATEGORY } from './bridge.js';
import { getPrompt, listPrompts, listResources, readResource } from './catalog.js';
import type { McpManager } from './manager.js';

const MAX_LISTED = 200;

function serverOf(manager: McpManager, server: string | undefined): string[] {
  const names = manager.serverNames();
  if (server === undefined) return names;
  if (!names.includes(server)) {
    throw new ToolError(
      `no MCP server named "${server}"`,
      names.length ? `servers: ${names.join(', ')}` : 'no MCP server is configured',
    );
  }
  return [server];
}

/** A server that fails to list is reported in the output; the others still are. */
async function perServer(
  names: string[],
  list: (name: string) => Promise<string[]>,
  empty: string,
): Promise<string> {
  const blocks = await Promise.all(
    names.map(async (name) => {
      try {
        const lines = await list(name);
        return lines.length ? [`${name}:`, ...lines.slice(0, MAX_LISTED)].join('\n') : `${name}: ${empty}`;
      } catch (error) {
        return `${name}: [ERROR] ${error instanceof Error ? error.message : String(error)}`;
      }
    }),
  );
  return blocks.join('\n\n');
}

export function resourceTool(manager: McpManager): Tool {
  const params = z.object({
    action: z.enum(['list', 'read']).describe('list: the resources of one server or all; read: one resource'),
    server: z.string().optional().describe('the MCP server (for read: required)'),
    uri: z.string().optional().describe('for read: the resource URI (from list, or a filled-in template)'),
  });
  return defineTool({
    name: 'mcp_resource',
    description:
      'Lists or reads resources (documents, records, files) that the configured MCP servers expose. ' +
      'list first; read takes a server and a URI.',
    parameters: params,
    category: MCP_CATEGORY,
    keywords: ['mcp', 'resource', 'resources', ...manager.serverNames()],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    subject: (args) => (args.uri ? `${args.server ?? ''} ${args.uri}` : (args.server ?? '')),
    async execute(args): Promise<string | ToolResult> {
      if (args.action === 'list') {
        return perServer(
          serverOf(manager, args.server),
          async (name) => {
            const { resources, templates } = await listResources(manager, name);
            return [
              ...resources.map(
                (r) =>
                  `- ${r.uri} (${r.name}${r.mimeType ? `, ${r.mimeType}` : ''})${r.description ? `: ${r.description}` : ''}`,
              ),
              ...templates.map(
                (t) => `- template ${t.uriTemplate} (${t.name})${t.description ? `: ${t.description}` : ''}`,
              ),
            ];
          },
          'no resources',
        );
      }
      if (!args.server || !args.uri)
        throw new ToolError('read needs server and uri', 'list the resources first');
      const [server] = serverOf(manager, args.server);
      const r = await readResource(manager, server!, args.uri);
      return {
        output: r.text || '(empty resource)',
        ...(r.images.length
          ? {
              images: r.images.map((i) => ({ type: 'image' as const, mediaType: i.mediaType, data: i.data })),
            }
          : {}),
      };
    },
  });
}

export function promptTool(manager: McpManager): Tool {
  const params = z.object({
    action: z
      .enum(['list', 'get'])
      .describe('list: the prompts of one server or all; get: one prompt, filled in'),
    server: z.string().optional().describe('the MCP server (for get: required)'),
    name: z.string().optional().describe('for get: the prompt name'),
    arguments: z.record(z.string(), z.string()).optional().describe("for get: the prompt's arguments"),
  });
  return defineTool({
    name: 'mcp_prompt',
    description:
      'Lists or fills in prompt templates that the configured MCP servers offer; get returns the messages to follow.',
    parameters: params,
    category: MCP_CATEGORY,
    keywords: ['mcp', 'prompt', 'prompts', 'template', ...manager.serverNames()],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    subject: (args) => `${args.server ?? ''} ${args.name ?? ''}`.trim(),
    async execute(args) {
      if (args.action === 'list') {
        return perServer(
          serverOf(manager, args.server),
          async (name) =>
            (await listPrompts(manager, name)).map((p) => {
              const params = p.arguments.map((a) => `${a.name}${a.required ? '' : '?'}`).join(', ');
              return `- ${p.name}(${params})${p.description ? `: ${p.description}` : ''}`;
            }),
          'no prompts',
        );
      }
      if (!args.server || !args.name)
        throw new ToolError('get needs server and name', 'list the prompts first');
      const [server] = serverOf(manager, args.server);
      const r = await getPrompt(manager, server!, args.name, args.arguments ?? {});
      return r.messages.map((m) => `${m.role}: ${m.text}`).join('\n\n');
    },
  });
}
