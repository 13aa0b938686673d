import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findCjkFont } from '../../src/server/export-pdf.js';
import { reply } from '../support/script.js';
import { SECRET_KEY, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let web: string;

beforeAll(async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-web-'));
  web = path.join(dir, 'web');
  mkdirSync(path.join(web, 'assets'), { recursive: true });
  writeFileSync(path.join(web, 'index.html'), '<!doctype html><title>Tea UI</title>');
  writeFileSync(path.join(web, 'assets', 'app.js'), 'console.log("tea")');
  writeFileSync(path.join(web, 'assets', 'style.css'), 'body{}');
  writeFileSync(path.join(dir, 'secret.txt'), 'outside the web dir');
  t = await startTestServer({ mode: 'ask', deps: { webDir: web } });
});
afterAll(async () => {
  await t.close();
  rmSync(path.dirname(web), { recursive: true, force: true });
});

type Mem = { id: number; content: string; pinned: boolean; score?: number; category: string };

describe('memory routes', () => {
  it('adds, lists, searches, pins, forgets memories and keeps the profile', async () => {
    const added = await t.json<{ outcome: string; memory: Mem }>('POST', '/v1/memory', {
      content: 'The user prefers tabs over spaces in Go files',
      category: 'preference',
      tags: ['style'],
    });
    expect(added.status).toBe(201);
    expect(added.body.outcome).toBe('new');
    expect(added.body.memory).toMatchObject({
      category: 'preference',
      pinned: false,
      tags: ['style'],
      deleted_at: null,
    });
    const dup = await t.json<{ outcome: string }>('POST', '/v1/memory', {
      content: 'The user prefers tabs over spaces in Go files',
      category: 'preference',
    });
    expect(dup.body.outcome).toBe('duplicate');
    await t.json('POST', '/v1/memory', { content: 'Deploys happen on Fridays at noon', category: 'fact' });

    const list = await t.json<{ data: Mem[] }>('GET', '/v1/memory?category=preference');
    expect(list.body.data.map((m) => m.content)).toEqual(['The user prefers tabs over spaces in Go files']);
    const found = await t.json<{ data: Mem[] }>('GET', '/v1/memory/search?q=tabs%20spaces&limit=5');
    expect(found.body.data[0]!.content).toContain('tabs over spaces');
    expect(typeof found.body.data[0]!.score).toBe('number');

    const id = added.body.memory.id;
    const pinned = await t.json<Mem>('POST', `/v1/memory/${id}/pin`, { pinned: true });
    expect(pinned.body.pinned).toBe(true);
    expect((await t.json('DELETE', `/v1/memory/${id}`)).body).toEqual({ id, deleted: true });
    const after = await t.json<{ data: Mem[] }>('GET', '/v1/memory');
    expect(after.body.data.map((m) => m.id)).not.toContain(id);
    expect((await t.json('DELETE', `/v1/memory/${id}`)).status).toBe(404);

    expect((await t.json('PUT', '/v1/memory/profile', { text: 'Name: Ada' })).body).toEqual({
      text: 'Name: Ada',
    });
    expect((await t.json('GET', '/v1/memory/profile')).body).toEqual({ text: 'Name: Ada' });
  });
});

describe('tools routes', () => {
  it('lists tools with JSON schemas and runs a read-only tool', async () => {
    const list = await t.json<{
      data: Array<{ name: string; read_only: boolean; parameters: { type: string } }>;
    }>('GET', '/v1/tools');
    const read = list.body.data.find((x) => x.name === 'read_file');
    expect(read).toMatchObject({ read_only: true, parameters: { type: 'object' } });
    writeFileSync(path.join(t.work, 'hello.txt'), 'hello from the workspace\n');
    const ran = await t.json<{ status: string; output: string }>('POST', '/v1/tools/read_file/run', {
      args: { path: 'hello.txt' },
    });
    expect(ran.status).toBe(200);
    expect(ran.body.status).toBe('ok');
    expect(ran.body.output).toContain('hello from the workspace');
  });

  it('refuses a write tool under mode ask with 403 permission_denied', async () => {
    const res = await t.json<{ error: Record<string, unknown> }>('POST', '/v1/tools/write_file/run', {
      args: { path: 'x.txt', content: 'no' },
    });
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'permission_denied', param: 'name' });
  });
});

