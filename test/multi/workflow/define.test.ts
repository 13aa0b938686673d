/** The TypeScript API: typed nodes (this file type-checks with the project), turned into the same definition as YAML. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  agent,
  defineWorkflow,
  end,
  fromSpec,
  loop,
  WORKFLOW_SPEC,
} from '../../../src/multi/workflow/define.js';
import { WorkflowDefinitionError } from '../../../src/multi/workflow/errors.js';

const flow = defineWorkflow({
  name: 'count',
  input: z.object({ to: z.number() }),
  state: z.object({ count: z.number().default(0), note: z.string() }),
  nodes: {
    rounds: loop({
      body: 'step',
      while: (s) => Number(s.state.count) < Number(s.input.to),
      max: 10,
      next: 'done',
    }),
    step: {
      kind: 'agent',
      role: 'coder',
      prompt: (s) => `step ${(s.state.count ?? 0) + 1} of ${s.input.to}`,
      output: 'note',
      set: { count: (s) => (s.state.count ?? 0) + 1 },
    },
    done: end({ result: '{{state.count}}' }),
  },
});

describe('defineWorkflow', () => {
  it('gives a definition like a YAML file: defaults filled, state keys optional until written', () => {
    expect(flow[WORKFLOW_SPEC]).toBe(true);
    const def = fromSpec(flow.spec, { kind: 'module', file: '/p/count.ts', hash: 'h' });
    expect(def.start).toBe('rounds');
    expect(def.nodes.rounds).toMatchObject({ kind: 'loop', onMax: 'fail', max: 10 });
    expect(def.state.parse({})).toEqual({ count: 0 });
    expect(def.input.safeParse({}).success).toBe(false);
  });

  it('a structured output given as a zod schema becomes its JSON schema', () => {
    const def = fromSpec(
      defineWorkflow({
        name: 's',
        nodes: { a: agent({ role: 'r', prompt: 'p', outputSchema: z.object({ ok: z.boolean() }) }) },
      }).spec,
      { kind: 'module', file: '/p/s.ts', hash: 'h' },
    );
    expect(def.nodes.a).toMatchObject({
      outputSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
    });
  });

  it('names what a JavaScript author left out', () => {
    const bad = { name: 'b', nodes: { a: { kind: 'agent', role: 'r' }, b: { kind: 'nope' } } };
    expect(() => fromSpec(bad as never, { kind: 'module', file: '/p/b.mjs', hash: 'h' })).toThrow(
      WorkflowDefinitionError,
    );
    expect(() => fromSpec(bad as never, { kind: 'module', file: '/p/b.mjs', hash: 'h' })).toThrow(
      /\/p\/b\.mjs: node "a": prompt: missing\. Fix: add prompt to this agent node\n\/p\/b\.mjs: node "b": kind: "nope"/,
    );
  });
});
