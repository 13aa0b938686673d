import { execFileSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ExecToolOptions, execTools } from '../../src/tools/builtin/exec.js';
import { killAllProcesses, ProcessManager } from '../../src/tools/builtin/process-manager.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool, type ToolRunResult } from '../../src/tools/run.js';
import { call, isAlive, makeCtx, tempDir } from './helpers.js';

const managers: ProcessManager[] = [];

afterEach(() => {
  for (const manager of managers.splice(0)) manager.killAll();
});

/** A tool set sharing one manager, and a `run` bound to it. */
function session(cwd: string, opts: ExecToolOptions = {}) {
  const manager = new ProcessManager({
    killGraceMs: 200,
    ...(opts.bgMaxBufferChars ? { maxBufferChars: opts.bgMaxBufferChars } : {}),
  });
  managers.push(manager);
  const registry = new ToolRegistry();
  registry.registerAll(execTools({ processManager: manager, bgStartPeekMs: 100, ...opts }));
  const run = (name: string, args: Record<string, unknown> = {}): Promise<ToolRunResult> =>
    runTool(registry, call(name, args), makeCtx(cwd));
  return { manager, registry, run };
}

// These tests wait for events (output arriving, a process ending, a pipe closing), never
// for a length of time, so a busy machine only makes them slower. The limits passed
// (WAIT) are far beyond the test timeout: a wait ends by its event, not by the clock.
const WAIT = 60_000;
type Run = (name: string, args?: Record<string, unknown>) => Promise<ToolRunResult>;

/** The body of a bg_start/bg_output answer (without its status header). */
const body = (output: string): string => output.split('\n').slice(1).join('\n');

/**
 * Reads a background process's output (after `first`, the bg_start answer) until
 * `done` holds for all of it; each bg_output call waits for new output or the end.
 */
async function readUntil(
  run: Run,
  id: string,
  first: string,
  done: (text: string) => boolean,
): Promise<string> {
  let text = body(first);
  for (let calls = 0; !done(text); calls++) {
    const r = await run('bg_output', { id, wait_ms: 30_000, max_chars: 100_000 });
    const header = r.output.split('\n')[0] ?? '';
    const more = body(r.output);
    if (more !== '(no new output)') text += `\n${more}`;
    if (/exited|ended by/.test(header) && more === '(no new output)' && !done(text)) {
      throw new Error(`${id} ended without the expected output:\n${text}`);
    }
    if (calls > 10_000) throw new Error(`${id}: output never completed:\n${text}`);
  }
  return text;
}

/** Resolves when the FIFO at `path` is closed by its last writer (the writer has ended). */
function writerGone(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = createReadStream(path);
    stream.on('data', () => undefined);
    stream.on('end', () => resolve());
    stream.on('error', reject);
  });
}

