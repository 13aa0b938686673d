/**
 * Session titles through the real server: after the first turn the cheap model (here
 * the scripted model) names the session; a reply that is no title (`[]`, nothing,
 * only punctuation, a whole answer) leaves a title made from the first message.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { readSse, startTestServer, type TestServer } from './helpers.js';

let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ mode: 'ask', titles: true });
});
afterAll(() => t.close());
beforeEach(() => t.model.reset());

const FIRST = 'Please plan the vegetable beds for spring: tomatoes, beans, courgettes and a herb corner';

interface SessionBody {
  title: string | null;
  usage: { input_tokens: number };
}

/**
 * Runs the first turn of a new session, the title call answering `title`, and returns
 * the session once the title job is done (its tokens are counted after the title is stored).
 */
async function titledSession(title: string): Promise<SessionBody> {
  t.model.script(reply().text('Here is a plan.').usage(100, 10), reply().text(title).usage(7, 3));
  const created = await t.json<{ id: string }>('POST', '/v1/sessions', {});
  const id = created.body.id;
  const events = readSse(`${t.url}/v1/sessions/${id}/events`, (e) => e.event === 'done');
  expect((await t.json('POST', `/v1/sessions/${id}/prompt`, { input: FIRST })).status).toBe(202);
  await events;
  await t.model.waitForRequests(2);
  let session: SessionBody | undefined;
  await expect
    .poll(
      async () => {
        session = (await t.json<SessionBody>('GET', `/v1/sessions/${id}`)).body;
        return session.usage.input_tokens;
      },
      { timeout: 6000, interval: 50 },
    )
    .toBe(107);
  return session!;
}

describe('session titles', () => {
  it('uses the cheap model’s title when it is one', async () => {
    expect((await titledSession('Spring vegetable beds')).title).toBe('Spring vegetable beds');
    // The title call got the first message.
    expect(JSON.stringify(t.model.requests[1]?.body.messages)).toContain('herb corner');
  });

  it('tells a client following the session its new title (a title event after the turn’s done)', async () => {
    t.model.script(reply().text('Here is a plan.'), reply().text('Spring vegetable beds'));
    const { id } = (await t.json<{ id: string }>('POST', '/v1/sessions', { title: 'Untitled garden' })).body;
    const events = readSse(`${t.url}/v1/sessions/${id}/events`, (e) => e.event === 'title');
    expect((await t.json('POST', `/v1/sessions/${id}/prompt`, { input: FIRST })).status).toBe(202);
    const seen = await events;
    expect(seen.map((e) => e.event).slice(-2)).toEqual(['done', 'title']);
    expect(JSON.parse(seen.at(-1)!.data)).toEqual({
      type: 'title',
      sessionId: id,
      title: 'Spring vegetable beds',
    });
    expect((await t.json<SessionBody>('GET', `/v1/sessions/${id}`)).body.title).toBe('Spring vegetable beds');
  });

  it('falls back to the first message when the cheap model answers [] or no title at all', async () => {
    const fallback = 'Please plan the vegetable beds for spring: tomatoes, beans';
    for (const junk of ['[]', '', '?!…', '{}', `Sure. ${'Beds need sun and water every day. '.repeat(5)}`]) {
      expect((await titledSession(junk)).title, JSON.stringify(junk)).toBe(fallback);
    }
  });
});
