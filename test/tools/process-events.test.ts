/**
 * The process manager tells listeners when a background process starts and ends, and
 * the runtime's BackgroundJobs keeps the running ones for faces. Every wait is on an
 * event (a listener call), never on the clock.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BackgroundJobEvent, BackgroundJobs } from '../../src/tools/background-jobs.js';
import { execTools } from '../../src/tools/builtin/exec.js';
import { type ProcessEvent, ProcessManager } from '../../src/tools/builtin/process-manager.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool } from '../../src/tools/run.js';
import { call, makeCtx, tempDir } from './helpers.js';

const managers: ProcessManager[] = [];

afterEach(() => {
  for (const manager of managers.splice(0)) manager.killAll();
});

function newManager(): ProcessManager {
  const manager = new ProcessManager({ killGraceMs: 200 });
  managers.push(manager);
  return manager;
}

/** Resolves with the first event `accept` takes (events before the call are missed). */
function next<E>(subscribe: (l: (e: E) => void) => () => void, accept: (e: E) => boolean): Promise<E> {
  return new Promise((resolve) => {
    const stop = subscribe((e) => {
      if (!accept(e)) return;
      stop();
      resolve(e);
    });
  });
}

/** Loops until `stop` exists in `cwd`: the test decides when it ends. */
const UNTIL_STOP = 'while [ ! -f stop ]; do sleep 0.02; done; echo done';

describe('process manager events', () => {
  it('tells listeners of a start at once and of the end when the process exits by itself', async () => {
    const cwd = await tempDir();
    const manager = newManager();
    const events: ProcessEvent[] = [];
    manager.subscribe((e) => events.push(e));
    const ended = next<ProcessEvent>(
      (l) => manager.subscribe(l),
      (e) => e.type === 'ended',
    );
    const info = manager.start({ command: UNTIL_STOP, cwd, env: process.env, sessionId: 's9' });
    // The start is told synchronously, before start() returns.
    expect(events).toEqual([
      { type: 'started', info: expect.objectContaining({ id: info.id, running: true }) },
    ]);
    expect(events[0]!.info.sessionId).toBe('s9');
    writeFileSync(join(cwd, 'stop'), '');
    const end = await ended;
    expect(end.info).toMatchObject({ id: info.id, running: false, exitCode: 0, sessionId: 's9' });
    // Told once only, although both 'exit' and 'close' come.
    await manager.waitForExit(info.id, 60_000);
    expect(events.map((e) => e.type)).toEqual(['started', 'ended']);
  });

  it('tells of the end of a killed process and of one that failed to start; unsubscribing stops the calls', async () => {
    const cwd = await tempDir();
    const manager = newManager();
    const seen: string[] = [];
    const stop = manager.subscribe((e) => seen.push(`${e.type} ${e.info.id}`));
    const a = manager.start({ command: 'sleep 60', cwd, env: process.env });
    const killed = await manager.kill(a.id);
    expect(killed.running).toBe(false);
    expect(seen).toEqual([`started ${a.id}`, `ended ${a.id}`]);

    const ended = next<ProcessEvent>(
      (l) => manager.subscribe(l),
      (e) => e.type === 'ended',
    );
    const b = manager.start({
      command: 'x',
      cwd,
      env: process.env,
      launch: { file: join(cwd, 'no-such-program'), args: [] },
    });
    expect((await ended).info).toMatchObject({ id: b.id, running: false, exitCode: null });
    expect(seen).toEqual([`started ${a.id}`, `ended ${a.id}`, `started ${b.id}`, `ended ${b.id}`]);

    stop();
    const c = manager.start({ command: 'sleep 60', cwd, env: process.env });
    await manager.kill(c.id);
    expect(seen).toHaveLength(4);
  });

  it('a listener that throws does not stop the process or the other listeners', async () => {
    const cwd = await tempDir();
    const manager = newManager();
    manager.subscribe(() => {
      throw new Error('a face bug');
    });
    const seen: string[] = [];
    manager.subscribe((e) => seen.push(e.type));
    const info = manager.start({ command: 'sleep 60', cwd, env: process.env });
    expect(manager.info(info.id).running).toBe(true);
    await manager.kill(info.id);
    expect(seen).toEqual(['started', 'ended']);
  });
});

describe('BackgroundJobs (what faces see)', () => {
  it('counts bg_start processes of a tool set while they run, per session too, and tells listeners', async () => {
    const cwd = await tempDir();
    const jobs = new BackgroundJobs();
    const manager = newManager();
    const registry = new ToolRegistry();
    registry.registerAll(execTools({ processManager: manager, backgroundJobs: jobs, bgStartPeekMs: 10 }));
    const events: BackgroundJobEvent[] = [];
    jobs.subscribe((e) => events.push(e));

    const r1 = await runTool(
      registry,
      call('bg_start', { command: UNTIL_STOP, name: 'waiter' }),
      makeCtx(cwd, { sessionId: 'sA' }),
    );
    expect(r1.isError, r1.output).toBeFalsy();
    const r2 = await runTool(
      registry,
      call('bg_start', { command: 'sleep 60' }),
      makeCtx(cwd, { sessionId: 'sB' }),
    );
    expect(r2.isError, r2.output).toBeFalsy();
    expect(jobs.running().map((j) => [j.id, j.name, j.sessionId])).toEqual([
      ['bg1', 'waiter', 'sA'],
      ['bg2', undefined, 'sB'],
    ]);
    expect(jobs.running('sB').map((j) => j.command)).toEqual(['sleep 60']);
    expect(events.map((e) => [e.type, e.job.id, e.running])).toEqual([
      ['started', 'bg1', 1],
      ['started', 'bg2', 2],
    ]);

    // bg1 ends by itself (no tool call): listeners hear it.
    const ended = next<BackgroundJobEvent>(
      (l) => jobs.subscribe(l),
      (e) => e.type === 'ended',
    );
    writeFileSync(join(cwd, 'stop'), '');
    expect(await ended).toMatchObject({ type: 'ended', job: { id: 'bg1' }, running: 1 });
    expect(jobs.running().map((j) => j.id)).toEqual(['bg2']);

    const killed = await runTool(registry, call('bg_kill', { id: 'bg2' }), makeCtx(cwd));
    expect(killed.output).toMatch(/^Stopped bg2/);
    expect(jobs.running()).toEqual([]);
    expect(events.map((e) => [e.type, e.job.id, e.running])).toEqual([
      ['started', 'bg1', 1],
      ['started', 'bg2', 2],
      ['ended', 'bg1', 1],
      ['ended', 'bg2', 0],
    ]);
  });

  it('keeps two managers’ equal ids apart', () => {
    const jobs = new BackgroundJobs();
    const one = jobs.reporter();
    const two = jobs.reporter();
    const job = { id: 'bg1', name: undefined, command: 'x', sessionId: undefined, startedAt: 0 };
    one('started', job);
    two('started', job);
    expect(jobs.running()).toHaveLength(2);
    one('ended', job);
    one('ended', job);
    expect(jobs.running()).toHaveLength(1);
  });
});
