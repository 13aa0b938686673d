/** `GET /v1/search`: sessions (by title and message text) and memories in one answer. */
import * as z from 'zod';
import { type AppContext, doc } from './routes.js';
import { readQuery } from './validate.js';
import { memoryHitView } from './views.js';

const searchQuery = z.object({
  q: z.string().trim().min(1, 'q must not be empty').max(500),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export function searchRoutes(ctx: AppContext): void {
  const { app, deps } = ctx;

  doc(ctx, {
    method: 'get',
    path: '/v1/search',
    summary: 'Search sessions and memories',
    tag: 'search',
    query: searchQuery,
  });
  app.get('/v1/search', async (c) => {
    const { q, limit } = readQuery(c, searchQuery);
    const hits = deps.sessions.search(q, limit).map((h) => ({
      id: h.id,
      title: h.title,
      snippet: h.snippet,
      ...(h.messageId === undefined ? {} : { message_id: h.messageId }),
    }));
    const memories = await deps.memory.search(q, { limit });
    return c.json({
      sessions: hits,
      memories: memories.map(memoryHitView),
    });
  });
}
