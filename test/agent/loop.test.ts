import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/index.js';
import { collect, endedCalls, statesOf } from '../support/collect.js';
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

const types = (events: AgentEvent[]) => events.map((e) => e.type);
const done = (events: AgentEvent[]) => {
  const d = events.at(-1);
  if (d?.type !== 'done') throw new Error(`last event is ${d?.type}, not done`);
  return d;
};

describe('ReAct loop', () => {
  it('streams thinking and text, runs a tool, feeds the result back, and stops when the model stops', async () => {
    h.server.script(
      reply()
        .thinking('I should look.')
        .text('Listing.')
        .toolCall('sleep_read', { label: 'a', ms: 1 })
        .usage(100, 20),
      reply().text('All done.').usage(150, 10),
    );
    const session = h.agent().newSession();
    const events = await collect(session.prompt('look around'));

    expect(types(events)).toEqual(
      expect.arrayContaining([
        'turn_start',
        'thinking_delta',
        'text_delta',
        'tool_update',
        'usage',
        'turn_end',
        'done',
      ]),
    );
    expect(events[0]).toMatchObject({ type: 'turn_start', input: 'look around', sessionId: session.id });
    const thinking = events.flatMap((e) => (e.type === 'thinking_delta' ? [e.text] : [])).join('');
    expect(thinking).toBe('I should look.');
    const [finish] = endedCalls(events);
    expect(finish).toMatchObject({
      name: 'sleep_read',
      state: 'completed',
      kind: 'other',
      title: 'sleep_read: run a',
      content: [{ type: 'text', text: 'sleep_read a done' }],
    });
    expect(finish!.durationMs).toBeGreaterThanOrEqual(0);
    expect(finish!.startedAt).toBeGreaterThanOrEqual(finish!.createdAt);
    expect(statesOf(events, finish!.callId)).toEqual(['pending', 'running', 'completed']);
    const usage = events.filter((e) => e.type === 'usage');
    expect(usage).toHaveLength(2);
    expect(usage[0]).toMatchObject({
      model: 'scripted-model',
      usage: { inputTokens: 100, outputTokens: 20 },
    });
    // $1 / M input, $2 / M output
    expect(usage[0]?.type === 'usage' && usage[0].costUsd).toBeCloseTo((100 * 1 + 20 * 2) / 1e6, 12);
    const d = done(events);
    expect(d).toMatchObject({
      reason: 'completed',
      text: 'All done.',
      usage: { inputTokens: 250, outputTokens: 30 },
    });
    expect(events.filter((e) => e.type === 'turn_end')).toEqual([
      expect.objectContaining({ reason: 'completed', iterations: 2 }),
    ]);

    // The second request carries the tool call and its result, paired by id.
    expect(h.server.requests).toHaveLength(2);
    const second = wireMessages(h.server.requests[1]!.body);
    const call = second.find((m) => m.tool_calls)?.tool_calls?.[0];
    const result = second.find((m) => m.role === 'tool');
    expect(call?.function.name).toBe('sleep_read');
    expect(result?.tool_call_id).toBe(call?.id);
    expect(wireText(result!)).toBe('sleep_read a done');
    expect(second[0]?.role).toBe('system');
    // The tools were offered with generated JSON schemas.
    const tools = h.server.requests[0]!.body.tools as Array<{
      function: { name: string; parameters: { type: string } };
    }>;
    expect(tools.map((t) => t.function.name)).toEqual(
      expect.arrayContaining(['read_file', 'bash', 'sleep_read']),
    );
    expect(tools.every((t) => t.function.parameters.type === 'object')).toBe(true);
  });

  it('stores every message, tool call and usage row of the turn', async () => {
    h.server.script(
      reply().toolCall('sleep_read', { label: 'x', ms: 1 }).usage(10, 5),
      reply().text('ok').usage(12, 1),
    );
    const session = h.agent().newSession();
    await collect(session.prompt('go'));
    const rows = h.store.messages.list(session.id);
    expect(rows.map((r) => r.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(rows.every((r) => r.status === 'complete')).toBe(true);
    expect(h.store.toolCalls.list(session.id)).toEqual([
      expect.objectContaining({ name: 'sleep_read', state: 'completed', output: 'sleep_read x done' }),
    ]);
    expect(h.store.usage.totals(session.id)).toMatchObject({ inputTokens: 22, outputTokens: 6, calls: 2 });
    expect(h.store.sessions.get(session.id)?.title).toBe('go');
  });

  it('runs concurrency-safe tools in parallel, at most 4 at once, and returns results in the model’s order', async () => {
    const r = reply();
    for (const label of ['a', 'b', 'c', 'd', 'e', 'f'])
      r.toolCall('sleep_read', { label, ms: 160 - (label.charCodeAt(0) - 97) * 10 });
    h.server.script(r, reply().text('done'));
    const events = await collect(h.agent().newSession().prompt('read six things'));
    expect(done(events).reason).toBe('completed');

    // Never more than 4 running at the same time, and more than one did overlap.
    const maxConcurrent = Math.max(
      ...h.log.map((e) => h.log.filter((o) => o.start <= e.start && o.end > e.start).length),
    );
    expect(maxConcurrent).toBe(4);

    const results = wireMessages(h.server.requests[1]!.body).filter((m) => m.role === 'tool');
    expect(results.map((m) => wireText(m))).toEqual(
      ['a', 'b', 'c', 'd', 'e', 'f'].map((l) => `sleep_read ${l} done`),
    );
  });

  it('runs other tools one at a time, in order', async () => {
    h.server.script(
      reply()
        .toolCall('sleep_write', { label: '1', ms: 40 })
        .toolCall('sleep_read', { label: '2', ms: 40 })
        .toolCall('sleep_write', { label: '3', ms: 40 }),
      reply().text('done'),
    );
    await collect(h.agent().newSession().prompt('write things'));
    expect(h.log.map((e) => e.label)).toEqual(['1', '2', '3']);
    for (let i = 1; i < h.log.length; i++) expect(h.log[i]!.start).toBeGreaterThanOrEqual(h.log[i - 1]!.end);
  });

  it('stops at the iteration cap and says so', async () => {
    for (let i = 0; i < 3; i++) h.server.script(reply().toolCall('sleep_read', { label: `n${i}`, ms: 1 }));
    const events = await collect(
      h
        .agent({ settings: { maxIterations: 3 } })
        .newSession()
        .prompt('loop forever'),
    );
    const d = done(events);
    expect(d.reason).toBe('max_iterations');
    expect(d.message).toMatch(/after 3 model calls.*may not be complete/);
    expect(h.server.requests).toHaveLength(3);
    expect(h.server.pending()).toBe(0);
  });

  it('stops a doom loop: the third identical call is refused and the loop ends', async () => {
    for (let i = 0; i < 3; i++) h.server.script(reply().toolCall('sleep_read', { ms: 1, label: 'same' }));
    h.server.script(reply().text('never requested'));
    const events = await collect(h.agent().newSession().prompt('repeat'));
    const d = done(events);
    expect(d.reason).toBe('doom_loop');
    expect(d.message).toMatch(/sleep_read with the same arguments 3 times/);
    expect(h.log).toHaveLength(2);
    expect(h.server.requests).toHaveLength(3);
  });

  it('answers an unknown tool and bad JSON with model-readable errors, and repairs fixable JSON', async () => {
    h.server.script(
      reply()
        .toolCall('read_fil', { path: 'x' })
        .toolCallRaw('sleep_read', '{"label": "fixed", "ms": 1,}')
        .toolCallRaw('sleep_read', '{{{{ not json at all'),
      reply().text('ok'),
    );
    await collect(h.agent().newSession().prompt('try'));
    const results = wireMessages(h.server.requests[1]!.body)
      .filter((m) => m.role === 'tool')
      .map((m) => wireText(m));
    expect(results[0]).toMatch(/^\[ERROR\] Unknown tool "read_fil"\. Did you mean: read_file/);
    expect(results[1]).toBe('sleep_read fixed done');
    expect(results[2]).toMatch(/^\[ERROR\] Invalid JSON arguments for sleep_read/);
  });

  it('reports a model failure as an error event and keeps the user message', async () => {
    h.server.script(reply().error(400, { message: 'bad request: context too long' }));
    const session = h.agent().newSession();
    const events = await collect(session.prompt('hello'));
    expect(events.find((e) => e.type === 'error')).toMatchObject({
      kind: 'http',
      message: expect.stringMatching(/400/),
    });
    expect(done(events)).toMatchObject({ reason: 'error' });
    expect(h.store.messages.list(session.id).map((m) => m.role)).toEqual(['user']);
  });

  it('resumes a stored session with its full transcript', async () => {
    h.server.script(reply().toolCall('sleep_read', { label: 'r', ms: 1 }), reply().text('first answer'));
    const first = h.agent().newSession();
    await collect(first.prompt('first question'));

    h.server.script(reply().text('second answer'));
    const resumed = h.agent().resumeSession(first.id.slice(0, 8));
    expect(resumed.id).toBe(first.id);
    const events = await collect(resumed.prompt('second question'));
    expect(done(events).text).toBe('second answer');
    const msgs = wireMessages(h.server.requests[2]!.body);
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(wireText(msgs[1]!)).toBe('first question');
    expect(wireText(msgs[4]!)).toBe('first answer');
  });

  it('refuses a second prompt while one runs', async () => {
    h.server.script(reply().text('slow').chunkDelay(30));
    const session = h.agent().newSession();
    const it1 = session.prompt('one');
    await it1.next();
    await expect(session.prompt('two').next()).rejects.toThrow(/busy/);
    await collect(it1);
  });
});
