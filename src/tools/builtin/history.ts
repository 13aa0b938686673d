/** history_search: find or re-read earlier parts of this session's stored transcript. */
import * as z from 'zod';
import { defineTool, type HistoryHit, type Tool, ToolError } from '../types.js';
import { plural } from './text.js';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 200;

function formatHit(hit: HistoryHit): string {
  const tool = hit.tool ? ` [${hit.tool}${hit.callId ? ` ${hit.callId}` : ''}]` : '';
  return `#${hit.seq} ${hit.role}${tool}: ${hit.snippet}`;
}

export function historySearchTool(): Tool {
  return defineTool({
    name: 'history_search',
    description:
      "Search this session's full transcript (including parts no longer in context) by text or tool name, " +
      'or read messages back by seq range. Lines are `#seq role [tool callId]: snippet`.',
    parameters: z.object({
      query: z.string().optional().describe('Text to find (case-insensitive)'),
      tool: z.string().optional().describe('Only calls/results of this tool'),
      from_seq: z.number().int().min(0).optional().describe('Read from this seq'),
      to_seq: z.number().int().min(0).optional().describe('Read up to this seq'),
      limit: z
        .number()
        .int()
        .min(1)
        .max(MAX_LIMIT)
        .optional()
        .describe(`Max hits (default ${DEFAULT_LIMIT})`),
    }),
    category: 'search',
    keywords: [
      'history',
      'transcript',
      'earlier',
      'previous',
      'conversation',
      'recall',
      'before',
      '历史',
      '之前',
    ],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 10_000,
    async execute(args, ctx) {
      if (ctx.host === undefined) {
        throw new ToolError(
          'history_search needs a session, and this call runs without one',
          'the transcript is not available here; work from the current context',
        );
      }
      const limit = args.limit ?? DEFAULT_LIMIT;
      const byRange = args.from_seq !== undefined || args.to_seq !== undefined;
      if (byRange) {
        const from = args.from_seq ?? Math.max(0, (args.to_seq ?? 0) - limit + 1);
        const to = args.to_seq ?? from + limit - 1;
        if (to < from) {
          throw new ToolError(`to_seq (${to}) is before from_seq (${from})`, 'pass from_seq <= to_seq');
        }
        const hits = ctx.host.readHistory(from, to);
        if (hits.length === 0) return `No messages with seq ${from}-${to} in this session`;
        return hits.map(formatHit).join('\n');
      }
      const query = args.query?.trim() ?? '';
      if (query === '' && args.tool === undefined) {
        throw new ToolError(
          'Nothing to search for',
          'pass query (text to find), tool (a tool name), or from_seq/to_seq to read a range',
        );
      }
      const hits = ctx.host.searchHistory(query, { limit, ...(args.tool ? { tool: args.tool } : {}) });
      if (hits.length === 0) {
        const what = [query ? `"${query}"` : '', args.tool ? `tool ${args.tool}` : '']
          .filter(Boolean)
          .join(' in ');
        return `No matches for ${what} in this session's history`;
      }
      const lines = hits.map(formatHit);
      if (hits.length >= limit)
        lines.push(`… showing the first ${plural(limit, 'hit')}; raise limit for more`);
      return lines.join('\n');
    },
  });
}
