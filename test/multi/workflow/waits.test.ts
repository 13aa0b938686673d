/** Wait nodes (a timer on an injected clock, an approval by the user) and sub-workflows. */
import { describe, expect, it } from 'vitest';
import { reply } from '../../support/script.js';
import { tagCounts, tagOf, useWorkflowRuntime } from './helpers.js';

const env = useWorkflowRuntime();

/** A clock the test moves; `sleep` advances it, or while gated waits until its signal aborts. */
function fakeTime(start = 1_800_000_000_000) {
  let now = start;
  let gated = true;
  const slept: number[] = [];
  let asleep: () => void = () => undefined;
  const sleeping = new Promise<void>((resolve) => {
    asleep = resolve;
  });
  return {
    now: () => now,
    advance: (ms: number) => {
      now += ms;
    },
    ungate: () => {
      gated = false;
    },
    slept,
    sleeping,
    sleep: (ms: number, signal: AbortSignal) =>
      new Promise<void>((resolve, reject) => {
        slept.push(ms);
        if (!gated) {
          now += ms;
          resolve();
          return;
        }
        asleep();
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      }),
  };
}

const TIMER = `name: timer
state: { at: integer }
nodes:
  pause: { kind: wait, seconds: 30, output: at, next: go }
  go: { kind: agent, role: coder, prompt: "[go]" }
`;

describe('a timer', () => {
  it('waits its seconds; after an interruption it waits only what was left of them', async () => {
    env.server().respond(() => reply().text('went'));
    const time = fakeTime();
    const wf = await env.service({ now: time.now, sleep: time.sleep });
    const run = await wf.start(env.writeFlow('timer.yaml', TIMER), {});
    await time.sleeping;
    await wf.cancel(run.runId);
    expect((await run.done).status).toBe('cancelled');

    // Ten seconds later (on the injected clock) the resumed timer has twenty left.
    time.advance(10_000);
    time.ungate();
    const out = await (await wf.resume(run.runId)).done;
    expect(out).toMatchObject({ status: 'completed', state: { at: 1_800_000_030_000 } });
    expect(time.slept).toEqual([30_000, 20_000]);
    expect(tagCounts(env.server().requests)).toEqual({ go: 1 });
  });
});

const APPROVAL = `name: gated
state: { plan: string, result: string }
nodes:
  plan: { kind: agent, role: analyst, prompt: "[plan]", output: plan, next: ok }
  ok:
    kind: wait
    approval: "Apply this plan? {{state.plan}}"
    on_reject: skipped
    next: apply
  apply: { kind: agent, role: coder, prompt: "[apply] {{state.plan}}", output: result, next: done }
  done: { kind: end, result: "{{state.result}}" }
  skipped: { kind: end, result: "not applied" }
`;

describe('an approval', () => {
  it('with nobody to ask, the run waits; resume with the decision goes on (approve, or reject to on_reject)', async () => {
    env.server().respond((body) => reply().text(tagOf(body) === 'plan' ? 'the plan' : 'applied'));
    const wf = await env.service();
    const file = env.writeFlow('gated.yaml', APPROVAL);
    const first = await wf.start(file, {});
    const waiting = await first.done;
    expect(waiting).toMatchObject({
      status: 'waiting',
      waitingFor: { nodeKey: 'ok', question: 'Apply this plan? the plan' },
    });
    const view = await wf.get(first.runId);
    expect(view.status).toBe('waiting');
    expect(view.graph).toMatch(/⏸ ok/);
    const approved = await (await wf.resume(first.runId, { decision: true })).done;
    expect(approved).toMatchObject({ status: 'completed', output: 'applied' });

    const second = await wf.start(file, {});
    await second.done;
    const rejected = await (await wf.resume(second.runId, { decision: false })).done;
    expect(rejected).toMatchObject({ status: 'completed', output: 'not applied' });
    // Each run asked the planner once: the wait and the resume did not run it again.
    expect(tagCounts(env.server().requests)).toEqual({ plan: 2, apply: 1 });
  });

  it('with someone to ask, the approvals port answers at once', async () => {
    env.server().respond((body) => reply().text(tagOf(body) === 'plan' ? 'the plan' : 'applied'));
    const asked: string[] = [];
    const wf = await env.service({
      approvals: async ({ question }) => {
        asked.push(question);
        return true;
      },
    });
    const out = await (await wf.start(env.writeFlow('gated.yaml', APPROVAL), {})).done;
    expect(out).toMatchObject({ status: 'completed', output: 'applied' });
    expect(asked).toEqual(['Apply this plan? the plan']);
  });
});

describe('a sub-workflow', () => {
  it('runs as a run of its own; a resume of the parent resumes it without re-running its completed nodes', async () => {
    env.writeFlow(
      'child.yaml',
      `name: child
input: { topic: string }
state: { a: string, b: string }
nodes:
  a: { kind: agent, role: analyst, prompt: "[child a] {{input.topic}}", output: a, next: b }
  b: { kind: agent, role: analyst, prompt: "[child b] {{state.a}}", output: b, next: done }
  done: { kind: end, result: "{{state.a}} + {{state.b}}" }
`,
    );
    const parent = env.writeFlow(
      'parent.yaml',
      `name: parent
state: { sub: string }
nodes:
  call: { kind: workflow, workflow: child, input: { topic: "tea" }, output: sub, next: after }
  after: { kind: agent, role: analyst, prompt: "[after] {{state.sub}}" }
`,
    );
    let arrived: () => void = () => undefined;
    const waiting = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    let hold = true;
    env.server().respond((body) => {
      const tag = tagOf(body);
      if (hold && tag === 'child b') {
        arrived();
        return reply().text('B').holdUntil('never');
      }
      return reply().text(tag === 'child a' ? 'A' : tag === 'child b' ? 'B' : 'after done');
    });
    const wf = await env.service();
    const run = await wf.start(parent, {});
    await waiting;
    await wf.cancel(run.runId);
    expect((await run.done).status).toBe('cancelled');
    const [child] = wf.runner.status(run.runId).children;
    expect(child).toMatchObject({
      workflow: 'child',
      parentRunId: run.runId,
      parentNode: 'call',
      status: 'cancelled',
    });
    await expect(wf.resume(child!.id)).rejects.toThrow(/is a sub-workflow of run .*: resume that one/);

    hold = false;
    const out = await (await wf.resume(run.runId)).done;
    expect(out).toMatchObject({ status: 'completed', state: { sub: 'A + B' } });
    expect(tagCounts(env.server().requests)).toEqual({ 'child a': 1, 'child b': 2, after: 1 });
    expect(wf.runner.status(child!.id).run.status).toBe('completed');
  });
});
