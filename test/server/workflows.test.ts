/**
 * Workflows through `tea serve` on loopback with the scripted model: the definitions,
 * a run started over HTTP and followed on its event stream to the end (an agent
 * node's sub-agent events flat with `parent`), the run with its nodes, sessions and
 * Mermaid graph, the list and history, an approval wait decided through resume,
 * cancel then resume, and fork.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isChild, isFirstCall, task } from '../multi/helpers.js';
import { tagCounts, tagOf } from '../multi/workflow/helpers.js';
import { reply } from '../support/script.js';
import { readSse, type SseEvent, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ mode: 'ask' });
  flow('relay.yaml', RELAY);
  flow('gated.yaml', GATED);
});
afterAll(() => t.close());
beforeEach(() => {
  t.model.respond(undefined);
  t.model.reset();
});

const CLIENT = { 'x-tea-client': 'test' };

function flow(name: string, text: string): void {
  const dir = path.join(t.work, '.tea', 'workflows');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, name), text);
}

/** An agent that delegates, two parts in parallel, a condition, an end. */
const RELAY = `name: relay
description: plan (with a helper), two parts at once, then check
input:
  topic: { type: string, description: "what to work on" }
  rounds: { type: integer, default: 1 }
state:
  plan: string
  a: string
  b: string
  parts: { type: array, items: string, default: [] }
nodes:
  plan: { kind: agent, role: general, prompt: "[plan] {{input.topic}}", output: plan, next: fan }
  fan: { kind: parallel, branches: [part_a, part_b], join: merged, concurrency: 2 }
  part_a: { kind: agent, role: analyst, prompt: "[part_a] {{state.plan}}", output: a }
  part_b: { kind: agent, role: analyst, prompt: "[part_b] {{state.plan}}", output: b }
  merged: { kind: join, output: parts, next: check }
  check: { kind: condition, when: "len(state.parts) == 2 ? 'ok' : 'short'", routes: { ok: done, short: done } }
  done: { kind: end, result: "{{state.a}} + {{state.b}}" }
`;

const GATED = `name: gated
description: plan, ask, apply
state: { plan: string, result: string }
nodes:
  plan: { kind: agent, role: analyst, prompt: "[plan]", output: plan, next: ok }
  ok: { kind: wait, approval: "Apply {{state.plan}}?", next: apply }
  apply: { kind: agent, role: coder, prompt: "[apply]", output: result, next: done }
  done: { kind: end, result: "{{state.result}}" }
`;

/** The relay's replies; the plan's first call (a delegation) waits for `gate` when given. */
function relayReplies(gate?: string): void {
  t.model.respond((body) => {
    if (isChild(body)) return reply().text('CHILD SAYS HI').usage(5, 2);
    const tag = tagOf(body);
    if (tag === 'plan') {
      if (!isFirstCall(body)) return reply().text('PLAN').usage(10, 2);
      const r = reply().toolCall('task', task(1)).usage(10, 2);
      return gate ? r.holdUntil(gate) : r;
    }
    if (tag === 'part_a') return reply().text('A').usage(10, 1);
    if (tag === 'part_b') return reply().text('B').usage(10, 1);
    return reply().text(`untagged: ${tag}`);
  });
}

type Data = Record<string, unknown>;
const data = (e: SseEvent) => JSON.parse(e.data) as Data;

interface RunBody {
  id: string;
  status: string;
  output: unknown;
  error: string | null;
  nodes: Array<Data & { key: string; status: string; kind: string }>;
  waiting: Array<{ run_id: string; node_key: string; question: string }>;
  graph: string;
  forked_from: string | null;
  forked_seq: number | null;
}

