import { type ChildProcess, spawn } from 'node:child_process';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionLease } from '../../src/agent/lease.js';
import { INTERRUPTED_OUTPUT, type LeaseOwner, Store, thisProcess } from '../../src/store/index.js';
import { processStart } from '../../src/store/leases.js';
import { steppingClock, storeError, useStore } from './helpers.js';

const openStore = useStore({ now: steppingClock(1_000_000) });
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  vi.useRealTimers();
});

/** A process that runs until the test ends. */
function liveProcess(): Promise<LeaseOwner> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000); console.log("up")'], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  children.push(child);
  return new Promise((resolve) =>
    child.stdout!.once('data', () =>
      resolve({
        id: 'live-owner',
        pid: child.pid!,
        host: thisProcess().host,
        procStart: processStart(child.pid!),
      }),
    ),
  );
}

/** A process that has exited (and been reaped). */
function deadProcess(): Promise<LeaseOwner> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  const procStart = processStart(child.pid!);
  return new Promise((resolve) =>
    child.on('exit', () =>
      resolve({ id: 'dead-owner', pid: child.pid!, host: thisProcess().host, procStart }),
    ),
  );
}

const me = (id: string): LeaseOwner => ({ id, ...thisProcess() });

describe('session leases', () => {
  it('one owner at a time; the same owner may take it again; release frees it', () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    expect(store.leases.acquire('s', me('a'), 60_000)).toEqual({ ok: true });
    const refused = store.leases.acquire('s', me('b'), 60_000);
    expect(refused).toMatchObject({ ok: false, holder: { owner: 'a', pid: process.pid } });
    expect(store.leases.acquire('s', me('a'), 60_000)).toEqual({ ok: true });
    store.leases.release('s', 'b'); // not b's: nothing happens
    expect(store.leases.get('s')?.owner).toBe('a');
    store.leases.release('s', 'a');
    expect(store.leases.acquire('s', me('b'), 60_000)).toEqual({ ok: true });
  });

  it("a live process keeps its lease; a dead one's is taken over", async () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    const live = await liveProcess();
    store.leases.acquire('s', live, 60_000);
    expect(store.leases.acquire('s', me('b'), 60_000).ok).toBe(false);

    const dead = await deadProcess();
    store.sessions.create({ id: 't', cwd: '/w' });
    store.leases.acquire('t', dead, 60_000);
    const taken = store.leases.acquire('t', me('b'), 60_000);
    expect(taken).toMatchObject({ ok: true, replaced: { owner: 'dead-owner', pid: dead.pid } });
  });

  it('a pid now used by another program does not hold the lease', () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    store.leases.acquire('s', { ...me('old'), procStart: 'started-long-ago' }, 60_000);
    expect(store.leases.acquire('s', me('b'), 60_000)).toMatchObject({
      ok: true,
      replaced: { owner: 'old' },
    });
  });

  it("another host's lease holds until it expires without a heartbeat", () => {
    let now = 1_000_000;
    const { store } = openStore();
    const clocked = Store.open(store.db.name, { now: () => now });
    try {
      clocked.sessions.create({ id: 's', cwd: '/w' });
      const far: LeaseOwner = { id: 'far', pid: 1, host: 'another-host', procStart: null };
      clocked.leases.acquire('s', far, 60_000);
      now += 59_000;
      expect(clocked.leases.acquire('s', me('b'), 60_000).ok).toBe(false);
      expect(clocked.leases.renew('s', 'far', 60_000)).toBe(true);
      now += 59_000;
      expect(clocked.leases.acquire('s', me('b'), 60_000).ok).toBe(false);
      now += 2_000;
      expect(clocked.leases.acquire('s', me('b'), 60_000)).toMatchObject({
        ok: true,
        replaced: { owner: 'far' },
      });
      expect(clocked.leases.renew('s', 'far', 60_000)).toBe(false);
    } finally {
      clocked.close();
    }
  });

  it('a lease needs an existing session', () => {
    const { store } = openStore();
    expect(storeError(() => store.leases.acquire('nope', me('a'), 1000)).code).toBe('not-found');
  });

  it('the holder hears when another runner has taken its session over', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    const lease = new SessionLease(store, 's', { waitMs: 0, ttlMs: 3000, pollMs: 10 });
    const lost: string[] = [];
    return (async () => {
      const taking = lease.take(new AbortController().signal);
      expect((await taking.next()).value).toEqual({ ok: true });
      lease.hold((why) => lost.push(why));
      vi.advanceTimersByTime(1000);
      expect(lost).toEqual([]);
      store.db.prepare("UPDATE session_leases SET owner = 'thief'").run();
      vi.advanceTimersByTime(1000);
      expect(lost).toHaveLength(1);
      expect(lost[0]).toContain('took session s over');
      lease.release();
      expect(store.leases.get('s')?.owner).toBe('thief');
    })();
  });
});

