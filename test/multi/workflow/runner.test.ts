/** The runner in one process: fork, cancel and resume, the loop guard, state checks, failures let through. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { reply } from '../../support/script.js';
import { FLOWS, pipelineReply, tagCounts, tagOf, useWorkflowRuntime } from './helpers.js';

const env = useWorkflowRuntime();
const PIPELINE = path.join(FLOWS, 'pipeline.yaml');
const logLines = (): string[] => readFileSync(path.join(env.work(), 'log.txt'), 'utf8').trim().split('\n');

describe('fork', () => {
  it('a fork from the condition reuses everything before it and runs the rest again, here with other answers', async () => {
    env.server().respond(pipelineReply);
    const wf = await env.service();
    const first = await wf.start(PIPELINE, {});
    expect((await first.done).status).toBe('completed');
    const check = wf.history(first.runId).find((c) => c.nodeKey === 'check')!;

    // This time the reviewer approves at once.
    env.server().reset();
    env
      .server()
      .respond((body) => (tagOf(body).startsWith('review') ? reply().text('approve') : pipelineReply(body)));
    const fork = wf.fork(first.runId, check.seq);
    expect(fork).toMatchObject({ status: 'pending', forkedFrom: first.runId, forkedSeq: check.seq });
    expect(wf.history(fork.id).map((c) => c.seq)).toEqual(
      wf
        .history(first.runId)
        .slice(0, check.seq)
        .map((c) => c.seq),
    );
    const out = await (await wf.resume(fork.id)).done;
    expect(out.status).toBe('completed');
    expect(out.state).toMatchObject({
      round: 1,
      verdict: 'approve',
      parts: ['done part_a', 'done part_b', 'done part_c'],
    });
    expect(tagCounts(env.server().requests)).toEqual({ 'review 0': 1, summary: 1 });
    // The original run is as it was.
    expect((await wf.get(first.runId)).run.state).toMatchObject({ round: 3 });
    expect(() => wf.fork(first.runId, 999)).toThrow(
      /has no checkpoint 999 \(it has 1–37: tea workflow history/,
    );
  });
});

describe('cancel, then resume', () => {
  it('a cancel while an agent waits on the model records nothing for it; resume runs only it and what follows', async () => {
    let arrived: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let held = true;
    env.server().respond((body) => {
      if (held && tagOf(body) === 'part_c') {
        arrived();
        return pipelineReply(body).holdUntil('never');
      }
      return pipelineReply(body);
    });
    const wf = await env.service();
    const run = await wf.start(PIPELINE, {});
    await waiting;
    expect(await wf.cancel(run.runId)).toEqual({ runId: run.runId, result: 'cancelled' });
    const out = await run.done;
    expect(out.status).toBe('cancelled');
    const after = await wf.get(run.runId);
    expect(after.status).toBe('cancelled');
    expect(after.nodes.find((n) => n.key === 'fan[2]/part_c')).toMatchObject({
      status: 'interrupted',
      attempts: 1,
    });
    expect(after.graph).toMatch(/⚠ part_c/);
    expect(await wf.cancel(run.runId)).toMatchObject({ result: 'finished' });

    held = false;
    const resumed = await (await wf.resume(run.runId.slice(0, 8))).done;
    expect(resumed).toMatchObject({ status: 'completed', output: 'all parts done' });
    const calls = tagCounts(env.server().requests);
    expect(calls.part_c).toBe(2);
    expect(
      Object.entries(calls)
        .filter(([tag]) => tag !== 'part_c')
        .every(([, n]) => n === 1),
    ).toBe(true);
    expect(logLines().filter((l) => l === 'plan' || l === 'a' || l === 'b')).toHaveLength(3);
    await expect(wf.resume(run.runId)).rejects.toThrow(/has already completed/);
  });
});

const LOOP = (onMax: string) => `name: stubborn
state:
  verdict: string
  tries: { type: integer, default: 0 }
nodes:
  rounds:
    kind: loop
    body: review
    until: "state.verdict == 'approve'"
    max: 2
    on_max: ${onMax}
    next: done
  review:
    kind: agent
    role: reviewer
    prompt: "[review {{loop.index}}] again"
    output: verdict
    set: { tries: "{{state.tries + 1}}" }
  done: { kind: end, result: "{{state.tries}} tries" }
`;

describe('the loop guard', () => {
  it('stops a loop whose condition never holds at max and fails the run, saying how to change that', async () => {
    env.server().respond(() => reply().text('revise'));
    const wf = await env.service();
    const out = await (await wf.start(env.writeFlow('stubborn.yaml', LOOP('fail')), {})).done;
    expect(out.status).toBe('failed');
    expect(out.error).toBe(
      `node "rounds": the loop ran its max of 2 iterations and until (state.verdict == 'approve') still does not hold; raise max or set on_max: continue`,
    );
    expect(env.server().requests).toHaveLength(2);
  });

  it('with on_max: continue the run goes on after max iterations', async () => {
    env.server().respond(() => reply().text('revise'));
    const wf = await env.service();
    const out = await (await wf.start(env.writeFlow('stubborn.yaml', LOOP('continue')), {})).done;
    expect(out).toMatchObject({ status: 'completed', output: '2 tries' });
  });
});

describe('state, errors and input', () => {
  const flow = (onError: string) => `name: typed
input:
  n: integer
state:
  count: integer
  note: string
nodes:
  count:
    kind: agent
    role: analyst
    prompt: "[count] {{input.n}}"
    output: count
    on_error: ${onError}
    next: note
  note: { kind: agent, role: analyst, prompt: "[note] {{state.count}}", output: note }
`;

  it('an answer that does not fit its state key fails the node, naming the key, the type and the value', async () => {
    env.server().respond(() => reply().text('many'));
    const wf = await env.service();
    const out = await (await wf.start(env.writeFlow('typed.yaml', flow('fail')), { n: '3' })).done;
    expect(out.status).toBe('failed');
    expect(out.error).toBe(
      'node "count": output → state.count: expected number, received string (the value was "many")',
    );
  });

  it('an answer that is JSON of the right type is taken; on_error: continue lets a failure through', async () => {
    env.server().respond((body) => reply().text(tagOf(body) === 'count' ? '```json\n42\n```' : 'ok'));
    const wf = await env.service();
    const good = await (await wf.start(env.writeFlow('typed.yaml', flow('fail')), { n: 3 })).done;
    expect(good).toMatchObject({ status: 'completed', state: { count: 42, note: 'ok' } });

    env.server().reset();
    env
      .server()
      .respond((body) =>
        tagOf(body) === 'count' ? reply().error(400, { message: 'bad' }) : reply().text('ok'),
      );
    const through = await (await wf.start(env.writeFlow('typed.yaml', flow('continue')), { n: 3 })).done;
    expect(through).toMatchObject({ status: 'completed', state: { note: 'ok' } });
    const view = wf.runner.status(through.runId);
    expect(view.nodes.find((n) => n.key === 'count')).toMatchObject({ status: 'failed' });
  });

  it('input is checked against the declared schema before a run starts', async () => {
    const wf = await env.service();
    const file = env.writeFlow('typed.yaml', flow('fail'));
    await expect(wf.start(file, {})).rejects.toThrow(
      'input of workflow typed: "n" is required (--input n=…)',
    );
    await expect(wf.start(file, { n: 'x' })).rejects.toThrow(/input of workflow typed: n: expected number/);
    await expect(wf.start(file, { n: 1, m: 2 })).rejects.toThrow(
      /"m" is not an input of typed \(it takes n\)/,
    );
    expect(wf.runs()).toHaveLength(0);
  });

  it('an unknown workflow name names the closest', async () => {
    const wf = await env.service();
    await expect(wf.start('reveiw', {})).rejects.toThrow(/no workflow named "reveiw"; did you mean review\?/);
  });
});

describe('structured output', () => {
  const SCHEMA = `name: judged
state: { verdict: { type: object, properties: { ok: boolean, why: string }, required: [ok] } }
nodes:
  judge:
    kind: agent
    role: reviewer
    prompt: "[judge] is it ok?"
    output_schema: { type: object, properties: { ok: { type: boolean }, why: { type: string } }, required: [ok] }
    output: verdict
`;

  it('an agent node with output_schema asks for JSON, checks it and stores the value', async () => {
    env.server().respond(() => reply().text('{"ok": true, "why": "tests pass"}'));
    const wf = await env.service();
    const file = env.writeFlow('judged.yaml', SCHEMA);
    const out = await (await wf.start(file, {})).done;
    expect(out).toMatchObject({ status: 'completed', state: { verdict: { ok: true, why: 'tests pass' } } });
    // The node runs as its role, told the schema its answer must match.
    expect(JSON.stringify(env.server().requests[0]!.body)).toContain(
      'Your final answer must be only a JSON value matching this JSON Schema',
    );

    env.server().reset();
    env.server().respond(() => reply().text('{"why": "no verdict"}'));
    const bad = await (await wf.start(file, {})).done;
    expect(bad.status).toBe('failed');
    // One repair round, then a clear failure naming what does not fit.
    expect(env.server().requests).toHaveLength(2);
    expect(bad.error).toMatch(/^node "judge" \(agent\) failed: the agent stopped \(error\)/);
    expect(bad.error).toContain("did not match the role's output schema after one repair round");
    expect(bad.error).toContain('- ok: expected boolean, received undefined');
  });
});
