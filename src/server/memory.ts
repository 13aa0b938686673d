/**
 * Long-term memory routes: list, search, add, import, pin, forget, and the user
 * profile block; history and restore are in memory-versions.ts.
 */
import type { Context } from 'hono';
import * as z from 'zod';
import { CATEGORIES, type Category, type Priority, readMemoryFile, StoreError } from '../runtime/memory.js';
import { apiError } from './errors.js';
import { checkJsonDepth, DepthScanner } from './json-depth.js';
import { guarded, memoryId, memoryNotFound, memoryVersionRoutes } from './memory-versions.js';
import { type AppContext, doc } from './routes.js';
import { bodyText, readJson, readQuery, validated } from './validate.js';
import { memoryHitView, memoryView } from './views.js';

/** Memories one import request may carry (bigger files: `tea memory import`). */
const MAX_IMPORT = 10_000;

const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  category: z.enum(CATEGORIES as [Category, ...Category[]]).optional(),
});
const searchQuery = z.object({
  q: z.string().trim().min(1, 'q must not be empty'),
  limit: z.coerce.number().int().min(1).max(100).default(10),
  all: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .describe('true: keep weak matches too (no relevance cut-off)'),
});
const addBody = z.object({
  content: z.string().trim().min(1, 'content must not be empty').max(10_000),
  category: z.enum(CATEGORIES as [Category, ...Category[]]).default('fact'),
  importance: z.number().int().min(1).max(5).optional(),
  priority: z.number().int().min(0).max(3).optional(),
  tags: z.array(z.string().min(1).max(100)).max(50).optional(),
  pinned: z.boolean().optional(),
});
const importItem = z.looseObject({
  content: z.string().trim().min(1, 'content must not be empty').max(10_000),
  category: z.enum(CATEGORIES as [Category, ...Category[]]).optional(),
  created_at: z
    .union([z.string(), z.number()])
    .optional()
    .describe('When it was said: an ISO date or epoch seconds/milliseconds'),
  tags: z.array(z.string().min(1).max(100)).max(50).optional(),
  importance: z.number().int().min(1).max(5).optional(),
  priority: z.number().int().min(0).max(3).optional(),
  pinned: z.boolean().optional(),
  scope: z.string().trim().min(1).optional(),
});
const importBody = z
  .object({
    items: z.array(importItem).min(1, 'items must not be empty').max(MAX_IMPORT).optional(),
    text: z
      .string()
      .optional()
      .describe('A file\'s text: a JSON array, an object with a "memories" list, or JSON Lines'),
    ingest: z
      .boolean()
      .optional()
      .describe(
        'Each statement through the duplicate/update decisions, oldest first (default: rows as they are)',
      ),
  })
  .refine((b) => (b.items === undefined) !== (b.text === undefined), {
    message: 'give one of items (a list of memories) or text (a JSON or JSON Lines file)',
    path: ['items'],
  });
const pinBody = z.object({ pinned: z.boolean() });
const profileBody = z.object({ text: z.string() });

/**
 * The import body as people have it: `{items}` or `{text}` (with `ingest`), a
 * `tea memory export` array as it is, `{memories: [...]}`, or JSON Lines — the last
 * three take `?ingest=true` from the query.
 */