async function start(name: string, input: Data = {}): Promise<RunBody> {
  const res = await t.json<RunBody>('POST', `/v1/workflows/${name}/runs`, { input });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** Reads a run's stream to its end; `onOpen` runs once the stream says the run's status. */
function follow(id: string, onOpen: () => void = () => {}): Promise<SseEvent[]> {
  return readSse(`${t.url}/v1/workflow-runs/${id}/events`, (e, all) => {
    if (e.event === 'status' && all.length === 1) onOpen();
    return false;
  });
}

/** Waits (by its stream) until the run is no longer running; returns the run. */
async function settled(id: string): Promise<RunBody> {
  await follow(id);
  return (await t.json<RunBody>('GET', `/v1/workflow-runs/${id}`)).body;
}

describe('workflow routes', () => {
  it('lists the definitions with their source and inputs', async () => {
    flow('broken.yaml', 'name: broken\nnodes:\n  a: { kind: agent, role: r, prompt: p, next: nowhere }\n');
    const res = await t.json<{ data: Array<Data & { name: string; inputs: Data[] }> }>(
      'GET',
      '/v1/workflows',
    );
    expect(res.status).toBe(200);
    const byName = new Map(res.body.data.map((d) => [d.name, d]));
    expect(byName.get('relay')).toMatchObject({
      description: 'plan (with a helper), two parts at once, then check',
      source: 'project',
      error: null,
      shadowed: false,
      inputs: [
        { name: 'topic', type: 'string', required: true, description: 'what to work on' },
        { name: 'rounds', type: 'integer', required: false, default: 1 },
      ],
    });
    expect(byName.get('review')).toMatchObject({ source: 'builtin', error: null });
    expect(byName.get('review')!.inputs.map((i) => i.name)).toEqual(['target', 'focus']);
    expect(byName.get('broken')).toMatchObject({ source: 'project', inputs: [] });
    expect(byName.get('broken')!.error).toContain('no node named "nowhere"');
  });

  it('starts a run that runs in the server; its stream follows it to the end, sub-agents flat with parent', async () => {
    relayReplies('go');
    const run = await start('relay', { topic: 'widgets' });
    expect(run.status).toBe('running');
    const events = await follow(run.id, () => t.model.release('go'));
    const types = events.map((e) => e.event);
    expect(types[0]).toBe('status');
    expect(data(events[0]!)).toEqual({ type: 'status', runId: run.id, status: 'running' });
    for (const e of events) expect(data(e).type).toBe(e.event);
    // It ends with the run's end (the stream closes there).
    expect(data(events.at(-1)!)).toMatchObject({
      type: 'run_end',
      runId: run.id,
      status: 'completed',
      output: 'A + B',
    });
    const nodeEnds = events.filter((e) => e.event === 'node_end').map((e) => data(e).nodeKey);
    // The parts run at once: they end in either order.
    expect([nodeEnds[0], ...nodeEnds.slice(1, 3).sort(), ...nodeEnds.slice(3)]).toEqual([
      'plan',
      'fan[0]/part_a',
      'fan[1]/part_b',
      'fan',
      'merged',
      'check',
      'done',
    ]);
    const agent = events.filter((e) => e.event === 'agent').map(data);
    const inner = agent.map((a) => a.event as Data & { type: string; parent?: Data });
    expect(inner.some((e) => e.type === 'subagent')).toBe(false);
    const nested = agent.filter((a) => (a.event as Data).parent !== undefined);
    expect(nested.length).toBeGreaterThan(0);
    for (const a of nested) {
      expect(a.nodeKey).toBe('plan');
      expect((a.event as Data).parent).toMatchObject({
        role: 'general',
        depth: 1,
        sessionId: expect.any(String),
      });
    }
    expect(nested.some((a) => (a.event as Data).type === 'done')).toBe(true);
    expect(events.filter((e) => e.event === 'checkpoint').length).toBeGreaterThan(5);

    const got = await t.json<RunBody>('GET', `/v1/workflow-runs/${run.id.slice(0, 8)}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: run.id, status: 'completed', output: 'A + B', error: null });
    const plan = got.body.nodes.find((n) => n.key === 'plan')!;
    expect(plan).toMatchObject({ kind: 'agent', status: 'completed', role: 'general', value: 'PLAN' });
    const session = await t.json<{ id: string; title: string }>('GET', `/v1/sessions/${plan.session_id}`);
    expect(session.status).toBe(200);
    expect(session.body.title).toContain('plan');
    expect(got.body.graph).toMatch(/^flowchart TD\n/);
    expect(got.body.graph).toContain('n0["✓ plan<br/>agent: general"]');
    const marked = /\n {2}class (\S+) completed\n/.exec(got.body.graph)?.[1]?.split(',');
    expect(marked?.sort()).toEqual(['n0', 'n1', 'n2', 'n3', 'n4', 'n5', 'n6']);

    const list = await t.json<{ data: Array<Data> }>('GET', '/v1/workflow-runs?limit=5');
    expect(list.body.data[0]).toMatchObject({ id: run.id, workflow: 'relay', status: 'completed' });
    expect(list.body.data[0]!.duration_ms).toEqual(expect.any(Number));

    const history = await t.json<{ run_id: string; data: Array<Data> }>(
      'GET',
      `/v1/workflow-runs/${run.id}/history`,
    );
    expect(history.body.run_id).toBe(run.id);
    expect(history.body.data.map((c) => c.seq)).toEqual(history.body.data.map((_, i) => i + 1));
    expect(history.body.data[0]).toMatchObject({ node_key: 'plan', event: 'start', kind: 'agent' });
    // A finished run's stream says so and ends.
    const after = await follow(run.id);
    expect(after.map((e) => [e.event, data(e).status])).toEqual([['status', 'completed']]);
  });

  it('a run waiting for approval: its question, then resume with approve (or reject)', async () => {
    t.model.respond((body) =>
      tagOf(body) === 'plan' ? reply().text('P1').holdUntil('plan') : reply().text('applied'),
    );
    const run = await start('gated');
    const events = await follow(run.id, () => t.model.release('plan'));
    expect(events.map(data).filter((e) => e.type === 'approval_request')).toEqual([
      { type: 'approval_request', runId: run.id, nodeKey: 'ok', question: 'Apply P1?' },
    ]);
    expect(data(events.at(-1)!)).toMatchObject({ type: 'run_end', status: 'waiting' });
    const waiting = (await t.json<RunBody>('GET', `/v1/workflow-runs/${run.id}`)).body;
    expect(waiting.status).toBe('waiting');
    expect(waiting.waiting).toEqual([{ run_id: run.id, node_key: 'ok', question: 'Apply P1?' }]);
    expect(waiting.nodes.find((n) => n.key === 'ok')).toMatchObject({
      status: 'waiting',
      question: 'Apply P1?',
    });
    expect(waiting.graph).toContain('class n1 waiting');

    // A decision is an approval: it needs the client header, and a node the run waits at.
    const bare = await t.json<{ error: Data }>('POST', `/v1/workflow-runs/${run.id}/resume`, {
      decision: 'approve',
    });
    expect(bare.status).toBe(403);
    expect(bare.body.error.code).toBe('client_header_required');
    const wrong = await t.json<{ error: Data }>(
      'POST',
      `/v1/workflow-runs/${run.id}/resume`,
      { decision: 'approve', node: 'apply' },
      CLIENT,
    );
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toMatchObject({ param: 'node', code: 'invalid_value' });
    expect(wrong.body.error.message).toBe(`run ${run.id} waits for an approval at ok, not at "apply"`);

    const resumed = await t.json<RunBody>(
      'POST',
      `/v1/workflow-runs/${run.id}/resume`,
      { decision: 'approve', node: 'ok' },
      CLIENT,
    );
    expect(resumed.status).toBe(202);
    const done = await settled(run.id);
    expect(done).toMatchObject({ status: 'completed', output: 'applied', waiting: [] });
    expect(tagCounts(t.model.requests)).toEqual({ plan: 1, apply: 1 });

    const again = await start('gated');
    expect((await settled(again.id)).status).toBe('waiting');
    const rejected = await t.json<RunBody>(
      'POST',
      `/v1/workflow-runs/${again.id}/resume`,
      { decision: 'reject' },
      CLIENT,
    );
    expect(rejected.status).toBe(202);
    expect(await settled(again.id)).toMatchObject({
      status: 'failed',
      error: 'node "ok" (wait) failed: rejected by the user: Apply P1?',
    });
  });

  it('cancel stops a running run (its stream ends), resume goes on with the interrupted node', async () => {
    t.model.respond((body) =>
      tagOf(body) === 'plan' ? reply().text('never').holdUntil('never') : reply().text('x'),
    );
    const run = await start('gated');
    await t.model.waitForRequests(1);
    // The running agent node names its session before the run records it.
    const running = (await t.json<RunBody>('GET', `/v1/workflow-runs/${run.id}`)).body;
    const plan = running.nodes.find((n) => n.key === 'plan')!;
    expect(plan).toMatchObject({ status: 'running', session_id: expect.any(String) });
    expect((await t.req('GET', `/v1/sessions/${plan.session_id}`)).status).toBe(200);
    const stream = follow(run.id);
    const cancel = await t.json<Data>('POST', `/v1/workflow-runs/${run.id}/cancel`);
    expect(cancel).toEqual({ status: 200, body: { id: run.id, result: 'cancelled', status: 'cancelled' } });
    const events = await stream;
    const last = data(events.at(-1)!);
    expect(last.status).toBe('cancelled');
    expect((await t.json<Data>('POST', `/v1/workflow-runs/${run.id}/cancel`)).body.result).toBe('finished');

    t.model.respond((body) => reply().text(tagOf(body) === 'plan' ? 'P2' : 'applied'));
    const resumed = await t.json<RunBody>('POST', `/v1/workflow-runs/${run.id}/resume`);
    expect(resumed.status).toBe(202);
    const waiting = await settled(run.id);
    expect(waiting.waiting).toEqual([{ run_id: run.id, node_key: 'ok', question: 'Apply P2?' }]);
    expect(waiting.nodes.find((n) => n.key === 'plan')).toMatchObject({ attempts: 2, status: 'completed' });
  });

  it('forks a run from a checkpoint: what came before is reused, what came after runs again', async () => {
    relayReplies();
    const first = await settled((await start('relay', { topic: 'gears' })).id);
    expect(first.status).toBe('completed');
    const history = (
      await t.json<{ data: Array<{ seq: number; node_key: string; event: string }> }>(
        'GET',
        `/v1/workflow-runs/${first.id}/history`,
      )
    ).body.data;
    const planned = history.find((c) => c.node_key === 'plan' && c.event === 'result')!.seq;
    t.model.reset();
    relayReplies();
    const fork = await t.json<RunBody>('POST', `/v1/workflow-runs/${first.id}/fork`, { checkpoint: planned });
    expect(fork.status).toBe(201);
    expect(fork.body).toMatchObject({ forked_from: first.id, forked_seq: planned });
    expect(await settled(fork.body.id)).toMatchObject({ status: 'completed', output: 'A + B' });
    expect(tagCounts(t.model.requests)).toEqual({ part_a: 1, part_b: 1 });

    const pending = await t.json<RunBody>('POST', `/v1/workflow-runs/${first.id}/fork`, {
      checkpoint: planned,
      start: false,
    });
    expect(pending.body.status).toBe('pending');
    const events = await follow(pending.body.id);
    expect(events.map((e) => [e.event, data(e).status])).toEqual([['status', 'pending']]);
  });
});
