/** Workflow runs and checkpoints in SQLite (migration 10): writes, holders, cancel requests, forks. */
import { describe, expect, it } from 'vitest';
import { type LeaseOwner, Store, thisProcess } from '../../src/store/index.js';
import { steppingClock, useStore } from './helpers.js';

const open = useStore({ now: steppingClock() });

const newRun = (store: Store, id?: string) =>
  store.workflows.create({
    ...(id ? { id } : {}),
    workflow: 'w',
    source: '/p/w.yaml',
    definition: 'name: w',
    defHash: 'h',
    cwd: '/p',
    input: { topic: 'x' },
    state: { n: 0 },
  });

const me = (id: string): LeaseOwner => ({ id, ...thisProcess() });

describe('workflow runs', () => {
  it('a checkpoint and the run state it produced are written together; checkpoints number per run', () => {
    const { store, path } = open();
    const run = newRun(store);
    expect(run).toMatchObject({
      status: 'running',
      input: { topic: 'x' },
      state: { n: 0 },
      output: undefined,
    });
    const node = { nodeKey: 'a', nodeId: 'a', kind: 'agent' };
    expect(store.workflows.checkpoint(run.id, { ...node, event: 'start', data: { prompt: 'p' } })).toBe(1);
    expect(
      store.workflows.checkpoint(
        run.id,
        {
          ...node,
          event: 'result',
          status: 'completed',
          data: { status: 'completed', value: 'v' },
          state: { n: 1 },
        },
        { state: { n: 1 } },
      ),
    ).toBe(2);
    const other = newRun(store);
    expect(store.workflows.checkpoint(other.id, { ...node, event: 'start', data: {} })).toBe(1);
    store.close();

    const again = Store.open(path);
    try {
      expect(again.workflows.get(run.id)?.state).toEqual({ n: 1 });
      expect(again.workflows.checkpoints.list(run.id).map((c) => [c.seq, c.event, c.data])).toEqual([
        [1, 'start', { prompt: 'p' }],
        [2, 'result', { status: 'completed', value: 'v' }],
      ]);
      expect(again.workflows.resolve(run.id.slice(0, 6)).id).toBe(run.id);
      expect(() => again.workflows.resolve('abc')).toThrow(/a prefix needs at least 4 characters/);
      again.workflows.patch(run.id, { status: 'completed', output: 'done' });
      expect(again.workflows.get(run.id)).toMatchObject({ status: 'completed', output: 'done' });
      expect(again.workflows.get(run.id)?.finishedAt).toEqual(expect.any(Number));
    } finally {
      again.close();
    }
  });

  it('one live process holds a run; a dead one is taken over; a cancel request reaches the holder', () => {
    const { store } = open();
    const run = newRun(store);
    expect(store.workflows.acquire(run.id, me('one'), 30_000)).toEqual({ ok: true });
    expect(store.workflows.holderLive(run.id)).toBe(true);
    const refused = store.workflows.acquire(run.id, me('two'), 30_000);
    expect(refused).toEqual({ ok: false, holder: { pid: process.pid, host: thisProcess().host } });

    store.workflows.requestCancel(run.id);
    expect(store.workflows.renew(run.id, 'one', 30_000)).toEqual({ held: true, cancelRequested: true });
    store.workflows.release(run.id, 'one');
    expect(store.workflows.get(run.id)?.holder).toBeNull();

    // A holder whose process is gone (pid 2^22 + 1 is past Linux's pid range).
    const dead: LeaseOwner = { id: 'dead', pid: 4_194_305, host: thisProcess().host, procStart: null };
    expect(store.workflows.acquire(run.id, dead, 30_000)).toEqual({ ok: true });
    expect(store.workflows.holderLive(run.id)).toBe(false);
    expect(store.workflows.acquire(run.id, me('three'), 30_000)).toEqual({ ok: true });
    expect(store.workflows.get(run.id)?.cancelRequested).toBe(false);
  });

  it('a fork copies checkpoints up to the one named; deleting a run deletes its checkpoints and sub-runs', () => {
    const { store } = open();
    const run = newRun(store);
    for (const key of ['a', 'b', 'c'])
      store.workflows.checkpoint(run.id, {
        nodeKey: key,
        nodeId: key,
        kind: 'tool',
        event: 'start',
        data: {},
      });
    const fork = store.workflows.fork(store.workflows.get(run.id)!, 2);
    expect(fork).toMatchObject({
      status: 'pending',
      forkedFrom: run.id,
      forkedSeq: 2,
      input: { topic: 'x' },
    });
    expect(store.workflows.checkpoints.list(fork.id).map((c) => c.nodeKey)).toEqual(['a', 'b']);

    const child = store.workflows.create({
      workflow: 'child',
      source: '/p/c.yaml',
      definition: null,
      defHash: 'h',
      cwd: '/p',
      input: {},
      state: {},
      parentRunId: run.id,
      parentNode: 'call',
    });
    expect(store.workflows.children(run.id).map((r) => r.id)).toEqual([child.id]);
    expect(store.workflows.list().map((r) => r.id)).not.toContain(child.id);
    expect(store.workflows.delete(run.id)).toBe(true);
    expect(store.workflows.get(child.id)).toBeUndefined();
    expect(store.workflows.checkpoints.list(run.id)).toEqual([]);
    expect(store.workflows.checkpoints.list(fork.id)).toHaveLength(2);
  });
});
