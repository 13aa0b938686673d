/**
 * Workflow routes given bad requests answer OpenAI-style errors that name the
 * problem; the token guards them like every route (the event stream takes ?token=);
 * a server that shuts down cancels the runs it executes, and they resume.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/index.js';
import { tagOf } from '../multi/workflow/helpers.js';
import { reply } from '../support/script.js';
import { startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
let doneRun: string;
let waitingRun: string;

function flow(work: string, name: string, text: string): void {
  const dir = path.join(work, '.tea', 'workflows');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), text);
}

const ONE = `name: one
input:
  topic: { type: string }
  count: { type: integer, default: 1 }
state: { answer: string }
nodes:
  ask: { kind: agent, role: analyst, prompt: "[ask] {{input.topic}}", output: answer, next: done }
  done: { kind: end, result: "{{state.answer}}" }
`;
const GATE = `name: gate
nodes:
  ok: { kind: wait, approval: "Go on?", next: done }
  done: { kind: end, result: "went on" }
`;

/** Starts a run and waits, by its stream, until it stops running. */
async function runToRest(s: TestServer, name: string, input: Record<string, unknown> = {}): Promise<string> {
  const res = await s.json<{ id: string }>('POST', `/v1/workflows/${name}/runs`, { input });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const ac = new AbortController();
  const stream = await fetch(`${s.url}/v1/workflow-runs/${res.body.id}/events`, { signal: ac.signal });
  await stream.text();
  return res.body.id;
}

beforeAll(async () => {
  t = await startTestServer({ mode: 'ask' });
  flow(t.work, 'one.yaml', ONE);
  flow(t.work, 'gate.yaml', GATE);
  flow(t.work, 'norole.yaml', 'name: norole\nnodes:\n  a: { kind: agent, role: nobody, prompt: p }\n');
  flow(
    t.work,
    'broken.yaml',
    'name: broken\nnodes:\n  a: { kind: agent, role: r, prompt: p, next: nowhere }\n',
  );
  t.model.respond(() => reply().text('an answer'));
  doneRun = await runToRest(t, 'one', { topic: 'x' });
  waitingRun = await runToRest(t, 'gate');
});
afterAll(() => t.close());

interface Case {
  name: string;
  method: string;
  path: () => string;
  body?: unknown;
  headers?: Record<string, string>;
  status: number;
  code: string;
  param?: string | null;
  message?: RegExp;
}

