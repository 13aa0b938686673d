import { readFile } from 'node:fs/promises';
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

async function readPid(file: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (/^\d+\n/.test(text)) return Number(text.trim());
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no pid in ${file}`);
}

describe('background processes', () => {
  it('starts a process, feeds its stdin and returns only new output', async () => {
    const cwd = await tempDir();
    const { run } = session(cwd);
    const started = await run('bg_start', { command: 'cat', name: 'echo' });
    expect(started.output).toMatch(
      /^Started bg1 \(echo\): running, pid \d+, [\d.]+ s\. Read its output with bg_output id "bg1"\.\n\(no new output\)$/,
    );
    expect((await run('bg_input', { id: 'bg1', text: 'hello' })).output).toMatch(
      /^Sent 6 chars to bg1 \(echo\); it is running/,
    );
    const first = await run('bg_output', { id: 'bg1', wait_ms: 5000 });
    expect(first.output).toMatch(/^bg1 \(echo\) running, pid \d+, [\d.]+ s\nhello$/);
    await run('bg_input', { id: 'bg1', text: 'again\n' });
    const second = await run('bg_output', { id: 'bg1', wait_ms: 5000 });
    expect(second.output.split('\n').slice(1)).toEqual(['again']);
    const nothing = await run('bg_output', { id: 'bg1' });
    expect(nothing.output.split('\n')[1]).toBe('(no new output)');

    await run('bg_input', { id: 'bg1', text: 'last', close: true });
    let status = await run('bg_output', { id: 'bg1', wait_ms: 5000 });
    for (let i = 0; i < 50 && !/exited/.test(status.output); i++) {
      await new Promise((r) => setTimeout(r, 20));
      status = await run('bg_output', { id: 'bg1' });
    }
    expect(status.output).toMatch(/^bg1 \(echo\) exited with code 0 after [\d.]+ s/);
    const closed = await run('bg_input', { id: 'bg1', text: 'more' });
    expect(closed.output).toMatch(/^\[ERROR\] bg1 has exited\nHint: /);
  });

  it('reports a command that fails at once', async () => {
    const cwd = await tempDir();
    const { run } = session(cwd);
    const r = await run('bg_start', { command: 'tea-no-such-program-xyz --flag' });
    expect(r.output).toMatch(/^Started bg1: exited with code 127 after [\d.]+ s\..*\n.*command not found/);
  });

  it('kills the whole process group and lists processes with their status', async () => {
    const cwd = await tempDir();
    const { run } = session(cwd);
    await run('bg_start', { command: 'sleep 30 & echo $! > child.pid; wait', name: 'sleeper' });
    await run('bg_start', { command: 'echo quick' });
    const child = await readPid(join(cwd, 'child.pid'));
    expect(await isAlive(child)).toBe(true);

    const listed = await run('bg_list');
    const lines = listed.output.split('\n');
    expect(lines[0]).toMatch(
      /^bg1 \(sleeper\): running, pid \d+, [\d.]+ s — sleep 30 & echo \$! > child\.pid; wait$/,
    );
    expect(lines[1]).toMatch(/^bg2: exited with code 0 after [\d.]+ s — echo quick$/);

    const killed = await run('bg_kill', { id: 'bg1' });
    expect(killed.output).toMatch(/^Stopped bg1 \(sleeper\); ended by SIGTERM after [\d.]+ s/);
    expect(await isAlive(child)).toBe(false);
    expect((await run('bg_kill', { id: 'bg2' })).output).toMatch(
      /^Already finished: bg2; exited with code 0/,
    );
  });

  it('explains unknown ids', async () => {
    const cwd = await tempDir();
    const { run } = session(cwd);
    expect((await run('bg_output', { id: 'bg9' })).output).toBe(
      '[ERROR] No background process "bg9"\nHint: no background processes exist; start one with bg_start',
    );
    await run('bg_start', { command: 'true' });
    expect((await run('bg_kill', { id: 'nope' })).output).toBe(
      '[ERROR] No background process "nope"\nHint: known ids: bg1',
    );
    expect((await run('bg_list')).output).toMatch(/^bg1: exited with code 0/);
  });

  /** Everything bg_start and then bg_output return until the process has exited. */
  async function drain(
    run: (name: string, args?: Record<string, unknown>) => Promise<ToolRunResult>,
    command: string,
  ) {
    const chunks = [(await run('bg_start', { command })).output];
    while (!/exited/.test(chunks.at(-1)?.split('\n')[0] ?? '') && chunks.length < 200) {
      chunks.push((await run('bg_output', { id: 'bg1', wait_ms: 500, max_chars: 100_000 })).output);
    }
    return chunks;
  }

  it('keeps a bounded head and tail of unread output', async () => {
    const cwd = await tempDir();
    const { run } = session(cwd, { bgMaxBufferChars: 2000 });
    const chunks = await drain(run, 'seq 1 100000');
    const text = chunks.join('\n');
    expect(chunks.at(-1)).toMatch(/exited with code 0/);
    expect(text).toMatch(/\n1\n2\n3\n/);
    expect(text).toMatch(/… \[\d+ lines \/ \d+ chars omitted\] …/);
    expect(text).toMatch(/\n99999\n100000(\n|$)/);
    for (const chunk of chunks) expect(chunk.length).toBeLessThan(2500);
  });

  it('scrubs secrets from the environment of background processes', async () => {
    process.env.TEA_TEST_BG_SECRET = 'bg-secret-value';
    try {
      const cwd = await tempDir();
      const { run } = session(cwd);
      const text = (await drain(run, 'env; echo END')).join('\n');
      expect(text).toContain('END');
      expect(text).toContain('PATH=');
      expect(text).not.toContain('bg-secret-value');
    } finally {
      delete process.env.TEA_TEST_BG_SECRET;
    }
  });

  it('kills every remaining process group with killAll', async () => {
    const cwd = await tempDir();
    const { run } = session(cwd);
    await run('bg_start', { command: 'echo $$ > leader.pid; sleep 30' });
    const leader = await readPid(join(cwd, 'leader.pid'));
    expect(await isAlive(leader)).toBe(true);
    killAllProcesses();
    for (let i = 0; i < 100 && (await isAlive(leader)); i++) await new Promise((r) => setTimeout(r, 10));
    expect(await isAlive(leader)).toBe(false);
  });

  it('uses the command as the permission subject of every bg tool', async () => {
    const cwd = await tempDir();
    const { run, registry } = session(cwd);
    await run('bg_start', { command: 'sleep 1' });
    for (const name of ['bg_output', 'bg_input', 'bg_kill']) {
      expect(registry.get(name)?.subject?.({ id: 'bg1', text: '' }), name).toBe('sleep 1');
    }
    expect(registry.get('bg_start')?.subject?.({ command: 'npm run dev' })).toBe('npm run dev');
    expect(registry.get('bg_kill')?.subject?.({ id: 'bg7' })).toBe('bg7');
  });
});
