/** tool_search and tool_list: how the model finds and loads tools beyond the core tier. */
import * as z from 'zod';
import { rankTools } from '../loading.js';
import type { ToolRegistry } from '../registry.js';
import { defineTool, type Tool, type ToolContext, ToolError, type ToolInfo, type ToolSet } from '../types.js';

function oneLine(text: string, max = 110): string {
  const first = text.split(/(?<=\.)\s/)[0] ?? text;
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}

function load(ctx: ToolContext, names: string[]): void {
  ctx.host?.loadTools(names);
}

/**
 * tool_search and tool_list over `registry`, or over the registry a call runs in when
 * the runner says (`ctx.tools`: a session's overlay, with the session's own tools).
 */
export function metaTools(registry: ToolRegistry): Tool[] {
  const toolsOf = (ctx: ToolContext): ToolSet => ctx.tools ?? registry;
  const toolSearch = defineTool({
    name: 'tool_search',
    description: 'Find tools by intent (or exact names) and load their schemas for your next call.',
    parameters: z.object({
      query: z.string().optional().describe('what you want to do'),
      names: z.array(z.string()).optional().describe('exact tool names to load'),
      limit: z.number().int().min(1).max(15).optional().describe('max results (5)'),
    }),
    category: 'meta',
    keywords: ['tool', 'tools', 'find tool', 'capability', '工具'],
    readOnly: true,
    concurrencySafe: false,
    approval: 'none',
    async execute(args, ctx) {
      if (!args.query && (!args.names || args.names.length === 0)) {
        throw new ToolError('give a query or names', 'e.g. {"query": "commit changes to git"}');
      }
      const registry = toolsOf(ctx);
      await registry.discover();
      const found = new Map<string, ToolInfo>();
      const unknown: string[] = [];
      for (const name of args.names ?? []) {
        const tool = registry.get(name);
        if (tool) found.set(name, tool);
        else unknown.push(name);
      }
      if (args.query)
        for (const tool of rankTools(registry, args.query, args.limit ?? 5)) found.set(tool.name, tool);
      if (found.size === 0) {
        const near = unknown.flatMap((n) => registry.closest(n, 2));
        throw new ToolError(
          `no tool matches ${JSON.stringify(args.query ?? unknown.join(', '))}`,
          near.length > 0
            ? `did you mean: ${near.join(', ')}?`
            : 'try other words, or tool_list to see every tool',
        );
      }
      load(ctx, [...found.keys()]);
      const lines = [...found.values()].map((t) => `- ${t.name} (${t.category}): ${oneLine(t.description)}`);
      if (unknown.length > 0) lines.push(`unknown names: ${unknown.join(', ')}`);
      return `Loaded ${found.size} tool(s); call them directly now:\n${lines.join('\n')}`;
    },
  });

  const toolList = defineTool({
    name: 'tool_list',
    description: 'List every available tool by category with a one-line description (loaded ones marked *).',
    parameters: z.object({ category: z.string().optional().describe('only this category') }),
    category: 'meta',
    keywords: ['tools', 'list tools', 'what can you do'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    async execute(args, ctx) {
      const registry = toolsOf(ctx);
      await registry.discover();
      const loaded = new Set(ctx.host?.loadedTools() ?? registry.names());
      const tools = registry.list().filter((t) => !args.category || t.category === args.category);
      if (tools.length === 0) {
        const categories = [...new Set(registry.list().map((t) => t.category))].sort();
        throw new ToolError(
          `no category ${JSON.stringify(args.category)}`,
          `categories: ${categories.join(', ')}`,
        );
      }
      const byCategory = new Map<string, string[]>();
      for (const t of tools) {
        const line = `  ${loaded.has(t.name) ? '*' : ' '} ${t.name}: ${oneLine(t.description, 90)}`;
        byCategory.set(t.category, [...(byCategory.get(t.category) ?? []), line]);
      }
      return [...byCategory].map(([c, lines]) => `${c}:\n${lines.join('\n')}`).join('\n');
    },
  });
  return [toolSearch, toolList];
}
