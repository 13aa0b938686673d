/**
 * A prompt a rule answers, through a real session: one tool call on the loop's own
 * execution path, no request to the (scripted) model server, and a transcript the
 * model sees in its next turn.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/agent/index.js';
import { compileUserRules } from '../../../src/agent/rules/index.js';
import type { SettingsInput } from '../../../src/agent/settings.js';
import { collect, endedCalls, statesOf, toolRecords } from '../../support/collect.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { reply } from '../../support/script.js';
import { wireMessages, wireText } from '../../support/wire.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  await h.close();
});

type Done = Extract<AgentEvent, { type: 'done' }>;
const done = (events: AgentEvent[]): Done => events.at(-1) as Done;
const session = (settings: SettingsInput = {}) => h.agent({ settings }).newSession();

describe('a rule prompt', () => {
  it('runs one tool call with no model request, stored as the loop stores a call', async () => {
    const s = session();
    const events = await collect(s.prompt('!echo rule-said-hi'));
    expect(h.server.requests).toHaveLength(0);
    expect(events.map((e) => e.type)).toEqual([
      'turn_start',
      'tool_update',
      'tool_update',
      'tool_update',
      'turn_end',
      'done',
    ]);
    const [call] = endedCalls(events);
    expect(call).toMatchObject({ name: 'bash', args: { command: 'echo rule-said-hi' }, state: 'completed' });
    expect(statesOf(events, call!.callId)).toEqual(['pending', 'running', 'completed']);
    expect(done(events)).toMatchObject({ reason: 'completed', usage: { inputTokens: 0, outputTokens: 0 } });
    expect(done(events).text).toMatch(/rule-said-hi/);
    // user message, assistant message with the call, the tool result
    const stored = h.store.messages.list(s.id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(stored[1]!.parts).toEqual([
      { type: 'tool-call', id: call!.callId, name: 'bash', args: { command: 'echo rule-said-hi' } },
    ]);
    expect(stored[2]!.parts[0]).toMatchObject({ type: 'tool-result', callId: call!.callId, isError: false });
    expect(h.store.toolCalls.list(s.id).map((c) => c.state)).toEqual(['completed']);
    // The tool's result answers the turn: nothing to retry.
    expect(s.canRetry).toBe(false);
  });

  it('the model sees the call and its result in the next turn', async () => {
    const s = session();
    await collect(s.prompt('!echo marker-42'));
    h.server.script(reply().text('I see marker-42.'));
    const events = await collect(s.prompt('what did it print?'));
    expect(done(events).text).toBe('I see marker-42.');
    expect(h.server.requests).toHaveLength(1);
    const msgs = wireMessages(h.server.requests[0]!.body).slice(1);
    expect(msgs.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(wireText(msgs[0]!)).toBe('!echo marker-42');
    expect(msgs[1]!.tool_calls?.[0]?.function).toEqual({
      name: 'bash',
      arguments: JSON.stringify({ command: 'echo marker-42' }),
    });
    expect(msgs[2]!.tool_call_id).toBe(msgs[1]!.tool_calls?.[0]?.id);
    expect(wireText(msgs[2]!) || String(msgs[2]!.content)).toMatch(/marker-42/);
  });

  it.each([
    ['/read notes.txt', 'read_file', /line one/],
    ['/ls', 'list_dir', /notes\.txt/],
    ['/grep "line one"', 'grep', /notes\.txt/],
    ['/time UTC', 'current_time', /UTC|\+00:00|Z/],
  ])('%s runs %s', async (input, tool, output) => {
    writeFileSync(path.join(h.workspace, 'notes.txt'), 'line one\nline two\n');
    const events = await collect(session().prompt(input));
    expect(h.server.requests).toHaveLength(0);
    expect(endedCalls(events)).toEqual([expect.objectContaining({ name: tool, state: 'completed' })]);
    expect(done(events).text).toMatch(output);
  });

  it('a usage error is answered without a model call and stored nowhere', async () => {
    const s = session();
    const events = await collect(s.prompt('/read'));
    expect(events).toEqual([
      { type: 'error', kind: 'rule_usage', message: '/read takes one argument, got 0. Usage: /read <path>' },
      expect.objectContaining({ type: 'done', reason: 'error' }),
    ]);
    expect(h.store.messages.list(s.id)).toEqual([]);
    expect(h.server.requests).toHaveLength(0);
  });

  it('with rules_fast_path off, the same prompt goes to the model', async () => {
    h.server.script(reply().text('from the model'));
    const events = await collect(session({ rules: { fastPath: false, user: [] } }).prompt('!echo x'));
    expect(h.server.requests).toHaveLength(1);
    expect(toolRecords(events)).toEqual([]);
    expect(done(events).text).toBe('from the model');
  });

  it('asks for approval like any call, and runs once approved', async () => {
    const s = session({ permissionMode: 'ask', approvals: 'ask' });
    const out: AgentEvent[] = [];
    for await (const e of s.prompt('!touch made-by-rule')) {
      out.push(e);
      if (e.type === 'approval_request') s.approve(e.requestId, 'once');
    }
    const call = endedCalls(out)[0]!;
    expect(statesOf(out, call.callId)).toEqual(['pending', 'awaiting_approval', 'running', 'completed']);
    expect(out.some((e) => e.type === 'approval_result')).toBe(true);
    expect(h.server.requests).toHaveLength(0);
  });
});

describe('rules and queued messages', () => {
  it('a steering message that looks like a rule goes to the model as text', async () => {
    h.server.script(reply().toolCall('sleep_write', { label: 'one', ms: 30 }), reply().text('ok'));
    const s = session();
    let steered = false;
    const events: AgentEvent[] = [];
    for await (const e of s.prompt('work')) {
      events.push(e);
      if (e.type === 'tool_update' && e.record.state === 'running' && !steered)
        steered = s.steer('!echo steered');
    }
    expect(steered).toBe(true);
    expect(toolRecords(events).some((r) => r.name === 'bash')).toBe(false);
    const msgs = wireMessages(h.server.requests[1]!.body);
    expect(msgs.at(-1)).toMatchObject({ role: 'user' });
    expect(wireText(msgs.at(-1)!)).toBe('!echo steered');
  });

  it('a follow-up queued during a rule prompt goes to the model', async () => {
    h.server.script(reply().text('followed up'));
    const s = session();
    const events: AgentEvent[] = [];
    for await (const e of s.prompt('!echo first')) {
      events.push(e);
      if (e.type === 'turn_start' && events.length === 1) s.followUp('/ls');
    }
    expect(endedCalls(events).map((r) => r.name)).toEqual(['bash']);
    expect(h.server.requests).toHaveLength(1);
    expect(wireText(wireMessages(h.server.requests[0]!.body).at(-1)!)).toBe('/ls');
    expect(done(events).text).toBe('followed up');
  });
});

describe('with no model configured', () => {
  const noModel = 'No model is configured. Set OPENAI_API_KEY.';

  it('runs rules, and answers other prompts with how to configure one and the rules that work', async () => {
    const s = h.agent({ noModel, settings: {} }).newSession();
    const ran = await collect(s.prompt('!echo works-without-model'));
    expect(done(ran)).toMatchObject({ reason: 'completed' });
    expect(done(ran).text).toMatch(/works-without-model/);
    const before = h.store.messages.count(s.id);
    const refused = await collect(s.prompt('hello'));
    expect(refused[0]).toMatchObject({ type: 'error', kind: 'no_model' });
    const message = (refused[0] as { message: string }).message;
    expect(message).toContain(noModel);
    expect(message).toMatch(/!<command>/);
    expect(message).toMatch(/\/read <path>/);
    expect(done(refused)).toMatchObject({ reason: 'error' });
    expect(h.store.messages.count(s.id)).toBe(before);
    expect(h.server.requests).toHaveLength(0);
  });
});

describe('user rules', () => {
  const rules = (list: Array<{ pattern: string; tool: string; args: Record<string, unknown> }>) => ({
    fastPath: true,
    user: compileUserRules(list.map((r, i) => ({ ...r, source: `test: rules[${i}]` }))),
  });

  it('run their tool with the captures put into string arguments', async () => {
    const s = session({
      rules: rules([
        {
          pattern: '^say (\\w+) (\\d+)$',
          tool: 'bash',
          args: { command: 'echo $1-$2 $$', timeout_ms: 5000 },
        },
      ]),
    });
    const events = await collect(s.prompt('say hello 7'));
    expect(endedCalls(events)[0]).toMatchObject({ args: { command: 'echo hello-7 $', timeout_ms: 5000 } });
    expect(done(events).text).toMatch(/hello-7 \$/);
    expect(h.server.requests).toHaveLength(0);
  });

  it('an unknown tool is a clear error when the rule matches', async () => {
    const s = session({ rules: rules([{ pattern: '^x$', tool: 'bsh', args: {} }]) });
    const events = await collect(s.prompt('x'));
    expect(events[0]).toMatchObject({ type: 'error', kind: 'rule_unknown_tool' });
    expect((events[0] as { message: string }).message).toMatch(
      /^test: rules\[0\]: the rule names the tool `bsh`, which does not exist here\. .*Fix: set its `tool:`/,
    );
    expect(h.store.messages.list(s.id)).toEqual([]);
  });
});