describe('recovery after a runner died', () => {
  function killedRun(store: Store): void {
    store.sessions.create({ id: 's', cwd: '/w' });
    store.messages.append('s', { turnId: 't1', role: 'user', parts: [{ type: 'text', text: 'go' }] });
    store.messages.append('s', {
      turnId: 't1',
      role: 'assistant',
      parts: [
        { type: 'tool-call', id: 'c1', name: 'read_file', args: { path: 'a' } },
        { type: 'tool-call', id: 'c2', name: 'bash', args: { command: 'sleep 9' } },
        { type: 'tool-call', id: 'c3', name: 'write_file', args: { path: 'b' } },
      ],
    });
    // c1 finished; c2 stored its result but died before closing its row; c3 was running.
    for (const [id, name] of [
      ['c1', 'read_file'],
      ['c2', 'bash'],
      ['c3', 'write_file'],
    ] as const) {
      store.toolCalls.start('s', { callId: id, turnId: 't1', name, args: {} });
    }
    const result = (callId: string, name: string, output: string) => ({
      turnId: 't1',
      role: 'tool' as const,
      parts: [{ type: 'tool-result' as const, callId, name, output, isError: false }],
    });
    store.messages.append('s', result('c1', 'read_file', 'A'));
    store.toolCalls.finish('c1', { state: 'completed', output: 'A', durationMs: 1 }, 's');
    store.messages.append('s', result('c2', 'bash', 'slept'));
  }

  it('marks running calls interrupted and answers them in the transcript, once', () => {
    const { store } = openStore();
    killedRun(store);
    expect(store.recover('s')).toBe(1);
    expect(store.toolCalls.list('s').map((c) => [c.callId, c.state, c.output])).toEqual([
      ['c1', 'completed', 'A'],
      ['c2', 'completed', 'slept'],
      ['c3', 'interrupted', INTERRUPTED_OUTPUT],
    ]);
    const last = store.messages.list('s').at(-1)!;
    expect(last).toMatchObject({ role: 'tool', turnId: 't1' });
    expect(last.parts).toEqual([
      { type: 'tool-result', callId: 'c3', name: 'write_file', output: INTERRUPTED_OUTPUT, isError: true },
    ]);
    const count = store.messages.count('s');
    expect(store.recover('s')).toBe(0);
    expect(store.messages.count('s')).toBe(count);
  });

  it('a call that never started is recorded as interrupted too', () => {
    const { store } = openStore();
    store.sessions.create({ id: 's', cwd: '/w' });
    store.messages.append('s', {
      turnId: 't1',
      role: 'assistant',
      parts: [{ type: 'tool-call', id: 'c9', name: 'bash', args: { command: 'rm x' } }],
    });
    expect(store.recover('s')).toBe(1);
    expect(store.toolCalls.get('s', 'c9')).toMatchObject({
      state: 'interrupted',
      args: { command: 'rm x' },
    });
  });

  it("opening the store recovers sessions whose runner is gone, never a live runner's", async () => {
    const { store, path } = openStore();
    killedRun(store);
    store.sessions.create({ id: 'busy', cwd: '/w' });
    store.toolCalls.start('busy', { callId: 'b1', turnId: 't', name: 'bash', args: {} });
    store.leases.acquire('s', await deadProcess(), 60_000);
    store.leases.acquire('busy', await liveProcess(), 60_000);

    const again = Store.open(path);
    try {
      expect(again.toolCalls.get('s', 'c3')?.state).toBe('interrupted');
      expect(again.leases.get('s')).toBeUndefined();
      expect(again.toolCalls.get('busy', 'b1')?.state).toBe('running');
      expect(again.leases.get('busy')?.owner).toBe('live-owner');
    } finally {
      again.close();
    }
  });
});
