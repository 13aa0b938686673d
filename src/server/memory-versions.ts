/**
 * Memory versions over HTTP: the history of a fact (every version, newest first)
 * and restoring an old version, plus the id parsing and error mapping the memory
 * routes share. Registered by memoryRoutes (memory.ts).
 */
import * as z from 'zod';
import { StoreError } from '../runtime/memory.js';
import { ApiError, apiError } from './errors.js';
import { type AppContext, doc } from './routes.js';
import { readJson } from './validate.js';
import { memoryView } from './views.js';

const restoreBody = z.object({
  replace: z
    .boolean()
    .optional()
    .describe('Make it the current version again, superseding the memory that replaced it'),
});

/** The `:id` of a memory route; a 400 unless a positive integer. */
export function memoryId(raw: string): number {
  const id = Number(raw);
  if (!Number.isInteger(id) || id <= 0) {
    throw apiError(400, `memory id must be a positive integer, got ${JSON.stringify(raw)}`, {
      param: 'id',
      code: 'invalid_value',
    });
  }
  return id;
}

/** 404 `memory_not_found`. */
export function memoryNotFound(id: number | undefined): never {
  throw apiError(404, `no memory with id ${id}`, { param: 'id', code: 'memory_not_found' });
}

/** Runs a memory operation, turning the store's not-found and validation errors into 404 / 400. */
export async function guarded<T>(id: number | undefined, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof ApiError) throw e;
    if (e instanceof StoreError && e.code === 'not-found') memoryNotFound(id);
    if (e instanceof Error && !(e instanceof TypeError))
      throw apiError(400, e.message, { code: 'invalid_value' });
    throw e;
  }
}

export function memoryVersionRoutes(ctx: AppContext): void {
  const { app, deps } = ctx;
  const memory = deps.memory;

  doc(ctx, {
    method: 'get',
    path: '/v1/memory/:id/history',
    summary: 'Every version of the fact a memory belongs to, newest first',
    tag: 'memory',
  });
  app.get('/v1/memory/:id/history', async (c) => {
    const id = memoryId(c.req.param('id'));
    const versions = await guarded(id, () => memory.history(id));
    return c.json({ object: 'list', data: versions.map(memoryView) });
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/memory/:id/restore',
    summary: 'Reactivate a superseded or forgotten memory (replace: make it current again)',
    tag: 'memory',
    body: restoreBody,
  });
  app.post('/v1/memory/:id/restore', async (c) => {
    const id = memoryId(c.req.param('id'));
    const b = await readJson(c, restoreBody, { optional: true });
    const result = await guarded(id, async () => {
      try {
        return await memory.restore(id, { replace: b.replace === true });
      } catch (e) {
        if (e instanceof StoreError && e.code === 'conflict') {
          throw apiError(409, e.message, { param: 'id', code: 'memory_active' });
        }
        throw e;
      }
    });
    return c.json({
      memory: memoryView(result.memory),
      replaced: result.replaced ? memoryView(result.replaced) : null,
    });
  });
}