describe('background processes', () => {
  it('starts a process, feeds its stdin and returns only new output', async () => {
    const cwd = await tempDir();
    const { run, manager } = session(cwd);
    const started = await run('bg_start', { command: 'cat', name: 'echo' });
    expect(started.output).toMatch(
      /^Started bg1 \(echo\): running, pid \d+, [\d.]+ s\. Read its output with bg_output id "bg1"\.\n\(no new output\)$/,
    );
    expect((await run('bg_input', { id: 'bg1', text: 'hello' })).output).toMatch(
      /^Sent 6 chars to bg1 \(echo\); it is running/,
    );
    const first = await run('bg_output', { id: 'bg1', wait_ms: 30_000 });
    expect(first.output).toMatch(/^bg1 \(echo\) running, pid \d+, [\d.]+ s\nhello$/);
    await run('bg_input', { id: 'bg1', text: 'again\n' });
    const second = await run('bg_output', { id: 'bg1', wait_ms: 30_000 });
    expect(second.output.split('\n').slice(1)).toEqual(['again']);
    const nothing = await run('bg_output', { id: 'bg1' });
    expect(nothing.output.split('\n')[1]).toBe('(no new output)');

    await run('bg_input', { id: 'bg1', text: 'last', close: true });
    await manager.waitForExit('bg1', WAIT);
    const status = await run('bg_output', { id: 'bg1' });
    expect(status.output).toMatch(/^bg1 \(echo\) exited with code 0 after [\d.]+ s/);
    const closed = await run('bg_input', { id: 'bg1', text: 'more' });
    expect(closed.output).toMatch(/^\[ERROR\] bg1 has exited\nHint: /);
  });

  it('reports a command that fails at once', async () => {
    const cwd = await tempDir();
    // bg_start's look at a new process ends when it exits: a long peek costs nothing here.
    const { run } = session(cwd, { bgStartPeekMs: 20_000 });
    const r = await run('bg_start', { command: 'tea-no-such-program-xyz --flag' });
    expect(r.output).toMatch(/^Started bg1: exited with code 127 after [\d.]+ s\..*\n.*command not found/);
  });

  it('kills the whole process group and lists processes with their status', async () => {
    const cwd = await tempDir();
    const { run, manager } = session(cwd);
    // The background sleep holds a FIFO open: the FIFO's end says it has died.
    execFileSync('mkfifo', [join(cwd, 'child.fifo')]);
    const childGone = writerGone(join(cwd, 'child.fifo'));
    const started = await run('bg_start', {
      command: 'sleep 30 > child.fifo & echo $!; wait',
      name: 'sleeper',
    });
    await run('bg_start', { command: 'echo quick' });
    await manager.waitForExit('bg2', WAIT);
    const printed = await readUntil(run, 'bg1', started.output, (text) => /^\d+$/m.test(text));
    const child = Number(/^(\d+)$/m.exec(printed)?.[1]);
    expect(await isAlive(child)).toBe(true);

    const listed = await run('bg_list');
    const lines = listed.output.split('\n');
    expect(lines[0]).toMatch(
      /^bg1 \(sleeper\): running, pid \d+, [\d.]+ s — sleep 30 > child\.fifo & echo \$!; wait$/,
    );
    expect(lines[1]).toMatch(/^bg2: exited with code 0 after [\d.]+ s — echo quick$/);

    const killed = await run('bg_kill', { id: 'bg1' });
    expect(killed.output).toMatch(/^Stopped bg1 \(sleeper\); ended by SIGTERM after [\d.]+ s/);
    // The sleep closes the FIFO only by ending (its end of it is its stdout).
    await childGone;
    expect((await run('bg_kill', { id: 'bg2' })).output).toMatch(
      /^Already finished: bg2; exited with code 0/,
    );
  });

  it('explains unknown ids', async () => {
    const cwd = await tempDir();
    const { run, manager } = session(cwd);
    expect((await run('bg_output', { id: 'bg9' })).output).toBe(
      '[ERROR] No background process "bg9"\nHint: no background processes exist; start one with bg_start',
    );
    await run('bg_start', { command: 'true' });
    await manager.waitForExit('bg1', WAIT);
    expect((await run('bg_kill', { id: 'nope' })).output).toBe(
      '[ERROR] No background process "nope"\nHint: known ids: bg1',
    );
    expect((await run('bg_list')).output).toMatch(/^bg1: exited with code 0/);
  });

  it('keeps a bounded head and tail of unread output', async () => {
    const cwd = await tempDir();
    const { run, manager } = session(cwd, { bgMaxBufferChars: 2000 });
    const started = await run('bg_start', { command: 'seq 1 100000' });
    expect(started.output.length).toBeLessThan(2500);
    // Once it has ended, everything not yet read is in the buffer: its head and its tail.
    await manager.waitForExit('bg1', WAIT);
    const text = await readUntil(run, 'bg1', started.output, (t) => /\n99999\n100000$/.test(t));
    expect(`\n${text}`).toMatch(/\n1\n2\n3\n/);
    expect(text).toMatch(/… \[\d+ lines \/ \d+ chars omitted\] …/);
    expect(text.length).toBeLessThan(5000);
    expect((await run('bg_output', { id: 'bg1' })).output).toMatch(
      /^bg1 exited with code 0 after [\d.]+ s\n\(no new output\)$/,
    );
  });

  it('scrubs secrets from the environment of background processes', async () => {
    process.env.TEA_TEST_BG_SECRET = 'bg-secret-value';
    try {
      const cwd = await tempDir();
      const { run } = session(cwd);
      const started = await run('bg_start', { command: 'env; echo END' });
      const text = await readUntil(run, 'bg1', started.output, (t) => /^END$/m.test(t));
      expect(text).toContain('END');
      expect(text).toContain('PATH=');
      expect(text).not.toContain('bg-secret-value');
    } finally {
      delete process.env.TEA_TEST_BG_SECRET;
    }
  });

  it('kills every remaining process group with killAll', async () => {
    const cwd = await tempDir();
    const { run, manager } = session(cwd);
    const started = await run('bg_start', { command: 'echo $$; exec sleep 30' });
    const printed = await readUntil(run, 'bg1', started.output, (t) => /^\d+$/m.test(t));
    const leader = Number(/^(\d+)$/m.exec(printed)?.[1]);
    expect(leader).toBe(manager.info('bg1').pid);
    expect(await isAlive(leader)).toBe(true);
    killAllProcesses();
    // The manager sees its child end (and reaps it) before this resolves.
    await manager.waitForExit('bg1', WAIT);
    expect(await isAlive(leader)).toBe(false);
  });

  it('uses the command as the permission subject of every bg tool', async () => {
    const cwd = await tempDir();
    const { run, registry } = session(cwd);
    await run('bg_start', { command: 'sleep 1' });
    for (const name of ['bg_output', 'bg_input', 'bg_kill']) {
      expect(registry.loaded(name)?.subject?.({ id: 'bg1', text: '' }), name).toBe('sleep 1');
    }
    expect(registry.loaded('bg_start')?.subject?.({ command: 'npm run dev' })).toBe('npm run dev');
    expect(registry.loaded('bg_kill')?.subject?.({ id: 'bg7' })).toBe('bg7');
  });
});
