import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionState, sessionStateSchemas } from '../../src/agent/session-state.js';
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

/** Writes a raw row, as an older version or a damaged file might have left it. */
function writeRaw(sessionId: string, key: string, value: string): void {
  h.store.db
    .prepare(
      `INSERT INTO session_state (session_id, key, value, updated_at) VALUES (?, ?, ?, 1)
       ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value`,
    )
    .run(sessionId, key, value);
}

describe('typed session state', () => {
  it('round-trips every declared key', () => {
    const id = h.store.sessions.create({ cwd: h.workspace }).id;
    const state = sessionState(h.store, id);
    const values = {
      todos: { items: [{ id: '1', content: 'write the test', status: 'in_progress' as const }] },
      plan: { items: [{ id: 'a', content: 'ship', status: 'pending' as const }], title: 'Release' },
      loaded_tools: ['git_log', 'web_fetch'],
      permission_grants: [{ tool: 'bash', pattern: 'npm test', exact: true, action: 'allow' as const }],
      l2_pairs: [{ turnId: 't1', user: 'hi', assistant: 'hello', reasoning: '', files: ['a.ts'] }],
      summaries: { semantic: 'earlier: set up the repo' },
      compacted_users: 4,
      memory_cursor: 12,
      memory_turns: 3,
      memory_error: { job: 'extract', message: 'model down', at: 1_700_000_000_000 },
      work_mode: 'review',
      title_kept: true,
      client_calls: { turnId: 't_1', calls: [{ id: 'call_1', name: 'get_weather', args: { city: 'Oslo' } }] },
      chat_conversation: { hash: 'ab12', last: 7 },
    };
    expect(Object.keys(values).sort()).toEqual(Object.keys(sessionStateSchemas()).sort());
    state.set('todos', values.todos);
    state.set('plan', values.plan);
    state.set('loaded_tools', values.loaded_tools);
    state.set('permission_grants', values.permission_grants);
    state.set('l2_pairs', values.l2_pairs);
    state.set('summaries', values.summaries);
    state.set('compacted_users', values.compacted_users);
    state.set('memory_cursor', values.memory_cursor);
    state.set('memory_turns', values.memory_turns);
    state.set('memory_error', values.memory_error);
    state.set('work_mode', values.work_mode);
    state.set('title_kept', values.title_kept);
    state.set('client_calls', values.client_calls);
    state.set('chat_conversation', values.chat_conversation);
    for (const key of Object.keys(values) as Array<keyof typeof values>) {
      expect(state.get(key)).toEqual(values[key]);
    }
    state.delete('todos');
    expect(state.get('todos')).toBeUndefined();
    // Another session sees none of it.
    expect(
      sessionState(h.store, h.store.sessions.create({ cwd: h.workspace }).id).get('plan'),
    ).toBeUndefined();
  });

  it('a stored value that is not JSON, or no longer fits its schema, reads as unset; the next write replaces it', () => {
    const id = h.store.sessions.create({ cwd: h.workspace }).id;
    const state = sessionState(h.store, id);
    writeRaw(id, 'l2_pairs', '[{"turnId":"t1","user":"hi"'); // cut short
    writeRaw(id, 'todos', '{"items":"not a list"}');
    writeRaw(id, 'memory_cursor', '-4');
    writeRaw(id, 'loaded_tools', '"git_log"');
    expect(state.get('l2_pairs')).toBeUndefined();
    expect(state.get('todos')).toBeUndefined();
    expect(state.get('memory_cursor')).toBeUndefined();
    expect(state.get('loaded_tools')).toBeUndefined();
    // The raw row is still there (nothing is deleted on read) until a write replaces it.
    expect(
      h.store.db.prepare('SELECT count(*) AS n FROM session_state WHERE session_id = ?').get(id),
    ).toEqual({
      n: 4,
    });
    state.set('memory_cursor', 7);
    expect(state.get('memory_cursor')).toBe(7);
  });

  it('only declared keys and values of their shape compile', () => {
    const state = sessionState(h.store, h.store.sessions.create({ cwd: h.workspace }).id);
    // @ts-expect-error 'todo' is not a declared key (it is 'todos').
    expect(() => state.get('todo')).toThrow("session state key 'todo' is not declared");
    // @ts-expect-error memory_cursor holds a number.
    state.set('memory_cursor', 'seven');
    expect(state.get('memory_cursor')).toBeUndefined();
  });

  it('a session whose stored state was damaged resumes and runs its next turn', async () => {
    const agent = h.agent();
    const session = agent.newSession();
    h.server.script(
      reply().toolCall('todo_write', { todos: [{ content: 'read the README', status: 'in_progress' }] }),
      reply().text('Started.'),
    );
    await collect(session.prompt('make a checklist and start it'));
    await session.settled();
    expect(sessionState(h.store, session.id).get('todos')?.items).toHaveLength(1);

    writeRaw(session.id, 'l2_pairs', '{broken');
    writeRaw(session.id, 'todos', '{"items":"oops"}');
    writeRaw(session.id, 'permission_grants', '[{"tool":1}]');
    writeRaw(session.id, 'loaded_tools', '"abc"');

    const resumed = h.agent().resumeSession(session.id);
    h.server.script(reply().toolCall('todo_read', {}), reply().text('The list is empty.'));
    const events = await collect(resumed.prompt('what is on the list?'));
    expect(events.find((e) => e.type === 'error')).toBeUndefined();
    expect(events.find((e) => e.type === 'done')).toBeDefined();
    const toolResult = wireMessages(h.server.requests[3]!.body)
      .filter((m) => m.role === 'tool')
      .at(-1);
    expect(wireText(toolResult!)).not.toContain('read the README');
    // The damaged todo list is not resumed into the system layer either.
    expect(wireText(wireMessages(h.server.requests[2]!.body)[0]!)).not.toContain('oops');
  });
});