async function readImport(c: Context): Promise<z.infer<typeof importBody>> {
  const text = await bodyText(c, new DepthScanner());
  const ingest = c.req.query('ingest') === 'true' || c.req.query('ingest') === '1';
  if (text.trim() === '')
    throw apiError(400, 'request body is empty: expected memories to import', { code: 'empty_body' });
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    // Not one JSON document: JSON Lines, read like a file.
    return validated(importBody, { text, ingest });
  }
  if (Array.isArray(raw)) return validated(importBody, { items: raw, ingest });
  if (raw !== null && typeof raw === 'object' && 'memories' in raw && !('items' in raw) && !('text' in raw)) {
    const { memories, ...rest } = raw as Record<string, unknown>;
    return validated(importBody, { ingest, ...rest, items: memories });
  }
  return validated(importBody, raw);
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
  app.get('/v1/memory', async (c) => {
    const q = readQuery(c, listQuery);
    const rows = await memory.list({ limit: q.limit, ...(q.category ? { category: q.category } : {}) });
    return c.json({ object: 'list', data: rows.map(memoryView) });
  });

  doc(ctx, {
    method: 'get',
    path: '/v1/memory/search',
    summary: 'Hybrid memory search: 0–1 scores, weak matches cut off, versions of a fact folded',
    tag: 'memory',
    query: searchQuery,
  });
  app.get('/v1/memory/search', async (c) => {
    const q = readQuery(c, searchQuery);
    const all = q.all === 'true' || q.all === '1';
    const hits = await memory.search(q.q, { limit: q.limit, all });
    return c.json({ object: 'list', data: hits.map(memoryHitView) });
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
    return c.json(
      {
        outcome: result.outcome,
        memory: memoryView(result.memory),
        superseded: result.superseded ? memoryView(result.superseded) : null,
        judged: result.judged === true,
      },
      201,
    );
  });

  doc(ctx, {
    method: 'post',
    path: '/v1/memory/import',
    summary: 'Import memories: rows as they are, or (ingest) each statement in time order',
    tag: 'memory',
    body: importBody,
  });
  app.post('/v1/memory/import', async (c) => {
    const b = await readImport(c);
    const param = b.items === undefined ? 'text' : 'items';
    if (b.text !== undefined) checkJsonDepth(b.text, 'text');
    // Items go through the same reader as a file, so both accept the same fields and times.
    const items = await importable(param, () => readMemoryFile(b.text ?? JSON.stringify(b.items)));
    if (items.length === 0) throw apiError(400, 'text holds no memories', { param, code: 'invalid_value' });
    if (items.length > MAX_IMPORT) {
      throw apiError(400, `${items.length} memories in one request; the limit is ${MAX_IMPORT}`, {
        param,
        code: 'invalid_value',
      });
    }
    if (b.ingest !== true) {
      const added = await importable(param, () => memory.importAll(items));
      return c.json({ imported: added, skipped: items.length - added });
    }
    let counts: Awaited<ReturnType<typeof memory.importStatements>>;
    try {
      counts = await memory.importStatements(items);
    } catch (e) {
      throw importProblem(param, e);
    }
    return c.json({ ingested: items.length, ...counts });
  });

  doc(ctx, { method: 'get', path: '/v1/memory/profile', summary: 'The user profile block', tag: 'memory' });
  app.get('/v1/memory/profile', async (c) => c.json({ text: await memory.profile() }));

  doc(ctx, {
    method: 'put',
    path: '/v1/memory/profile',
    summary: 'Replace the user profile block',
    tag: 'memory',
    body: profileBody,
  });
  app.put('/v1/memory/profile', async (c) => {
    const b = await readJson(c, profileBody);
    await guarded(undefined, () => memory.setProfile(b.text));
    return c.json({ text: await memory.profile() });
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
    const updated = await guarded(id, () => memory.update(id, { pinned: b.pinned }));
    return c.json(memoryView(updated));
  });

  doc(ctx, {
    method: 'delete',
    path: '/v1/memory/:id',
    summary: 'Forget a memory (kept in history)',
    tag: 'memory',
  });
  app.delete('/v1/memory/:id', async (c) => {
    const id = memoryId(c.req.param('id'));
    const existing = await memory.get(id);
    if (!existing || existing.deletedAt !== null) memoryNotFound(id);
    await guarded(id, () => memory.forget(id));
    return c.json({ id, deleted: true });
  });

  memoryVersionRoutes(ctx);
}

/** A bad item (the store's message names it, e.g. "memory 2 of 5: …") as a 400 on `param`. */
function importProblem(param: string, e: unknown): unknown {
  return e instanceof StoreError ? apiError(400, e.message, { param, code: 'invalid_value' }) : e;
}

async function importable<T>(param: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    throw importProblem(param, e);
  }
}
