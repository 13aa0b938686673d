/**
 * Retry after the model was paused by its circuit breaker, through the real server:
 * the breaker opens after a failure (threshold 1, an hour to recover), a new prompt is
 * refused at once with words that promise no retry of their own, and Retry, the user
 * asking again, tries the model at once (a probe) instead of failing until the hour
 * is up.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/agent/events.js';
import { reply } from '../support/script.js';
import { readSse, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ mode: 'ask', llm: 'breaker: { failure_threshold: 1, recovery_s: 3600 }' });
});
afterAll(() => t.close());
beforeEach(() => t.model.reset());

async function newSession(): Promise<string> {
  return (await t.json<{ id: string }>('POST', '/v1/sessions', {})).body.id;
}

/** Posts to `route` (prompt or retry) and reads the turn's events until its `done`. */
async function turn(id: string, route: 'prompt' | 'retry', body: unknown = {}): Promise<AgentEvent[]> {
  const events = readSse(
    `${t.url}/v1/sessions/${id}/events?after=${Number.MAX_SAFE_INTEGER}`,
    (e) => e.event === 'done',
  );
  const started = await t.json('POST', `/v1/sessions/${id}/${route}`, body);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  return (await events).map((e) => JSON.parse(e.data) as AgentEvent);
}

const errorOf = (events: AgentEvent[]) =>
  events.find((e): e is Extract<AgentEvent, { type: 'error' }> => e.type === 'error');

describe('retry when the circuit breaker paused the model', () => {
  it('probes the model at once instead of failing until the recovery time', async () => {
    const id = await newSession();
    t.model.script(reply().error(500, { message: 'the upstream model fell over' }));
    const failed = await turn(id, 'prompt', { input: 'Tell me a story' });
    expect(errorOf(failed)?.message).toContain('the upstream model fell over');

    // The breaker is open: another session's new prompt fails without calling the model,
    // and says when a call may try it (nothing retries by itself).
    const other = await newSession();
    const refused = errorOf(await turn(other, 'prompt', { input: 'Hello?' }));
    expect(refused?.kind).toBe('circuit-open');
    expect(refused?.message).toMatch(/calls to it are paused for another \d+ s/);
    expect(refused?.message).not.toMatch(/retrying in/);
    expect(t.model.requests).toHaveLength(1);

    // Still down: the retry's probe reaches the model and reports its own error.
    t.model.script(reply().error(503, { message: 'the upstream model is still down' }));
    const stillDown = await turn(id, 'retry');
    expect(errorOf(stillDown)?.message).toContain('the upstream model is still down');
    expect(t.model.requests).toHaveLength(2);

    // Back: the retry answers, and the model is called normally again.
    t.model.script(reply().text('Once upon a time.'), reply().text('Hello!'));
    const again = await turn(id, 'retry');
    expect(again.at(-1)).toMatchObject({ type: 'done', reason: 'completed', text: 'Once upon a time.' });
    expect(t.model.requests).toHaveLength(3);
    const next = await turn(other, 'prompt', { input: 'Hello again?' });
    expect(next.at(-1)).toMatchObject({ type: 'done', reason: 'completed', text: 'Hello!' });
  });
});
