import { describe, expect, it } from 'vitest';
import { firstDelay, scheduleUpkeep } from '../../src/evolve/upkeep/schedule.js';
import { ManualScheduler } from './helpers.js';

const HOUR = 3_600_000;

/** A round the test finishes when it says. */
function gatedRun() {
  let release: (() => void) | undefined;
  let runs = 0;
  return {
    get runs() {
      return runs;
    },
    run: () => {
      runs++;
      return new Promise<number>((resolve) => {
        release = () => resolve(runs);
      });
    },
    finish: () => release?.(),
  };
}

const settled = () => new Promise((r) => setImmediate(r));

describe('upkeep in the background', () => {
  it('waits an interval, runs, and arms the next round only after the last one finished', async () => {
    const s = new ManualScheduler();
    const gate = gatedRun();
    const results: number[] = [];
    const bg = scheduleUpkeep({
      run: gate.run,
      scheduler: s,
      now: () => 0,
      onResult: (r) => results.push(r),
    });
    expect(s.pending.map((t) => t.ms)).toEqual([HOUR]);
    s.fire();
    expect(gate.runs).toBe(1);
    expect(bg.running).toBe(true);
    // While it runs, no timer is armed: a second round cannot start.
    expect(s.pending).toEqual([]);
    gate.finish();
    await settled();
    expect(results).toEqual([1]);
    expect(bg.running).toBe(false);
    expect(s.pending.map((t) => t.ms)).toEqual([HOUR]);
    s.fire();
    gate.finish();
    await settled();
    expect(results).toEqual([1, 2]);
    await bg.stop();
    expect(s.pending).toEqual([]);
    expect(s.cleared).toBe(1);
  });

  it('stop waits for a running round and arms nothing after it', async () => {
    const s = new ManualScheduler();
    const gate = gatedRun();
    const bg = scheduleUpkeep({ run: gate.run, scheduler: s, now: () => 0 });
    s.fire();
    expect(gate.runs).toBe(1);
    let stopped = false;
    const stopping = bg.stop().then(() => {
      stopped = true;
    });
    await settled();
    expect(stopped).toBe(false);
    gate.finish();
    await stopping;
    expect(stopped).toBe(true);
    expect(s.pending).toEqual([]);
  });

  it('a failing round (or a throwing listener) goes to onError and the schedule goes on', async () => {
    const s = new ManualScheduler();
    const errors: string[] = [];
    let n = 0;
    const bg = scheduleUpkeep({
      run: async () => {
        if (++n === 1) throw new Error('disk full');
        return n;
      },
      onResult: () => {
        throw new Error('listener broke');
      },
      onError: (e) => errors.push((e as Error).message),
      scheduler: s,
      now: () => 0,
    });
    s.fire();
    await settled();
    s.fire();
    await settled();
    expect(errors).toEqual(['disk full', 'listener broke']);
    expect(s.pending).toHaveLength(1);
    await bg.stop();
  });

  it('after a restart, the first round comes when the last one is an interval old (at least a minute on)', () => {
    expect(firstDelay(10 * HOUR, undefined, HOUR, 60_000)).toBe(HOUR);
    expect(firstDelay(10 * HOUR, 10 * HOUR - 15 * 60_000, HOUR, 60_000)).toBe(45 * 60_000);
    expect(firstDelay(10 * HOUR, 2 * HOUR, HOUR, 60_000)).toBe(60_000);
    expect(firstDelay(10 * HOUR, 11 * HOUR, HOUR, 60_000)).toBe(HOUR); // a clock that went back
  });
});
