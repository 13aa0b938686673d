/** The turn gate alone: one claim per session, a FIFO queue, a waiter that leaves, the queue's cap. */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/server/errors.js';
import { MAX_QUEUED_TURNS, TurnGate } from '../../src/server/turn-gate.js';

describe('TurnGate', () => {
  it('claims once; a second claim waits and gets the session when the first ends, first come first served', async () => {
    const gate = new TurnGate();
    const first = gate.tryClaim('s', 'session');
    expect(first).toBeDefined();
    expect(gate.tryClaim('s', 'api')).toBeUndefined();
    expect(gate.owner('s')).toBe('session');
    const order: string[] = [];
    const noted = (name: string) => (release: () => void) => {
      order.push(name);
      return release;
    };
    const a = gate.claim('s', new AbortController().signal).then(noted('a'));
    const b = gate.claim('s', new AbortController().signal).then(noted('b'));
    first!();
    first!(); // twice is once
    const releaseA = await a;
    expect(order).toEqual(['a']);
    expect(gate.owner('s')).toBe('api');
    releaseA();
    (await b)();
    expect(order).toEqual(['a', 'b']);
    expect(gate.busy('s')).toBe(false);
    expect(gate.tryClaim('other', 'api')).toBeDefined();
  });

  it('a waiter whose client goes away leaves the queue; the next one gets the session', async () => {
    const gate = new TurnGate();
    const release = gate.tryClaim('s', 'api')!;
    const gone = new AbortController();
    const leaving = gate.claim('s', gone.signal);
    const staying = gate.claim('s', new AbortController().signal);
    gone.abort();
    await expect(leaving).rejects.toBeInstanceOf(ApiError);
    release();
    (await staying)();
    expect(gate.busy('s')).toBe(false);
  });

  it('refuses past the queue cap with 409 session_busy, and cancels the running turn', async () => {
    const gate = new TurnGate();
    let cancelled = 0;
    gate.tryClaim('s', 'api', () => cancelled++);
    const signal = new AbortController().signal;
    for (let i = 0; i < MAX_QUEUED_TURNS; i++) void gate.claim('s', signal);
    const err = await gate.claim('s', signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(409);
    expect((err as ApiError).code).toBe('session_busy');
    expect(gate.cancel('s')).toBe(true);
    expect(cancelled).toBe(1);
    expect(gate.cancel('free')).toBe(false);
  });
});
