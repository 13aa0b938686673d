import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { EvolveHooks, PromptRecord } from '../../src/agent/evolve-hooks.js';
import { Agent } from '../../src/agent/index.js';
import { Interactions } from '../../src/agent/interactions.js';
import { PermissionPolicy } from '../../src/tools/permissions.js';
import { collect } from '../support/collect.js';
import { createHarness, type Harness } from '../support/harness.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

const systemOf = (i: number) => wireText(wireMessages(h.server.requests[i]!.body)[0]!);

/** An agent on the harness with these evolve hooks. */
const agentWith = (evolve: EvolveHooks) =>
  new Agent({ provider: h.provider, tools: h.tools, store: h.store, cwd: h.workspace, evolve });

function recordingHooks(block: string | Error) {
  const records: PromptRecord[] = [];
  const inputs: string[] = [];
  const hooks: EvolveHooks = {
    skills: async (input) => {
      inputs.push(input);
      if (block instanceof Error) throw block;
      return block;
    },
    afterPrompt: async (record) => {
      records.push(record);
    },
  };
  return { hooks, records, inputs };
}

describe('evolve hooks in a session', () => {
  it('puts the skills block in L0 and hands each finished prompt to afterPrompt with the previous input', async () => {
    const { hooks, records, inputs } = recordingHooks('- pdf-tools: fill PDF forms');
    const agent = agentWith(hooks);
    const session = agent.newSession();
    h.server.script(reply().toolCall('read_file', { path: 'missing.txt' }), reply().text('It is not there.'));
    await collect(session.prompt('read missing.txt'));
    await session.settled();
    expect(systemOf(0)).toContain('## Skills\n\n- pdf-tools: fill PDF forms');
    expect(inputs).toEqual(['read missing.txt']);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      input: 'read missing.txt',
      reason: 'completed',
      text: 'It is not there.',
    });
    expect(records[0]!.previousInput).toBeUndefined();
    // user, assistant with the call, the tool result, the final answer
    expect(records[0]!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);

    h.server.script(reply().text('Sorry.'));
    await collect(session.prompt('that is wrong'));
    await session.settled();
    expect(records[1]).toMatchObject({ input: 'that is wrong', previousInput: 'read missing.txt' });
  });

  it('a failing skills hook leaves the block out and the turn runs', async () => {
    const { hooks } = recordingHooks(new Error('broken skills folder'));
    const agent = agentWith(hooks);
    h.server.script(reply().text('Hi.'));
    const events = await collect(agent.newSession().prompt('hello'));
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'completed' });
    expect(systemOf(0)).not.toContain('## Skills');
  });

  it('sub-agent sessions get no hooks', async () => {
    const { hooks, records, inputs } = recordingHooks('- a-skill: something');
    const agent = agentWith(hooks);
    const parent = agent.newSession();
    const child = agent.childSession({
      parent: { id: parent.id, callId: 'call_1', depth: 0 },
      role: 'coder',
      title: 'sub-task',
      cwd: h.workspace,
      tools: h.tools,
      settings: {},
      policy: new PermissionPolicy('yolo', []),
      interactions: new Interactions('deny'),
    });
    h.server.script(reply().text('Done.'));
    await collect(child.prompt('do the sub-task'));
    await child.settled();
    expect(inputs).toEqual([]);
    expect(records).toEqual([]);
    expect(systemOf(0)).not.toContain('## Skills');
  });
});
