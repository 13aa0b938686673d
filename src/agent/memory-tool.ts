/** The agent's `memory` tool: add, search, update, delete, pin and list long-term memories. */
import * as z from 'zod';
import type { LongTermMemory } from '../memory/api.js';
import { CATEGORIES, type Category, type Memory } from '../memory/types.js';
import { defineTool, type Tool, ToolError } from '../tools/types.js';
import { MEMORY_ACTIONS, MEMORY_TOOL_INFO } from './memory-tool-info.js';

function line(m: Memory): string {
  const flags = [
    m.pinned ? 'pinned' : '',
    m.expiresAt ? `due ${new Date(m.expiresAt).toISOString().slice(0, 10)}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `#${m.id} [${m.category}, P${m.priority}, importance ${m.importance}${flags ? `, ${flags}` : ''}] ${m.content}`;
}

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** One version of a fact with the time it held: "#3 (2024-01-05 → 2025-03-02) …". */
function versionLine(m: Memory): string {
  const until = m.validTo ?? m.deletedAt;
  const when = until === null ? `since ${day(m.validFrom)}, current` : `${day(m.validFrom)} → ${day(until)}`;
  return `#${m.id} (${when}) ${m.content}`;
}

/**
 * The `memory` tool over `service`; `scopes(cwd)` names the scopes of the workspace a
 * call runs in (its session's, which in `tea acp` or `tea serve` need not be the
 * folder the process started in).
 */
export function memoryTool(service: LongTermMemory, scopes: (cwd: string) => string[]): Tool {
  return defineTool({
    ...MEMORY_TOOL_INFO,
    parameters: z.object({
      action: z.enum(MEMORY_ACTIONS),
      content: z.string().optional().describe('add/update: the memory text'),
      category: z
        .enum(CATEGORIES as [Category, ...Category[]])
        .optional()
        .describe('add: kind (default fact)'),
      importance: z.number().int().min(1).max(5).optional(),
      query: z.string().optional().describe('search: what to look for'),
      id: z.number().int().optional().describe('update/delete/pin/history/restore: memory id'),
      replace: z
        .boolean()
        .optional()
        .describe('restore: make the old version current again (else both stay active)'),
      limit: z.number().int().min(1).max(50).optional(),
      scope: z.enum(['user', 'project']).optional().describe('add: about the user (default) or this project'),
    }),
    async execute(args, ctx) {
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
            scope: args.scope === 'project' ? (scopes(ctx.cwd)[0] ?? 'user') : 'user',
          });
          const was = r.superseded ? ` (replaces #${r.superseded.id}: ${r.superseded.content})` : '';
          if (r.outcome === 'history' && r.supersededBy) {
            return `Remembered as an earlier version of #${r.supersededBy.id}: ${line(r.memory)}`;
          }
          return `${r.outcome === 'duplicate' ? 'Already remembered' : 'Remembered'}: ${line(r.memory)}${was}`;
        }
        case 'search': {
          const hits = await service.search(need(args.query, 'query'), {
            limit: args.limit ?? 10,
            scopes: scopes(ctx.cwd),
          });
          if (hits.length === 0) return 'No memory matches.';
          return hits
            .map((h) => [line(h.memory), ...h.versions.map((v) => `  ${versionLine(v)}`)].join('\n'))
            .join('\n');
        }
        case 'list': {
          const all = await service.list({ scopes: scopes(ctx.cwd), limit: args.limit ?? 30 });
          return all.length > 0 ? all.map(line).join('\n') : 'No memories yet.';
        }
        case 'update': {
          const m = await service.update(need(args.id, 'id'), {
            ...(args.content ? { content: args.content } : {}),
            ...(args.importance ? { importance: args.importance } : {}),
          });
          return `Updated: ${line(m)}`;
        }
        case 'delete':
          return `Forgotten: ${line(await service.forget(need(args.id, 'id')))}`;
        case 'history':
          return (await service.history(need(args.id, 'id'))).map(versionLine).join('\n');
        case 'restore': {
          const r = await service.restore(need(args.id, 'id'), { replace: args.replace === true });
          if (r.replaced)
            return `Current again as ${line(r.memory)} (#${r.replaced.id} is now an earlier version)`;
          return `Restored beside the newer version: ${line(r.memory)}`;
        }
        case 'pin':
        case 'unpin': {
          const m = await service.update(need(args.id, 'id'), { pinned: args.action === 'pin' });
          return `${args.action === 'pin' ? 'Pinned' : 'Unpinned'}: ${line(m)}`;
        }
      }
    },
  });
}
