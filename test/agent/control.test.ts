import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/index.js';
import { endedCalls, statesOf } from '../support/collect.js';
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

/** Drains a prompt, calling `on` for each event (it may cancel, steer or follow up). */
async function drive(
  it: AsyncIterable<AgentEvent>,
  on: (e: AgentEvent) => void = () => {},
): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const e of it) {
    out.push(e);
    on(e);
  }
  return out;
}

const last = (events: AgentEvent[]) => events.at(-1) as Extract<AgentEvent, { type: 'done' }>;

describe('cancellation', () => {
  it('before an iteration: an already-aborted signal makes no model call', async () => {
    h.server.script(reply().text('unused'));
    const ac = new AbortController();
    ac.abort();
    const session = h.agent().newSession();
    const events = await drive(session.prompt('hi', { signal: ac.signal }));
    expect(last(events).reason).toBe('cancelled');
    expect(h.server.requests).toHaveLength(0);
    expect(h.store.messages.list(session.id).map((m) => m.role)).toEqual(['user']);
  });

  it('before the next iteration: cancelling during a tool keeps its result and calls the model no more', async () => {
    h.server.script(reply().toolCall('sleep_read', { label: 'long', ms: 5000 }), reply().text('unused'));
    const ac = new AbortController();
    const session = h.agent().newSession();
    // Cancel once the tool sleeps and listens for it: an explicit signal, not a timer.
    const cancelled = h.toolStarted('long').then(() => ac.abort());
    const events = await drive(session.prompt('go', { signal: ac.signal }));
    await cancelled;
    expect(last(events).reason).toBe('cancelled');
    expect(h.log[0]?.aborted).toBe(true);
    expect(h.server.requests).toHaveLength(1);
    const stored = h.store.messages.list(session.id);
    expect(stored.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  });

  it('while streaming: the partial answer is kept and marked interrupted', async () => {
    h.server.script(reply().text('The quick brown fox jumps over the lazy dog. '.repeat(20)).chunkDelay(15));
    const ac = new AbortController();
    const session = h.agent().newSession();
    let deltas = 0;
    const events = await drive(session.prompt('tell me', { signal: ac.signal }), (e) => {
      if (e.type === 'text_delta' && ++deltas === 3) ac.abort();
    });
    expect(last(events).reason).toBe('cancelled');
    expect(events.filter((e) => e.type === 'text_delta').length).toBeLessThan(10);
    const assistant = h.store.messages.list(session.id).find((m) => m.role === 'assistant');
    expect(assistant?.status).toBe('partial');
    expect(assistant?.parts[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^The quick/) });
  });

  it('between serial tools: the finished tool is kept, the rest are cancelled without running', async () => {
    h.server.script(
      reply()
        .toolCall('sleep_write', { label: 'first', ms: 20 })
        .toolCall('sleep_write', { label: 'second', ms: 20 }),
      reply().text('unused'),
    );
    const ac = new AbortController();
    const session = h.agent().newSession();
    const events = await drive(session.prompt('two steps', { signal: ac.signal }), (e) => {
      if (e.type === 'tool_update' && e.record.state === 'completed') ac.abort();
    });
    expect(h.log.map((e) => e.label)).toEqual(['first']);
    expect(endedCalls(events).map((r) => r.state)).toEqual(['completed', 'cancelled']);
    // The second call never ran: it went from pending straight to cancelled.
    expect(statesOf(events, endedCalls(events)[1]!.callId)).toEqual(['pending', 'cancelled']);
    expect(last(events).reason).toBe('cancelled');
    const calls = h.store.toolCalls.list(session.id);
    expect(calls.map((c) => c.state)).toEqual(['completed', 'cancelled']);
  });
});

describe('steering and follow-up', () => {
  it('a steering message skips the remaining tool calls and goes in before the next model call', async () => {
    h.server.script(
      reply()
        .toolCall('sleep_write', { label: 'one', ms: 60 })
        .toolCall('sleep_write', { label: 'two', ms: 60 }),
      reply().text('Understood, switching.'),
    );
    const session = h.agent().newSession();
    let steered = false;
    const events = await drive(session.prompt('do two things'), (e) => {
      if (e.type === 'tool_update' && e.record.state === 'running' && !steered)
        steered = session.steer('stop, do something else');
    });
    expect(steered).toBe(true);
    expect(h.log.map((e) => e.label)).toEqual(['one']);
    expect(endedCalls(events).map((r) => r.state)).toEqual(['completed', 'skipped']);
    const msgs = wireMessages(h.server.requests[1]!.body);
    const tail = msgs.slice(-3);
    expect(tail.map((m) => m.role)).toEqual(['tool', 'tool', 'user']);
    expect(wireText(tail[1]!)).toMatch(/^\[SKIPPED\]/);
    expect(wireText(tail[2]!)).toBe('stop, do something else');
    expect(last(events)).toMatchObject({ reason: 'completed', text: 'Understood, switching.' });
  });

  it('a follow-up message starts a new turn when the current one ends', async () => {
    h.server.script(reply().text('first').chunkDelay(20), reply().text('second'));
    const session = h.agent().newSession();
    let queued = false;
    const events = await drive(session.prompt('one'), (e) => {
      if (e.type === 'text_delta' && !queued) queued = session.followUp('and another thing');
    });
    expect(queued).toBe(true);
    const starts = events.filter((e) => e.type === 'turn_start');
    expect(starts.map((e) => e.type === 'turn_start' && e.input)).toEqual(['one', 'and another thing']);
    expect(events.filter((e) => e.type === 'turn_end')).toHaveLength(2);
    expect(events.filter((e) => e.type === 'done')).toHaveLength(1);
    expect(last(events).text).toBe('second');
    const msgs = wireMessages(h.server.requests[1]!.body);
    expect(msgs.slice(1).map((m) => [m.role, wireText(m)])).toEqual([
      ['user', 'one'],
      ['assistant', 'first'],
      ['user', 'and another thing'],
    ]);
  });

  it('steer and followUp report false when no turn is running', () => {
    const session = h.agent().newSession();
    expect(session.steer('x')).toBe(false);
    expect(session.followUp('x')).toBe(false);
  });
});