const CLIENT = { 'x-tea-client': 'test' };
const cases: Case[] = [
  {
    name: 'unknown workflow',
    method: 'POST',
    path: () => '/v1/workflows/onee/runs',
    body: { input: { topic: 'x' } },
    status: 404,
    code: 'workflow_not_found',
    param: 'name',
    message: /^no workflow named "onee"; did you mean one\? \(GET \/v1\/workflows lists them\)$/,
  },
  {
    name: 'a file, not a name',
    method: 'POST',
    path: () => '/v1/workflows/one.yaml/runs',
    status: 404,
    code: 'workflow_not_found',
    message: /by its name, not a file/,
  },
  {
    name: 'an input the workflow does not take',
    method: 'POST',
    path: () => '/v1/workflows/one/runs',
    body: { input: { topic: 'x', topik: 'y' } },
    status: 400,
    code: 'invalid_value',
    param: 'input',
    message: /"topik" is not an input of one \(it takes topic, count\)/,
  },
  {
    name: 'a required input missing',
    method: 'POST',
    path: () => '/v1/workflows/one/runs',
    body: {},
    status: 400,
    code: 'invalid_value',
    param: 'input',
    message: /"topic" is required/,
  },
  {
    name: 'an input of the wrong type',
    method: 'POST',
    path: () => '/v1/workflows/one/runs',
    body: { input: { topic: 'x', count: 'many' } },
    status: 400,
    param: 'input',
    code: 'invalid_value',
    message: /count: /,
  },
  {
    name: 'input not an object',
    method: 'POST',
    path: () => '/v1/workflows/one/runs',
    body: { input: ['x'] },
    status: 400,
    param: 'input',
    code: 'invalid_value',
  },
  {
    name: 'a workflow file that does not load',
    method: 'POST',
    path: () => '/v1/workflows/broken/runs',
    status: 422,
    code: 'invalid_workflow',
    message: /broken\.yaml:3: node "a": next: no node named "nowhere"/,
  },
  {
    name: 'a workflow naming a role there is not',
    method: 'POST',
    path: () => '/v1/workflows/norole/runs',
    status: 422,
    code: 'invalid_workflow',
    message: /node "a": no role named "nobody"/,
  },
  {
    name: 'unknown run',
    method: 'GET',
    path: () => '/v1/workflow-runs/00000000-0000-4000-8000-000000000000',
    status: 404,
    code: 'run_not_found',
    param: 'id',
  },
  {
    name: 'a too short prefix',
    method: 'GET',
    path: () => '/v1/workflow-runs/ab',
    status: 404,
    code: 'run_not_found',
  },
  {
    name: 'events of an unknown run',
    method: 'GET',
    path: () => '/v1/workflow-runs/nope-nope/events',
    status: 404,
    code: 'run_not_found',
  },
  {
    name: 'history of an unknown run',
    method: 'GET',
    path: () => '/v1/workflow-runs/nope-nope/history',
    status: 404,
    code: 'run_not_found',
  },
  {
    name: 'a bad limit',
    method: 'GET',
    path: () => '/v1/workflow-runs?limit=0',
    status: 400,
    code: 'invalid_value',
    param: 'limit',
  },
  {
    name: 'resume a completed run',
    method: 'POST',
    path: () => `/v1/workflow-runs/${doneRun}/resume`,
    status: 409,
    code: 'run_finished',
  },
  {
    name: 'a decision for a run that waits for none',
    method: 'POST',
    path: () => `/v1/workflow-runs/${doneRun}/resume`,
    body: { decision: 'approve' },
    headers: CLIENT,
    status: 409,
    code: 'nothing_waiting',
    message: /does not wait for an approval \(it is completed\)/,
  },
  {
    name: 'a node without a decision',
    method: 'POST',
    path: () => `/v1/workflow-runs/${waitingRun}/resume`,
    body: { node: 'ok' },
    status: 400,
    param: 'decision',
    code: 'invalid_value',
  },
  {
    name: 'an unknown decision',
    method: 'POST',
    path: () => `/v1/workflow-runs/${waitingRun}/resume`,
    body: { decision: 'maybe' },
    headers: CLIENT,
    status: 400,
    param: 'decision',
    code: 'invalid_value',
  },
  {
    name: 'fork without a checkpoint',
    method: 'POST',
    path: () => `/v1/workflow-runs/${doneRun}/fork`,
    body: {},
    status: 400,
    param: 'checkpoint',
    code: 'invalid_value',
  },
  {
    name: 'fork from a checkpoint the run lacks',
    method: 'POST',
    path: () => `/v1/workflow-runs/${doneRun}/fork`,
    body: { checkpoint: 99 },
    status: 400,
    param: 'checkpoint',
    code: 'invalid_value',
    message: /has no checkpoint 99 \(it has 1–3/,
  },
  {
    name: 'cancel an unknown run',
    method: 'POST',
    path: () => '/v1/workflow-runs/nope-nope/cancel',
    status: 404,
    code: 'run_not_found',
  },
  {
    name: 'a wrong method',
    method: 'DELETE',
    path: () => '/v1/workflows',
    status: 405,
    code: 'method_not_allowed',
  },
];

describe('workflow routes: bad requests', () => {
  it.each(cases)('$name → $status $code', async (c) => {
    const body = c.body === undefined ? undefined : JSON.stringify(c.body);
    const res = await t.req(c.method, c.path(), body, c.headers ?? {});
    const json = (await res.json()) as {
      error: { message: string; type: string; param: unknown; code: string };
    };
    expect(res.status, json.error?.message).toBe(c.status);
    expect(Object.keys(json.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(json.error.type).toBe('invalid_request_error');
    expect(json.error.code).toBe(c.code);
    if (c.param !== undefined) expect(json.error.param).toBe(c.param);
    if (c.message) expect(json.error.message).toMatch(c.message);
  });

  it('the routes are in the OpenAPI document', async () => {
    const doc = await t.json<{ paths: Record<string, Record<string, { tags: string[] }>> }>(
      'GET',
      '/openapi.json',
    );
    const expected: Array<[string, string]> = [
      ['/v1/workflows', 'get'],
      ['/v1/workflows/{name}/runs', 'post'],
      ['/v1/workflow-runs', 'get'],
      ['/v1/workflow-runs/{id}', 'get'],
      ['/v1/workflow-runs/{id}/history', 'get'],
      ['/v1/workflow-runs/{id}/resume', 'post'],
      ['/v1/workflow-runs/{id}/cancel', 'post'],
      ['/v1/workflow-runs/{id}/fork', 'post'],
      ['/v1/workflow-runs/{id}/events', 'get'],
    ];
    for (const [p, m] of expected) expect(doc.body.paths[p]?.[m]?.tags, `${m} ${p}`).toEqual(['workflows']);
  });
});

describe('workflow routes: token and shutdown', () => {
  it('need the token (the stream takes ?token=); a shutdown cancels running runs, which resume', async () => {
    const s = await startTestServer({ model: t.model, deps: { token: 'tok-123456' } });
    const auth = { authorization: 'Bearer tok-123456' };
    flow(s.work, 'one.yaml', ONE);
    try {
      expect((await s.req('GET', '/v1/workflows')).status).toBe(401);
      expect((await s.req('GET', '/v1/workflow-runs')).status).toBe(401);
      expect((await s.req('POST', '/v1/workflows/one/runs', { input: { topic: 'x' } })).status).toBe(401);
      t.model.reset();
      t.model.respond((body) =>
        reply()
          .text('held')
          .holdUntil(`held-${tagOf(body)}`),
      );
      const started = await s.json<{ id: string; status: string }>(
        'POST',
        '/v1/workflows/one/runs',
        { input: { topic: 'x' } },
        auth,
      );
      expect(started.status).toBe(201);
      await t.model.waitForRequests(1);
      const ac = new AbortController();
      const events = await fetch(`${s.url}/v1/workflow-runs/${started.body.id}/events?token=tok-123456`, {
        signal: ac.signal,
      });
      expect(events.status).toBe(200);
      ac.abort();

      // The server stops: the run it executes is cancelled (its node was cut short), not lost.
      await s.server.close();
      const store = Store.open(path.join(s.home, 'tea.db'));
      try {
        expect(store.workflows.get(started.body.id)).toMatchObject({ status: 'cancelled', holder: null });
      } finally {
        store.close();
      }
      const wf = await s.rt.workflows();
      t.model.respond(() => reply().text('after the restart'));
      const resumed = await wf.resume(started.body.id);
      expect(await resumed.done).toMatchObject({ status: 'completed', output: 'after the restart' });
    } finally {
      t.model.respond(undefined);
      await s.close();
    }
  });
});
