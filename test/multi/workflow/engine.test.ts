import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorkflowEvent } from '../../../src/multi/workflow/index.js';
import { FLOWS, pipelineReply, tagCounts, useWorkflowRuntime } from './helpers.js';

const env = useWorkflowRuntime();
const PIPELINE = path.join(FLOWS, 'pipeline.yaml');

describe('a workflow with parallel, condition and loop nodes', () => {
  it('runs to the end: every node once, branches merged in order, the loop until approved', async () => {
    env.server().respond(pipelineReply);
    const wf = await env.service();
    const events: WorkflowEvent[] = [];
    wf.subscribe((e) => events.push(e));
    const run = await wf.start(PIPELINE, {});
    const out = await run.done;
    expect(out).toMatchObject({ status: 'completed', output: 'all parts done' });
    expect(out.state).toEqual({
      plan: 'PLAN: three parts',
      parts: ['done part_a', 'done part_b', 'done part_c'],
      a: 'done part_a',
      b: 'done part_b',
      c: 'done part_c',
      round: 3,
      verdict: 'approve',
      summary: 'all parts done',
    });
    expect(tagCounts(env.server().requests)).toEqual({
      plan: 1,
      part_a: 1,
      part_b: 1,
      part_c: 1,
      'review 0': 1,
      'review 1': 1,
      'review 2': 1,
      summary: 1,
    });
    const log = readFileSync(path.join(env.work(), 'log.txt'), 'utf8').trim().split('\n');
    expect(log.sort()).toEqual(['a', 'b', 'c', 'plan', 'review 0', 'review 1', 'review 2']);
    const details = await wf.get(run.runId);
    expect(details.status).toBe('completed');
    expect(details.nodes.every((n) => n.status === 'completed' && n.attempts <= 1)).toBe(true);
    expect(details.nodes.map((n) => n.key)).toContain('improve#2/review');
    expect(details.graph).toMatch(/^flowchart TD/);
    expect(events.filter((e) => e.type === 'checkpoint').length).toBe(wf.history(run.runId).length);
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'completed' });
  });

  it("a run's events as an async iterable: from the moment it is asked for to the run's end", async () => {
    env.server().respond(pipelineReply);
    const wf = await env.service();
    const run = await wf.start(PIPELINE, {});
    const seen: WorkflowEvent[] = [];
    for await (const e of wf.events(run.runId)) seen.push(e);
    expect(seen.at(-1)).toMatchObject({ type: 'run_end', runId: run.runId, status: 'completed' });
    const ended = seen.filter((e) => e.type === 'node_end').map((e) => (e as { nodeKey: string }).nodeKey);
    expect(ended).toContain('summary');
    expect(ended).toContain('fan[2]/part_c');
    expect(seen.some((e) => e.type === 'agent' && e.event.type === 'text_delta')).toBe(true);
  });
});
