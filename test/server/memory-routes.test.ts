/** Memory search with scores and folded versions, history, restore and import over HTTP (real server, real SQLite). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './helpers.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ mode: 'ask' });
});
afterAll(() => t.close());

interface Mem {
  id: number;
  content: string;
  created_at: number;
  valid_from: number;
  valid_to: number | null;
  superseded_by: number | null;
  deleted_at: number | null;
}
type Hit = Mem & { score: number; versions: Mem[]; newer?: number };
interface Added {
  outcome: string;
  memory: Mem;
  superseded: Mem | null;
  judged: boolean;
}
interface ApiErr {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const add = async (content: string): Promise<Added> => {
  const res = await t.json<Added>('POST', '/v1/memory', { content, category: 'fact' });
  expect(res.status).toBe(201);
  return res.body;
};
const search = async (q: string, extra = ''): Promise<Hit[]> =>
  (await t.json<{ data: Hit[] }>('GET', `/v1/memory/search?${new URLSearchParams({ q })}${extra}`)).body.data;
const history = async (id: number) =>
  t.json<{ object: string; data: Mem[] }>('GET', `/v1/memory/${id}/history`);
const day = (ms: number | null): string | null =>
  ms === null ? null : new Date(ms).toISOString().slice(0, 10);

describe('GET /v1/memory/search', () => {
  it('scores 0..1 in order, cuts off weak matches unless all=true, and folds versions of a fact', async () => {
    const old = await add('The staging API of Heron runs on port 9090.');
    expect(old).toMatchObject({ outcome: 'new', superseded: null, judged: false });
    const now = await add("Heron's staging API now runs on port 9191.");
    expect(now.outcome).toBe('update');
    expect(now.judged).toBe(false);
    expect(now.superseded).toMatchObject({ id: old.memory.id, superseded_by: now.memory.id });
    expect(now.superseded?.valid_to).not.toBeNull();
    await add('The user prefers tabs over spaces in Go files');
    await add('Deploys happen on Fridays at noon');

    const hits = await search('Heron staging port');
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({
      id: now.memory.id,
      content: "Heron's staging API now runs on port 9191.",
    });
    expect(hits[0]!.score).toBeGreaterThan(0);
    expect(hits[0]!.score).toBeLessThanOrEqual(1);
    expect(hits[0]!.versions.map((v) => [v.id, v.content, v.superseded_by])).toEqual([
      [old.memory.id, 'The staging API of Heron runs on port 9090.', now.memory.id],
    ]);
    expect(hits[0]!.versions[0]!.valid_to).toBe(now.superseded?.valid_to);

    expect(await search('banana bread recipe')).toEqual([]);
    const everything = await search('banana bread recipe', '&all=true');
    expect(everything.length).toBeGreaterThanOrEqual(3);
    const scores = everything.map((h) => h.score);
    for (const s of scores) expect(s >= 0 && s <= 1, `score ${s}`).toBe(true);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    // One result per fact even with all=true: the 9090 version stays folded.
    expect(everything.map((h) => h.id)).not.toContain(old.memory.id);
    expect((await search('banana bread recipe', '&all=false')).length).toBe(0);
  });
});

describe('history and restore', () => {
  it('shows the chain, restores an old version beside the new one, or makes it current again', async () => {
    const v1 = await add("The Kestrel project's database lives on host db-1.");
    const v2 = await add("The Kestrel project's database now lives on host db-2.");
    expect(v2.superseded?.id).toBe(v1.memory.id);

    const chain = await history(v1.memory.id);
    expect(chain.status).toBe(200);
    expect(chain.body.object).toBe('list');
    expect(chain.body.data.map((m) => [m.id, m.superseded_by])).toEqual([
      [v2.memory.id, null],
      [v1.memory.id, v2.memory.id],
    ]);
    expect(chain.body.data[0]!.valid_to).toBeNull();
    expect(chain.body.data[1]!.valid_to).toBe(chain.body.data[0]!.valid_from);
    // Asked from either end, the same chain.
    expect((await history(v2.memory.id)).body.data.map((m) => m.id)).toEqual([v2.memory.id, v1.memory.id]);

    // Restore (no body at all): both versions active.
    const res = await t.req('POST', `/v1/memory/${v1.memory.id}/restore`);
    expect(res.status).toBe(200);
    const restored = (await res.json()) as { memory: Mem; replaced: Mem | null };
    expect(restored.replaced).toBeNull();
    expect(restored.memory).toMatchObject({ id: v1.memory.id, valid_to: null, superseded_by: null });
    const active = (await t.json<{ data: Mem[] }>('GET', '/v1/memory')).body.data.map((m) => m.id);
    expect(active).toEqual(expect.arrayContaining([v1.memory.id, v2.memory.id]));

    const again = await t.json<ApiErr>('POST', `/v1/memory/${v1.memory.id}/restore`, {});
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({
      code: 'memory_active',
      param: 'id',
      type: 'invalid_request_error',
    });

    // A third value supersedes db-2; restoring db-2 with replace makes its statement current
    // again, as a new version from now (the periods of the history never overlap).
    const v3 = await add("The Kestrel project's database now lives on host db-3.");
    expect(v3.outcome).toBe('update');
    const old = v3.superseded!;
    const made = await t.json<{ memory: Mem; replaced: Mem | null }>('POST', `/v1/memory/${old.id}/restore`, {
      replace: true,
    });
    expect(made.status).toBe(200);
    expect(made.body.memory).toMatchObject({ content: old.content, valid_to: null, superseded_by: null });
    expect(made.body.memory.id).not.toBe(old.id);
    expect(made.body.replaced).toMatchObject({ id: v3.memory.id, superseded_by: made.body.memory.id });
    expect(made.body.replaced?.valid_to).toBe(made.body.memory.valid_from);
    const after = (await history(v3.memory.id)).body.data;
    expect(after[0]).toMatchObject({ id: made.body.memory.id, valid_to: null });
    expect(after.find((m) => m.id === v3.memory.id)?.superseded_by).toBe(made.body.memory.id);
    expect(after.find((m) => m.id === old.id)?.superseded_by).toBe(v3.memory.id);
    const hits = await search('Kestrel database host');
    expect(hits.map((h) => h.id)).not.toContain(v3.memory.id);

    // A forgotten memory comes back too.
    await t.json('DELETE', `/v1/memory/${v2.memory.id}`);
    const forgotten = (await history(v2.memory.id)).body.data.find((m) => m.id === v2.memory.id);
    expect(forgotten?.deleted_at).not.toBeNull();
    const back = await t.json<{ memory: Mem }>('POST', `/v1/memory/${v2.memory.id}/restore`, {});
    expect(back.body.memory.deleted_at).toBeNull();
  });

  it('answers 404 for unknown ids, 400 for bad ids and bodies', async () => {
    const missing = await t.json<ApiErr>('GET', '/v1/memory/999999/history');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatchObject({ code: 'memory_not_found', param: 'id' });
    const restoreMissing = await t.json<ApiErr>('POST', '/v1/memory/999999/restore', {});
    expect(restoreMissing.status).toBe(404);
    expect(restoreMissing.body.error.code).toBe('memory_not_found');
    for (const p of ['/v1/memory/abc/history', '/v1/memory/0/history', '/v1/memory/1.5/history']) {
      const bad = await t.json<ApiErr>('GET', p);
      expect(bad.status, p).toBe(400);
      expect(bad.body.error.param).toBe('id');
    }
    const badBody = await t.json<ApiErr>('POST', '/v1/memory/1/restore', { replace: 'yes' });
    expect(badBody.status).toBe(400);
    expect(badBody.body.error.param).toBe('replace');
  });

  it('lists the new routes in the OpenAPI document', async () => {
    const spec = await t.json<{
      paths: Record<string, Record<string, { parameters: Array<{ name: string }>; requestBody?: unknown }>>;
    }>('GET', '/openapi.json');
    expect(spec.body.paths['/v1/memory/{id}/history']?.get).toBeDefined();
    expect(spec.body.paths['/v1/memory/{id}/restore']?.post?.requestBody).toBeDefined();
    expect(spec.body.paths['/v1/memory/import']?.post?.requestBody).toBeDefined();
    const params = spec.body.paths['/v1/memory/search']?.get?.parameters.map((p) => p.name);
    expect(params).toEqual(expect.arrayContaining(['q', 'limit', 'all']));
  });
});

describe('GET /v1/memory/search, rivals worded apart', () => {
  it('marks an older rival the newer answer passed with `newer`', async () => {
    const items = [
      { content: 'Lena Romero looks after Coppermark.', created_at: '2023-12-09' },
      { content: 'Ownership of Coppermark has passed to Marco Costa.', created_at: '2024-08-23' },
    ];
    expect((await t.json('POST', '/v1/memory/import', { items })).status).toBe(200);
    const [answer, older] = await search('Who looks after Coppermark now?');
    expect(answer?.content).toBe('Ownership of Coppermark has passed to Marco Costa.');
    expect(answer?.newer).toBeUndefined();
    expect(older).toMatchObject({ content: 'Lena Romero looks after Coppermark.', newer: answer?.id });
  });
});

describe('POST /v1/memory/import', () => {
  it('ingests statements in time order whatever the order given, with their dates in the history', async () => {
    const items = [
      { content: 'The build server of Osprey now uses 16 CPU cores.', created_at: '2025-03-01T10:00:00Z' },
      { content: 'The build server of Osprey uses 8 CPU cores.', created_at: '2023-01-15T10:00:00Z' },
      { content: 'The build server of Osprey now uses 12 CPU cores.', created_at: '2024-06-01T10:00:00Z' },
      { content: 'The build server of Osprey now uses 16 CPU cores.', created_at: '2025-04-01T10:00:00Z' },
    ];
    const res = await t.json<Record<string, number>>('POST', '/v1/memory/import', { items, ingest: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ingested: 4, new: 1, update: 2, duplicate: 1, history: 0 });

    const [hit] = await search('Osprey build server CPU cores');
    expect(hit?.content).toBe('The build server of Osprey now uses 16 CPU cores.');
    const chain = (await history(hit!.id)).body.data;
    expect(chain.map((m) => [m.content.match(/\d+ CPU/)?.[0], day(m.valid_from), day(m.valid_to)])).toEqual([
      ['16 CPU', '2025-03-01', null],
      ['12 CPU', '2024-06-01', '2025-03-01'],
      ['8 CPU', '2023-01-15', '2024-06-01'],
    ]);

    // An older statement of a fact already stored becomes its earlier version.
    const older = await t.json<Record<string, number>>('POST', '/v1/memory/import', {
      items: [{ content: 'The build server of Osprey uses 4 CPU cores.', created_at: '2021-01-01' }],
      ingest: true,
    });
    expect(older.body).toMatchObject({ new: 0, history: 1 });
    expect((await history(hit!.id)).body.data.at(-1)?.content).toContain('4 CPU');
  });

  it('imports JSON Lines text as rows, keeping times, and skips what is already known', async () => {
    const text = [
      '{"content": "Wren releases are signed with the key 0xA1B2.", "created_at": 1700000000, "tags": "release, keys"}',
      '',
      '{"content": "The Wren wiki moved to wiki.wren.example.", "createdAt": "2024-02-03T04:05:06Z", "category": "general"}',
    ].join('\n');
    const res = await t.json<{ imported: number; skipped: number }>('POST', '/v1/memory/import', { text });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ imported: 2, skipped: 0 });
    const list = (
      await t.json<{ data: Array<Mem & { tags: string[]; category: string }> }>('GET', '/v1/memory')
    ).body.data;
    const key = list.find((m) => m.content.includes('0xA1B2'));
    expect(key).toMatchObject({ created_at: 1_700_000_000_000, tags: ['release', 'keys'], category: 'fact' });
    const wiki = list.find((m) => m.content.includes('wiki.wren'));
    expect(wiki).toMatchObject({ created_at: Date.parse('2024-02-03T04:05:06Z'), category: 'general' });

    const again = await t.json('POST', '/v1/memory/import', { text });
    expect(again.body).toEqual({ imported: 0, skipped: 2 });
  });

  it('takes an export array as it is, {memories: [...]} and raw JSON Lines (ingest from the query)', async () => {
    const post = (body: string, query = '') =>
      fetch(`${t.url}/v1/memory/import${query}`, {
        method: 'POST',
        body,
        headers: { 'content-type': 'application/json' },
      });
    const array = await post(
      JSON.stringify([{ content: 'Robin deploys from the main branch.', category: 'fact' }]),
    );
    expect(array.status).toBe(200);
    expect(await array.json()).toEqual({ imported: 1, skipped: 0 });
    const wrapped = await post(JSON.stringify({ memories: [{ content: 'Robin backups run at 02:00.' }] }));
    expect(await wrapped.json()).toEqual({ imported: 1, skipped: 0 });
    const lines = [
      '{"content": "The Robin API listens on port 7100.", "created_at": "2025-01-01"}',
      '{"content": "The Robin API now listens on port 7200.", "created_at": "2025-06-01"}',
    ].join('\n');
    const ingested = await post(lines, '?ingest=true');
    expect(await ingested.json()).toEqual({ ingested: 2, new: 1, update: 1, duplicate: 0, history: 0 });
  });

  it('refuses a bad item with a 400 naming it, and adds nothing', async () => {
    const before = (await t.json<{ data: Mem[] }>('GET', '/v1/memory?limit=1000')).body.data.length;
    const empty = await t.json<ApiErr>('POST', '/v1/memory/import', {
      items: [{ content: 'Finch runs on Tuesdays.' }, { content: '  ' }],
    });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatchObject({ param: 'items.1.content', code: 'invalid_value' });

    const badTime = await t.json<ApiErr>('POST', '/v1/memory/import', {
      items: [
        { content: 'Finch runs on Tuesdays.' },
        { content: 'Finch has 3 workers.', created_at: 'someday' },
      ],
    });
    expect(badTime.status).toBe(400);
    expect(badTime.body.error.param).toBe('items');
    expect(badTime.body.error.message).toMatch(/^memory 2 of 2: cannot read the time "someday"/);

    const badLine = await t.json<ApiErr>('POST', '/v1/memory/import', {
      text: '{"content": "Finch runs on Tuesdays."}\nnot json at all',
      ingest: true,
    });
    expect(badLine.status).toBe(400);
    expect(badLine.body.error.param).toBe('text');
    expect(badLine.body.error.message).toContain('line 2');

    const badCategory = await t.json<ApiErr>('POST', '/v1/memory/import', {
      text: '[{"content": "Finch runs on Tuesdays."}, {"content": "x", "category": "gossip"}]',
    });
    expect(badCategory.status).toBe(400);
    expect(badCategory.body.error.message).toMatch(/^memory 2 of 2: unknown category "gossip"/);

    const badImportance = await t.json<ApiErr>('POST', '/v1/memory/import', {
      items: [{ content: 'Finch runs on Tuesdays.' }, { content: 'Finch has 3 workers.', importance: 9 }],
    });
    expect(badImportance.status).toBe(400);
    expect(badImportance.body.error.param).toBe('items.1.importance');

    const after = (await t.json<{ data: Mem[] }>('GET', '/v1/memory?limit=1000')).body.data.length;
    expect(after).toBe(before);
  });
});
