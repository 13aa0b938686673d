/**
 * The memory routes of a `tea serve` whose runtime has not loaded its memory
 * service yet (a new home): every route answers through the lazy memory, which
 * loads the service on the first request that needs it (real server, real SQLite).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ lazyMemory: true });
});
afterAll(() => t.close());

interface Mem {
  id: number;
  content: string;
  pinned: boolean;
}

describe('memory routes on a new home', () => {
  it('list, search, profile, add, pin, history, forget and restore answer through the lazy memory', async () => {
    expect((await t.json('GET', '/v1/memory/search?q=tea')).body).toEqual({ object: 'list', data: [] });
    expect((await t.json('GET', '/v1/memory')).body).toEqual({ object: 'list', data: [] });
    expect((await t.json('GET', '/v1/memory/profile')).body).toEqual({ text: '' });
    expect((await t.json('PUT', '/v1/memory/profile', { text: 'Name: Ada' })).body).toEqual({
      text: 'Name: Ada',
    });
    expect((await t.json('GET', '/v1/memory/42/history')).status).toBe(404);

    const added = await t.json<{ memory: Mem }>('POST', '/v1/memory', {
      content: 'The user drinks green tea every morning',
      category: 'preference',
    });
    expect(added.status).toBe(201);
    const id = added.body.memory.id;
    const listed = await t.json<{ data: Mem[] }>('GET', '/v1/memory');
    expect(listed.body.data.map((m) => m.id)).toEqual([id]);
    const hits = await t.json<{ data: Mem[] }>('GET', '/v1/memory/search?q=green%20tea');
    expect(hits.body.data.map((m) => m.id)).toEqual([id]);
    const pinned = await t.json<Mem>('POST', `/v1/memory/${id}/pin`, { pinned: true });
    expect(pinned.body).toMatchObject({ id, pinned: true });
    expect((await t.json('POST', '/v1/memory/999/pin', { pinned: true })).status).toBe(404);
    expect((await t.json('DELETE', `/v1/memory/${id}`)).body).toEqual({ id, deleted: true });
    expect((await t.json('DELETE', `/v1/memory/${id}`)).status).toBe(404);
    const history = await t.json<{ data: Mem[] }>('GET', `/v1/memory/${id}/history`);
    expect(history.body.data.map((m) => m.id)).toEqual([id]);
    expect((await t.json<{ memory: Mem }>('POST', `/v1/memory/${id}/restore`, {})).body.memory.id).toBe(id);
    const imported = await t.json('POST', '/v1/memory/import', {
      items: [{ content: 'The user lives in Lyon' }],
    });
    expect(imported.body).toEqual({ imported: 1, skipped: 0 });
  });
});
