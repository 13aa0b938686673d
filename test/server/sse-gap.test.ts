/**
 * A client away while more events passed than the server keeps gets `event: gap`
 * on reconnect (before, the missed events were skipped without a word), and the web
 * UI's event-stream client hands it to `onGap` (the app reloads the session).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventStream, LIVE_ONLY, type StreamGap } from '../../web/src/sse.js';
import { reply } from '../support/script.js';
import { readSse, type SseEvent, startTestServer, type TestServer } from './helpers.js';

const BUFFER = 2;
let t: TestServer;

beforeAll(async () => {
  t = await startTestServer({ deps: { eventBufferSize: BUFFER } });
});
afterAll(() => t.close());

const untilDone = (e: SseEvent) => e.event === 'done';

/** A session whose one turn pushed `count` events, all run while no client listened. */
async function sessionWithEvents(): Promise<{ id: string; count: number }> {
  const id = (await t.json<{ id: string }>('POST', '/v1/sessions')).body.id;
  t.model.script(reply().text('one two three four five six seven eight nine ten').chunkSize(4).usage(1, 1));
  expect((await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'go' })).status).toBe(202);
  const live = t.server.tea.live.peek(id)!;
  await live.turn?.done;
  return { id, count: live.hub.lastSeq };
}

describe('SSE reconnect after the buffer moved on', () => {
  it('sends event: gap with the missed ids first, then the events still kept', async () => {
    const { id, count } = await sessionWithEvents();
    expect(count).toBeGreaterThan(BUFFER + 2);
    const firstKept = count - BUFFER + 1;
    const events = await readSse(`${t.url}/v1/sessions/${id}/events`, untilDone, { 'last-event-id': '1' });
    expect(events[0]).toMatchObject({ event: 'gap', id: String(firstKept - 1) });
    expect(JSON.parse(events[0]!.data)).toEqual({
      type: 'gap',
      reason: 'evicted',
      first: 2,
      last: firstKept - 1,
    });
    expect(events.slice(1).map((e) => Number(e.id))).toEqual(
      Array.from({ length: BUFFER }, (_, i) => firstKept + i),
    );
    // Resuming from the gap's id (what an EventSource does) finds nothing missing.
    const after = await readSse(`${t.url}/v1/sessions/${id}/events`, untilDone, {
      'last-event-id': String(firstKept - 1),
    });
    expect(after.map((e) => e.event)).not.toContain('gap');
    expect(after).toHaveLength(BUFFER);
  });

  it('sends a restart gap when the client is ahead of the session (the server restarted), then everything kept', async () => {
    const { id, count } = await sessionWithEvents();
    const events = await readSse(`${t.url}/v1/sessions/${id}/events`, untilDone, {
      'last-event-id': String(count + 500),
    });
    expect(events[0]).toMatchObject({ event: 'gap', id: '0' });
    expect(JSON.parse(events[0]!.data)).toMatchObject({
      reason: 'restarted',
      first: count + 501,
      last: null,
    });
    expect(events.slice(1).map((e) => Number(e.id))).toEqual(
      Array.from({ length: BUFFER }, (_, i) => count - BUFFER + 1 + i),
    );
  });

  it('says nothing for ?after= past the end (live only) or a resume inside the buffer', async () => {
    const { id, count } = await sessionWithEvents();
    const inside = await readSse(`${t.url}/v1/sessions/${id}/events`, untilDone, {
      'last-event-id': String(count - 2),
    });
    expect(inside.map((e) => e.event)).not.toContain('gap');
    expect(inside.map((e) => Number(e.id))).toEqual([count - 1, count]);
    t.model.script(reply().text('again'));
    const liveOnly = readSse(`${t.url}/v1/sessions/${id}/events?after=${LIVE_ONLY}`, untilDone);
    await waitForListener(id);
    await t.json('POST', `/v1/sessions/${id}/prompt`, { input: 'again' });
    expect((await liveOnly).map((e) => e.event)).not.toContain('gap');
  });

  it('the web UI client hands the gap to onGap, not to onEvent', async () => {
    const { id } = await sessionWithEvents();
    const gaps: StreamGap[] = [];
    const types: string[] = [];
    let sawDone: () => void = () => undefined;
    const done = new Promise<void>((resolve) => {
      sawDone = resolve;
    });
    const stream = new EventStream({
      url: `${t.url}/v1/sessions/${id}/events`,
      headers: () => ({}),
      after: 1,
      onGap: (gap) => gaps.push(gap),
      onEvent: (event) => {
        types.push(event.type);
        if (event.type === 'done') sawDone();
      },
    });
    await done;
    stream.close();
    expect(gaps).toEqual([expect.objectContaining({ type: 'gap', reason: 'evicted', first: 2 })]);
    expect(types).not.toContain('gap');
    expect(stream.lastEventId).toBeGreaterThan(1);
  });
});

/** Resolves once the session's hub has a live subscriber. */
async function waitForListener(id: string): Promise<void> {
  const hub = t.server.tea.live.peek(id)!.hub;
  while (hub.subscriberCount === 0) await new Promise((r) => setImmediate(r));
}
