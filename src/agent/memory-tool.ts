/** The agent's `memory` tool: add, search, update, delete, pin and list long-term memories. */
import * as z from 'zod';
import type { MemoryService } from '../memory/service.js';
import { CATEGORIES, type Category, type Memory } from '../memory/types.js';
import { defineTool, type Tool, ToolError } from '../tools/types.js';

function line(m: Memory): string {
  const flags = [
    m.pinned ? 'pinned' : '',
    m.expiresAt ? `due ${new Date(m.expiresAt).toISOString().slice(0, 10)}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `#${m.id} [${m.category}, P${m.priority}, importance ${m.importance}${flags ? `, ${flags}` : ''}] ${m.content}`;
}

export function memoryTool(service: MemoryService, scopes: () => string[]): Tool {
  return defineTool({
    name: 'memory',
    description:
      'Long-term memory across sessions: add a durable fact, preference, instruction or reminder; search, list, update, pin or delete memories.',
    parameters: z.object({
      action: z.enum(['add', 'search', 'list', 'update', 'delete', 'pin', 'unpin']),
      content: z.string().optional().describe('add/update: the memory text'),
      category: z
        .enum(CATEGORIES as [Category, ...Category[]])
        .optional()
        .describe('add: kind (default fact)'),
      importance: z.number().int().min(1).max(5).optional(),
      query: z.string().optional().describe('search: what to look for'),
      id: z.number().int().optional().describe('update/delete/pin: memory id'),
      limit: z.number().int().min(1).max(50).optional(),
      scope: z.enum(['user', 'project']).optional().describe('add: about the user (default) or this project'),
    }),
    category: 'memory',
    keywords: ['remember', 'memory', 'memorize', 'forget', 'recall', 'preference', '记住', '记忆', '忘记'],
    readOnly: false,
    concurrencySafe: false,
    approval: 'none',
    async execute(args) {
      const need = <T>(value: T | undefined, what: string): T => {
        if (value === undefined || value === '') throw new ToolError(`${args.action} needs ${what}`);
        return value;
      };
      switch (args.action) {
        case 'add': {
          const r = await service.remember({
            content: need(args.content, 'content'),
            category: args.category ?? 'fact',
            ...(args.importance ? { importance: args.importance } : {}),
            scope: args.scope === 'project' ? (scopes()[0] ?? 'user') : 'user',
          });
          const was = r.superseded ? ` (replaces #${r.superseded.id}: ${r.superseded.content})` : '';
          return `${r.outcome === 'duplicate' ? 'Already remembered' : 'Remembered'}: ${line(r.memory)}${was}`;
        }
        case 'search': {
          const hits = await service.search(need(args.query, 'query'), {
            limit: args.limit ?? 10,
            scopes: scopes(),
          });
          return hits.length > 0 ? hits.map((h) => line(h.memory)).join('\n') : 'No memory matches.';
        }
        case 'list': {
          const all = service.list({ scopes: scopes(), limit: args.limit ?? 30 });
          return all.length > 0 ? all.map(line).join('\n') : 'No memories yet.';
        }
        case 'update': {
          const m = service.update(need(args.id, 'id'), {
            ...(args.content ? { content: args.content } : {}),
            ...(args.importance ? { importance: args.importance } : {}),
          });
          return `Updated: ${line(m)}`;
        }
        case 'delete':
          return `Forgotten: ${line(service.forget(need(args.id, 'id')))}`;
        case 'pin':
        case 'unpin':
          return `${args.action === 'pin' ? 'Pinned' : 'Unpinned'}: ${line(service.update(need(args.id, 'id'), { pinned: args.action === 'pin' }))}`;
      }
    },
  });
}
