/** The workflows service's run events end with the listener's signal (a client that went away), not only with the run. */
import { describe, expect, it } from 'vitest';
import type { WorkflowEvent } from '../../src/multi/workflow/index.js';
import { tagOf, useWorkflowRuntime } from '../multi/workflow/helpers.js';
import { reply } from '../support/script.js';

const env = useWorkflowRuntime();

const HELD = `name: held
state: { answer: string }
nodes:
  ask: { kind: agent, role: analyst, prompt: "[ask]", output: answer, next: done }
  done: { kind: end, result: "{{state.answer}}" }
`;

describe('WorkflowsService.events with a signal', () => {
  it('stops following (and stops listening) when the signal aborts; the run goes on', async () => {
    env.writeFlow('held.yaml', HELD);
    env.server().respond((body) =>
      reply()
        .text(`answer to ${tagOf(body)}`)
        .holdUntil('go'),
    );
    const wf = await env.service();
    const run = await wf.start('held', {});
    await env.server().waitForRequests(1);
    const ac = new AbortController();
    const seen: WorkflowEvent[] = [];
    const following = (async () => {
      for await (const e of wf.events(run.runId, ac.signal)) seen.push(e);
    })();
    ac.abort();
    await following;
    // It ended at the abort, before the run did; what came later was not queued for it.
    const others: WorkflowEvent[] = [];
    wf.subscribe((e) => others.push(e));
    env.server().release('go');
    expect(await run.done).toMatchObject({ status: 'completed', output: 'answer to ask' });
    expect(seen).toEqual([]);
    expect(others.at(-1)).toMatchObject({ type: 'run_end', runId: run.runId });

    // Already aborted: nothing to follow.
    const late = wf.events(run.runId, AbortSignal.abort());
    for await (const e of late) seen.push(e);
    expect(seen).toEqual([]);
  });
});