describe('search, config, export, openapi, static', () => {
  it('searches sessions by message text and memories together', async () => {
    t.model.script(reply().text('The zebra code is 4711.'));
    const chat = await t.json<{ session_id: string }>('POST', '/v1/chat/completions', {
      model: 'tea',
      messages: [{ role: 'user', content: 'What is the zebra code?' }],
    });
    await t.json('POST', '/v1/memory', { content: 'zebra stripes are unique', category: 'fact' });
    const res = await t.json<{ sessions: Array<{ id: string; snippet: string }>; memories: Mem[] }>(
      'GET',
      '/v1/search?q=zebra',
    );
    expect(res.body.sessions.map((s) => s.id)).toContain(chat.body.session_id);
    expect(res.body.sessions[0]!.snippet.toLowerCase()).toContain('zebra');
    expect(res.body.memories.map((m) => m.content)).toContain('zebra stripes are unique');
  });

  it('shows the config without secrets and switches the active profile', async () => {
    const res = await t.req('GET', '/v1/config');
    const text = await res.text();
    expect(text).not.toContain(SECRET_KEY);
    expect(text).not.toContain('SECRETSECRET');
    const body = JSON.parse(text) as Record<string, unknown>;
    expect(body).toMatchObject({ active_profile: 'main_model', main_model: { model: 'scripted-model' } });
    expect(body.profiles).toEqual(expect.arrayContaining(['main_model', 'other']));
    const switched = await t.json('POST', '/v1/config/switch', { profile: 'other' });
    expect(switched.body).toEqual({ active_profile: 'other' });
    const models = await t.json<{ data: Array<{ id: string; model: string }> }>('GET', '/v1/models');
    expect(models.body.data[0]).toMatchObject({ id: 'tea', model: 'other-model' });
    await t.json('POST', '/v1/config/switch', { profile: 'main_model' });
  });

  it('exports a session as Markdown and as PDF', async () => {
    t.model.script(reply().text('Answer for export 你好'));
    const chat = await t.json<{ session_id: string }>('POST', '/v1/chat/completions', {
      messages: [{ role: 'user', content: 'Export me' }],
    });
    const md = await t.req('POST', '/v1/export', { session_id: chat.body.session_id, format: 'markdown' });
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(md.headers.get('content-disposition')).toMatch(/^attachment; filename=".+\.md"$/);
    const text = await md.text();
    expect(text).toContain('## User');
    expect(text).toContain('Export me');
    expect(text).toContain('Answer for export 你好');
    const pdf = await t.req('POST', '/v1/export', { session_id: chat.body.session_id, format: 'pdf' });
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const bytes = Buffer.from(await pdf.arrayBuffer());
    expect(bytes.subarray(0, 4).toString()).toBe('%PDF');
    expect(bytes.length).toBeGreaterThan(500);
    // With a CJK font on the machine, it is embedded so the Chinese text renders.
    if (findCjkFont()) expect(bytes.toString('latin1')).toContain('WenQuanYi');
  });

  it('publishes an OpenAPI 3.1 document with every route, and a docs page', async () => {
    const res = await t.json<{
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: unknown }>>;
    }>('GET', '/openapi.json');
    expect(res.body.openapi).toBe('3.1.0');
    const expected: Array<[string, string]> = [
      ['/health', 'get'],
      ['/v1/models', 'get'],
      ['/v1/chat/completions', 'post'],
      ['/v1/sessions', 'get'],
      ['/v1/sessions', 'post'],
      ['/v1/sessions/{id}', 'get'],
      ['/v1/sessions/{id}', 'patch'],
      ['/v1/sessions/{id}', 'delete'],
      ['/v1/sessions/{id}/messages', 'get'],
      ['/v1/sessions/{id}/prompt', 'post'],
      ['/v1/sessions/{id}/events', 'get'],
      ['/v1/sessions/{id}/cancel', 'post'],
      ['/v1/sessions/{id}/approvals/{requestId}', 'post'],
      ['/v1/sessions/{id}/answers/{requestId}', 'post'],
      ['/v1/memory', 'get'],
      ['/v1/memory', 'post'],
      ['/v1/memory/search', 'get'],
      ['/v1/memory/profile', 'get'],
      ['/v1/memory/profile', 'put'],
      ['/v1/memory/{id}/pin', 'post'],
      ['/v1/memory/{id}', 'delete'],
      ['/v1/tools', 'get'],
      ['/v1/tools/{name}/run', 'post'],
      ['/v1/search', 'get'],
      ['/v1/config', 'get'],
      ['/v1/config/switch', 'post'],
      ['/v1/export', 'post'],
      ['/openapi.json', 'get'],
      ['/docs', 'get'],
    ];
    for (const [p, m] of expected) expect(res.body.paths[p]?.[m], `${m} ${p}`).toBeDefined();
    const chat = res.body.paths['/v1/chat/completions']!.post!.requestBody as {
      content: {
        'application/json': { schema: { properties: Record<string, unknown>; required: string[] } };
      };
    };
    expect(chat.content['application/json'].schema.required).toContain('messages');
    const docs = await t.req('GET', '/docs');
    expect(docs.headers.get('content-type')).toContain('text/html');
    const html = await docs.text();
    expect(html).toContain('openapi.json');
    expect(html).not.toMatch(/https?:\/\/(cdn|unpkg|jsdelivr)/);
  });

  it('serves the web UI with content types, falls back to index.html, and never leaves the folder', async () => {
    const index = await t.req('GET', '/');
    expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await index.text()).toContain('Tea UI');
    const js = await t.req('GET', '/assets/app.js');
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await t.req('GET', '/assets/style.css')).headers.get('content-type')).toBe(
      'text/css; charset=utf-8',
    );
    const route = await t.req('GET', '/sessions/abc');
    expect(await route.text()).toContain('Tea UI');
    expect((await t.req('GET', '/assets/missing.js')).status).toBe(404);
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt']) {
      const res = await t.req('GET', p);
      expect(await res.text(), p).not.toContain('outside the web dir');
    }
    // An unknown API path is a JSON 404, not the app.
    const api = await t.json<{ error: { type: string } }>('GET', '/v1/nothing-here');
    expect(api.status).toBe(404);
    expect(api.body.error.type).toBe('invalid_request_error');
  });
});
