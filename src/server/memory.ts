/** Long-term memory routes: list, search, add, pin, forget, and the user profile block. */
import * as z from 'zod';
import { CATEGORIES, type Category, type Priority } from '../memory/types.js';
import { StoreError } from '../store/index.js';
import { apiError } from './errors.js';
import { type AppContext, doc } from './routes.js';
import { readJson, readQuery } from './validate.js';
import { memoryView } from './views.js';

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  category: z.enum(CATEGORIES as [Category, ...Category[]]).optional(),
});
const searchQuery = z.object({
  q: z.string().trim().min(1, 'q must not be empty'),
  limit: z.coerce.number().int().min(1).max(100).default(10),
});
const addBody = z.object({
  content: z.string().trim().min(1, 'content must not be empty').max(10_000),
  category: z.enum(CATEGORIES as [Category, ...Category[]]).default('fact'),
  importance: z.number().int().min(1).max(5).optional(),
  priority: z.number().int().min(0).max(3).optional(),
  tags: z.array(z.string().min(1).max(100)).max(50).optional(),
  pinned: z.boolean().optional(),
});
const pinBody = z.object({ pinned: z.boolean() });
const profileBody = z.object({ text: z.string() });

function memoryId(raw: string): number {
  const id = Number(raw);
  if (!Number.isInteger(id) || id <= 0) {
    throw apiError(400, `memory id must be a positive integer, got ${JSON.stringify(raw)}`, {
      param: 'id',
      code: 'invalid_value',
    });
  }
  return id;
}

/** Runs a memory write, turning the store's not-found and validation errors into 404 / 400. */
function guarded<T>(id: number | undefined, run: () => T): T {
  try {
    return run();
  } catch (e) {
    if (e instanceof StoreError && e.code === 'not-found') {
      throw apiError(404, `no memory with id ${id}`, { param: 'id', code: 'memory_not_found' });
    }
    if (e instanceof Error && !(e instanceof TypeError))
      throw apiError(400, e.message, { code: 'invalid_value' });
    throw e;
  }
}

export function memoryRoutes(ctx: AppContext): void {
  const { app, deps } = ctx;
  const memory = deps.memory;

  doc(ctx, {
    method: 'get',
    path: '/v1/memory',
    summary: 'Active memories',
    tag: 'memory',
    query: listQuery,
  });
  app.get('/v1/memory', (c) => {
    const q = readQuery(c, listQuery);
    const rows = memory.list({ limit: q.limit, ...(q.category ? { category: q.category } : {}) });
    return c.json({ object: 'list', data: rows.map(memoryView) });
  });

  doc(ctx, {
    method: 'get',
    path: '/v1/memory/search',
    summary: 'Hybrid memory search',
    tag: 'memory',
    query: searchQuery,
  });
  app.get('/v1/memory/search', async (c) => {
    const q = readQuery(c, searchQuery);
    const hits = await memory.search(q.q, { limit: q.limit });
    return c.json({ object: 'list', data: hits.map((h) => ({ ...memoryView(h.memory), score: h.score })) });
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/memory',
    summary: 'Remember something',
    tag: 'memory',
    body: addBody,
    status: 201,
  });
  app.post('/v1/memory', async (c) => {
    const b = await readJson(c, addBody);
    let result: Awaited<ReturnType<typeof memory.remember>>;
    try {
      result = await memory.remember({
        content: b.content,
        category: b.category,
        ...(b.importance !== undefined ? { importance: b.importance } : {}),
        ...(b.priority !== undefined ? { priority: b.priority as Priority } : {}),
        ...(b.tags ? { tags: b.tags } : {}),
        ...(b.pinned !== undefined ? { pinned: b.pinned } : {}),
      });
    } catch (e) {
      throw apiError(400, (e as Error).message, { code: 'invalid_value' });
    }
    return c.json({ outcome: result.outcome, memory: memoryView(result.memory) }, 201);
  });

  doc(ctx, { method: 'get', path: '/v1/memory/profile', summary: 'The user profile block', tag: 'memory' });
  app.get('/v1/memory/profile', (c) => c.json({ text: memory.profile() }));

  doc(ctx, {
    method: 'put',
    path: '/v1/memory/profile',
    summary: 'Replace the user profile block',
    tag: 'memory',
    body: profileBody,
  });
  app.put('/v1/memory/profile', async (c) => {
    const b = await readJson(c, profileBody);
    guarded(undefined, () => memory.setProfile(b.text));
    return c.json({ text: memory.profile() });
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/memory/:id/pin',
    summary: 'Pin or unpin a memory',
    tag: 'memory',
    body: pinBody,
  });
  app.post('/v1/memory/:id/pin', async (c) => {
    const id = memoryId(c.req.param('id'));
    const b = await readJson(c, pinBody);
    const updated = guarded(id, () => memory.update(id, { pinned: b.pinned }));
    return c.json(memoryView(updated));
  });

  doc(ctx, {
    method: 'delete',
    path: '/v1/memory/:id',
    summary: 'Forget a memory (kept in history)',
    tag: 'memory',
  });
  app.delete('/v1/memory/:id', (c) => {
    const id = memoryId(c.req.param('id'));
    const existing = memory.repo.get(id);
    if (!existing || existing.deletedAt !== null) {
      throw apiError(404, `no memory with id ${id}`, { param: 'id', code: 'memory_not_found' });
    }
    guarded(id, () => memory.forget(id));
    return c.json({ id, deleted: true });
  });
}
