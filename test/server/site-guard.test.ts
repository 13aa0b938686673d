/**
 * Other web sites cannot drive `tea serve`: every row of the attack table (a foreign
 * Host, a foreign Origin, a body a cross-site form or fetch can send, an approval
 * without the client header) is refused with its 4xx in the API's error shape, and
 * nothing is stored, run or started. Legitimate clients keep working: the same
 * requests with the right Host, no (or our own) Origin and JSON do store and run.
 */

import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { reply } from '../support/script.js';
import { readSse, startTestServer, type TestServer } from './helpers.js';
import { type Attack, attacks, EVIL_MEMORY, type Targets } from './site-attacks.js';

let yolo: TestServer;
let ask: TestServer;
let targets: Targets;
let baselineRequests: { yolo: number; ask: number };

interface Sent {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request with exactly these headers (Host included: none when `host` is null). */
function send(
  port: number,
  opts: {
    method: string;
    path: string;
    host: string | null;
    headers?: Record<string, string>;
    body?: string;
  },
): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.host !== null) headers.host = opts.host;
    if (opts.body !== undefined) headers['content-length'] = String(Buffer.byteLength(opts.body));
    const req = request(
      { host: '127.0.0.1', port, method: opts.method, path: opts.path, headers, setHost: false },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

const portOf = (s: TestServer) => Number(new URL(s.url).port);
const own = (s: TestServer) => `127.0.0.1:${portOf(s)}`;

/** Everything an attack could change on a server. */
async function effects(s: TestServer) {
  const config = (await (await fetch(`${s.url}/v1/config`)).json()) as { active_profile: string };
  return {
    memories: JSON.stringify(s.memory.exportAll()),
    profile: s.memory.profile(),
    files: readdirSync(s.work).sort(),
    modelRequests: s.model.requests.length,
    sessions: s.store.sessions.list().map((x) => `${x.id} ${x.title ?? ''} ${x.messageCount}`),
    active: config.active_profile,
  };
}

async function waitFor(s: TestServer, session: string, type: AgentEvent['type']): Promise<string> {
  const events = await readSse(`${s.url}/v1/sessions/${session}/events`, (e) => e.event === type);
  return (JSON.parse(events.at(-1)!.data) as { requestId: string }).requestId;
}

beforeAll(async () => {
  [yolo, ask] = await Promise.all([startTestServer({ mode: 'yolo' }), startTestServer({ mode: 'ask' })]);
  writeFileSync(path.join(yolo.work, 'secret.txt'), 'the workspace secret');
  const session = (await yolo.json<{ id: string }>('POST', '/v1/sessions')).body.id;
  const kept = await yolo.json<{ memory: { id: number } }>('POST', '/v1/memory', { content: 'Kept fact' });
  expect(kept.status).toBe(201);

  // On the ask server: one turn waits for an approval, another for an answer.
  const approvalSession = (await ask.json<{ id: string }>('POST', '/v1/sessions')).body.id;
  ask.model.script(reply().toolCall('write_file', { path: 'approved.txt', content: 'approved' }));
  await ask.json('POST', `/v1/sessions/${approvalSession}/prompt`, { input: 'write approved.txt' });
  const approvalId = await waitFor(ask, approvalSession, 'approval_request');
  const questionSession = (await ask.json<{ id: string }>('POST', '/v1/sessions')).body.id;
  ask.model.script(reply().toolCall('ask_user', { question: 'Go on?' }));
  await ask.json('POST', `/v1/sessions/${questionSession}/prompt`, { input: 'ask me first' });
  const questionId = await waitFor(ask, questionSession, 'question');

  targets = {
    port: portOf(yolo),
    session,
    memoryId: kept.body.memory.id,
    approvalSession,
    approvalId,
    questionSession,
    questionId,
  };
  baselineRequests = { yolo: yolo.model.requests.length, ask: ask.model.requests.length };
});

afterAll(async () => {
  await Promise.all([yolo?.close(), ask?.close()]);
});

const table = attacks();

describe('attacks from other web sites are refused and change nothing', () => {
  it.each(table)('$name → $status $code', async (a: Attack) => {
    const s = a.server === 'ask' ? ask : yolo;
    const t = { ...targets, port: portOf(s) };
    const before = await effects(s);
    const res = await send(t.port, {
      method: a.method,
      path: a.path(t),
      host: a.host === null ? null : a.host ? a.host(t) : own(s),
      headers: a.headers?.(t) ?? {},
      ...(a.body === undefined ? {} : { body: a.body }),
    });
    expect(res.status, res.text).toBe(a.status);
    const body = JSON.parse(res.text) as { error: Record<string, unknown> };
    expect(Object.keys(body.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(body.error.code).toBe(a.code);
    expect(String(body.error.message).length).toBeGreaterThan(20);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    expect(await effects(s)).toEqual(before);
  });

  it('covers every kind of attack, and in the end nothing was stored, run or started', () => {
    expect(table.length).toBeGreaterThanOrEqual(70);
    expect(yolo.memory.exportAll().some((m) => m.content === EVIL_MEMORY)).toBe(false);
    expect(yolo.memory.profile()).toBe('');
    expect(existsSync(path.join(yolo.work, 'pwned.txt'))).toBe(false);
    expect(yolo.model.requests.length).toBe(baselineRequests.yolo);
    expect(ask.model.requests.length).toBe(baselineRequests.ask);
    expect(existsSync(path.join(ask.work, 'approved.txt'))).toBe(false);
    expect(yolo.store.sessions.get(targets.session)?.title ?? null).toBeNull();
  });

  it('a request without any Host (HTTP/1.0) gets a 400 in the API shape', async () => {
    const socket = connect(portOf(yolo), '127.0.0.1');
    const raw = await new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (d) => {
        text += d.toString();
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
      socket.write('GET /v1/config HTTP/1.0\r\n\r\n');
    });
    expect(raw).toMatch(/^HTTP\/1\.[01] 400/);
    expect(raw).toContain('"code":"missing_host"');
    expect(raw).not.toContain('active_profile');
  });
});

describe('legitimate clients still work', () => {
  it('answers our own names: 127.0.0.1, localhost and [::1] with the port, in any case', async () => {
    const p = portOf(yolo);
    for (const host of [`127.0.0.1:${p}`, `localhost:${p}`, `[::1]:${p}`, `LocalHost:${p}`]) {
      const res = await send(p, { method: 'GET', path: '/v1/config', host });
      expect(res.status, host).toBe(200);
      expect(res.text).toContain('active_profile');
    }
  });

  it('stores and runs what curl-like JSON requests and our own pages ask for', async () => {
    const p = portOf(yolo);
    const json = { 'content-type': 'application/json; charset=utf-8' };
    const post = (route: string, body: unknown, headers: Record<string, string> = json) =>
      send(p, { method: 'POST', path: route, host: own(yolo), headers, body: JSON.stringify(body) });
    expect((await post('/v1/memory', { content: 'Plain curl memory' })).status).toBe(201);
    const sameOrigin = await post(
      '/v1/memory',
      { content: 'Same-origin memory' },
      { ...json, origin: `http://${own(yolo)}`, 'sec-fetch-site': 'same-origin', 'x-tea-client': 'web' },
    );
    expect(sameOrigin.status).toBe(201);
    const ran = await post('/v1/tools/bash/run', { args: { command: 'touch legit.txt' } });
    expect(ran.status, ran.text).toBe(200);
    expect(existsSync(path.join(yolo.work, 'legit.txt'))).toBe(true);
    const lines = await send(p, {
      method: 'POST',
      path: '/v1/memory/import',
      host: own(yolo),
      headers: { 'content-type': 'application/x-ndjson' },
      body: '{"content":"Imported as JSON Lines"}\n{"content":"A second line"}\n',
    });
    expect(lines.status, lines.text).toBe(200);
    const cancel = await send(p, {
      method: 'POST',
      path: `/v1/sessions/${targets.session}/cancel`,
      host: own(yolo),
    });
    expect(cancel.status, cancel.text).toBe(200);
    const contents = yolo.memory.list({ limit: 100 }).map((m) => m.content);
    expect(contents).toEqual(
      expect.arrayContaining(['Plain curl memory', 'Same-origin memory', 'Imported as JSON Lines']),
    );
  });

  it('takes the approval and the answer with the client header, and the turns finish', async () => {
    ask.model.script(reply().text('Wrote it.'));
    const approved = await ask.json(
      'POST',
      `/v1/sessions/${targets.approvalSession}/approvals/${targets.approvalId}`,
      { decision: 'once' },
      { 'x-tea-client': 'web', origin: `http://${own(ask)}` },
    );
    expect(approved).toEqual({ status: 200, body: { ok: true } });
    await readSse(`${ask.url}/v1/sessions/${targets.approvalSession}/events`, (e) => e.event === 'done');
    expect(existsSync(path.join(ask.work, 'approved.txt'))).toBe(true);

    ask.model.script(reply().text('Going on.'));
    const answered = await ask.json(
      'POST',
      `/v1/sessions/${targets.questionSession}/answers/${targets.questionId}`,
      { text: 'yes' },
      { 'x-tea-client': 'my-script' },
    );
    expect(answered).toEqual({ status: 200, body: { ok: true } });
  });

  it('answers configured names and lets an allowed CORS origin write', async () => {
    const s = await startTestServer({
      model: yolo.model,
      deps: { allowedHosts: ['tea.example.test', 'box.local:8443'], cors: ['http://localhost:5173'] },
    });
    try {
      const p = portOf(s);
      const get = (host: string) => send(p, { method: 'GET', path: '/v1/config', host });
      expect((await get(`tea.example.test:${p}`)).status).toBe(200);
      expect((await get('tea.example.test')).status).toBe(200);
      expect((await get('box.local:8443')).status).toBe(200);
      expect((await get(`box.local:${p}`)).status).toBe(403);
      expect((await get(`evil.example:${p}`)).status).toBe(403);
      const write = (origin: string) =>
        send(p, {
          method: 'POST',
          path: '/v1/memory',
          host: own(s),
          headers: { 'content-type': 'application/json', origin },
          body: JSON.stringify({ content: `From ${origin}` }),
        });
      const allowed = await write('http://localhost:5173');
      expect(allowed.status, allowed.text).toBe(201);
      expect(allowed.headers['access-control-allow-origin']).toBe('http://localhost:5173');
      expect((await write('http://localhost:5174')).status).toBe(403);
    } finally {
      await s.close();
    }
  });
});
