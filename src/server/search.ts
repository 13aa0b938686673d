/** `GET /v1/search`: sessions (by title and message text) and memories in one answer. */
import * as z from 'zod';
import type { Part } from '../llm/types.js';
import { type AppContext, doc } from './routes.js';
import { readQuery } from './validate.js';
import { memoryHitView } from './views.js';

const searchQuery = z.object({
  q: z.string().trim().min(1, 'q must not be empty').max(500),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

interface SessionHit {
  id: string;
  title: string | null;
  snippet: string;
  message_id?: number;
}

function textOfParts(parts: Part[]): string {
  return parts
    .map((p) =>
      p.type === 'text' || p.type === 'thinking' ? p.text : p.type === 'tool-result' ? p.output : '',
    )
    .join(' ');
}

function snippet(text: string, needle: string, width = 120): string {
  const at = text.toLowerCase().indexOf(needle.toLowerCase());
  const start = Math.max(0, at - width / 2);
  const body = text
    .slice(start, start + width)
    .replace(/\s+/g, ' ')
    .trim();
  return `${start > 0 ? '…' : ''}${body}${start + width < text.length ? '…' : ''}`;
}

/** LIKE pattern with %, _ and \ escaped. */
function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}

export function searchRoutes(ctx: AppContext): void {
  const { app, deps } = ctx;
  const { store } = deps;

  doc(ctx, {
    method: 'get',
    path: '/v1/search',
    summary: 'Search sessions and memories',
    tag: 'search',
    query: searchQuery,
  });
  app.get('/v1/search', async (c) => {
    const { q, limit } = readQuery(c, searchQuery);
    const needle = q.toLowerCase();
    const hits = new Map<string, SessionHit>();
    for (const row of store.sessions.list({ limit: 2000 })) {
      if (hits.size >= limit) break;
      if ((row.title ?? '').toLowerCase().includes(needle)) {
        hits.set(row.id, { id: row.id, title: row.title, snippet: row.title ?? '' });
      }
    }
    for (const m of store.messages.findText(likePattern(q), limit * 5)) {
      if (hits.size >= limit) break;
      if (hits.has(m.sessionId)) continue;
      const text = textOfParts(m.parts);
      if (!text.toLowerCase().includes(needle)) continue; // matched JSON syntax, not text
      const row = store.sessions.get(m.sessionId);
      hits.set(m.sessionId, {
        id: m.sessionId,
        title: row?.title ?? null,
        snippet: snippet(text, q),
        message_id: m.id,
      });
    }
    const memories = await deps.memory.search(q, { limit });
    return c.json({
      sessions: [...hits.values()],
      memories: memories.map(memoryHitView),
    });
  });
}
