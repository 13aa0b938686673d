/** The event store behind resumable streams: replay per stream, priming events skipped, bounded. */
import { describe, expect, it } from 'vitest';
import { SessionEvents } from '../../../src/tools/mcp/serve-events.js';

const msg = (id: number) => ({ jsonrpc: '2.0' as const, id, result: {} });

async function replay(store: SessionEvents, after: string) {
  const sent: Array<[string, unknown]> = [];
  const stream = await store.replayEventsAfter(after, {
    send: async (id, message) => {
      sent.push([id, message]);
    },
  });
  return { stream, sent };
}

describe('SessionEvents', () => {
  it('replays what came after an id on the same stream only, without priming events', async () => {
    const s = new SessionEvents();
    const prime = await s.storeEvent('a', {} as never);
    const other = await s.storeEvent('b', msg(9));
    const one = await s.storeEvent('a', msg(1));
    await s.storeEvent('a', {} as never);
    const two = await s.storeEvent('a', msg(2));
    expect(await s.getStreamIdForEventId(other)).toBe('b');
    expect(await replay(s, prime)).toEqual({
      stream: 'a',
      sent: [
        [one, msg(1)],
        [two, msg(2)],
      ],
    });
    expect(await replay(s, two)).toEqual({ stream: 'a', sent: [] });
    expect(await replay(s, 'nope')).toEqual({ stream: '', sent: [] });
  });

  it('keeps at most its limit of events and bytes, dropping the oldest; ids are never reused', async () => {
    const s = new SessionEvents(3, 1_000_000);
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await s.storeEvent('a', msg(i)));
    expect(s.size).toBe(3);
    expect(new Set(ids).size).toBe(5);
    expect(await s.getStreamIdForEventId(ids[1]!)).toBeUndefined();
    expect((await replay(s, ids[2]!)).sent.map(([id]) => id)).toEqual([ids[3], ids[4]]);

    const small = new SessionEvents(100, 100);
    for (let i = 0; i < 10; i++)
      await small.storeEvent('a', { jsonrpc: '2.0', id: i, result: { pad: 'x'.repeat(40) } });
    expect(small.size).toBe(1);
  });
});
