import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/index.js';
import { collect, endedCalls } from '../support/collect.js';
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

const toolResults = (i: number) =>
  wireMessages(h.server.requests[i]!.body)
    .filter((m) => m.role === 'tool')
    .map((m) => wireText(m));

/** Drains a prompt, answering each approval request with `decide`. */
async function run(
  session: ReturnType<ReturnType<Harness['agent']>['newSession']>,
  input: string,
  decide: (e: Extract<AgentEvent, { type: 'approval_request' }>) => ['once' | 'always' | 'reject', string?],
  signal?: AbortSignal,
): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const e of session.prompt(input, signal ? { signal } : {})) {
    events.push(e);
    if (e.type === 'approval_request') {
      const [decision, message] = decide(e);
      expect(session.approve(e.requestId, decision, message)).toBe(true);
    }
  }
  return events;
}

describe('approvals', () => {
  it('asks before an exec tool in ask mode; "once" runs it', async () => {
    h.server.script(reply().toolCall('sleep_exec', { label: 'build', ms: 1 }), reply().text('built'));
    const session = h.agent({ settings: { permissionMode: 'ask' } }).newSession();
    const events = await run(session, 'build it', () => ['once']);
    const req = events.find((e) => e.type === 'approval_request');
    expect(req).toMatchObject({
      tool: 'sleep_exec',
      subject: 'run build',
      approval: 'exec',
      args: { label: 'build', ms: 1 },
    });
    expect(events.find((e) => e.type === 'approval_result')).toMatchObject({ decision: 'once' });
    expect(h.log.map((e) => e.label)).toEqual(['build']);
    expect(toolResults(1)).toEqual(['sleep_exec build done']);
  });

  it('"reject" with a message: the tool never runs and the model reads why', async () => {
    h.server.script(
      reply().toolCall('sleep_exec', { label: 'deploy', ms: 1 }),
      reply().text('ok, not deploying'),
    );
    const session = h.agent({ settings: { permissionMode: 'ask' } }).newSession();
    const events = await run(session, 'deploy', () => ['reject', 'not on a Friday']);
    expect(h.log).toHaveLength(0);
    expect(toolResults(1)[0]).toMatch(
      /^\[DENIED\] The user rejected sleep_exec \(run deploy\): not on a Friday/,
    );
    expect(endedCalls(events)[0]).toMatchObject({ state: 'denied' });
    expect(h.store.toolCalls.list(session.id)[0]?.state).toBe('denied');
  });

  it('"always" grants the exact call for the rest of the session, also after a resume', async () => {
    h.server.script(
      reply().toolCall('sleep_exec', { label: 'test', ms: 1 }),
      reply().toolCall('sleep_exec', { label: 'test', ms: 2 }),
      reply().toolCall('sleep_exec', { label: 'other', ms: 1 }),
      reply().text('done'),
    );
    const agent = h.agent({ settings: { permissionMode: 'ask' } });
    const session = agent.newSession();
    const asked: string[] = [];
    const scopes: unknown[] = [];
    await run(session, 'test twice then other', (e) => {
      asked.push(e.subject ?? '');
      scopes.push(e.always);
      return ['always'];
    });
    expect(asked).toEqual(['run test', 'run other']);
    // The request says what "always" would allow: this tool, for exactly this subject.
    expect(scopes).toEqual([
      { tool: 'sleep_exec', subject: 'run test' },
      { tool: 'sleep_exec', subject: 'run other' },
    ]);

    h.server.script(reply().toolCall('sleep_exec', { label: 'test', ms: 1 }), reply().text('done again'));
    const resumed = agent.resumeSession(session.id);
    const events = await run(resumed, 'again', () => {
      throw new Error('should not ask');
    });
    expect(events.some((e) => e.type === 'approval_request')).toBe(false);
    expect(h.log.map((e) => e.label)).toEqual(['test', 'test', 'other', 'test']);
  });

  it('when nobody can answer (tea -p), asks are denied with a hint naming --allow', async () => {
    h.server.script(reply().toolCall('sleep_exec', { label: 'make', ms: 1 }), reply().text('could not'));
    const session = h.agent({ settings: { permissionMode: 'ask', approvals: 'deny' } }).newSession();
    const events = await collect(session.prompt('make'));
    expect(events.some((e) => e.type === 'approval_request')).toBe(false);
    expect(toolResults(1)[0]).toMatch(/needs the user's approval.*\n.*--allow 'sleep_exec:run make\*'/);
    expect(h.log).toHaveLength(0);
  });

  it('read-only mode refuses exec tools outright, even one a rule allows (only shell commands it can read may run)', async () => {
    h.server.script(reply().toolCall('sleep_exec', { label: 'x', ms: 1 }), reply().text('refused'));
    await collect(
      h
        .agent({ settings: { permissionMode: 'read-only' } })
        .newSession()
        .prompt('go'),
    );
    expect(toolResults(1)[0]).toMatch(
      /^\[DENIED\] sleep_exec \(run x\) is not allowed here \(read-only mode/,
    );

    h.server.script(reply().toolCall('sleep_exec', { label: 'y', ms: 1 }), reply().text('ran'));
    await collect(
      h
        .agent({
          settings: {
            permissionMode: 'read-only',
            permissionRules: [{ tool: 'sleep_exec', pattern: 'run y', action: 'allow' }],
          },
        })
        .newSession()
        .prompt('go'),
    );
    expect(h.log).toHaveLength(0);
    expect(toolResults(3)[0]).toMatch(/read-only mode refuses exec tools, whatever the rules say/);
  });

  it('cancelling while an approval waits cancels the call and the turn', async () => {
    h.server.script(reply().toolCall('sleep_exec', { label: 'z', ms: 1 }), reply().text('unused'));
    const ac = new AbortController();
    const session = h.agent({ settings: { permissionMode: 'ask' } }).newSession();
    const events: AgentEvent[] = [];
    for await (const e of session.prompt('go', { signal: ac.signal })) {
      events.push(e);
      if (e.type === 'approval_request') ac.abort();
    }
    expect(endedCalls(events)[0]).toMatchObject({ state: 'cancelled' });
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'cancelled' });
    expect(h.log).toHaveLength(0);
    expect(h.server.requests).toHaveLength(1);
  });
});
