import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlive, runBuiltin, tempDir } from './helpers.js';

const fast = { tools: { bashKillGraceMs: 100, bashPipeDrainMs: 100 } };

async function waitForPid(file: string): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const text = await readFile(file, 'utf8').catch(() => '');
    if (/^\d+\n/.test(text)) return Number(text.trim());
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no pid in ${file}`);
}

describe('bash', () => {
  it('runs in the workspace and reports the exit code with combined output', async () => {
    const cwd = await tempDir();
    const r = await runBuiltin(cwd, 'bash', { command: 'pwd; echo out; sleep 0.05; echo err >&2; exit 3' });
    expect(r).toEqual({ output: `exit code: 3\n${cwd}\nout\nerr`, isError: false, status: 'ok' });
    const quiet = await runBuiltin(cwd, 'bash', { command: 'true', description: 'nothing' });
    expect(quiet.output).toBe('exit code: 0\n(no output)');
  });

  it('closes stdin so reading commands do not hang', async () => {
    const cwd = await tempDir();
    const r = await runBuiltin(cwd, 'bash', { command: 'cat; read line || echo "stdin closed"' });
    expect(r.output).toBe('exit code: 0\nstdin closed');
  });

  it('kills the whole process group on timeout', async () => {
    const cwd = await tempDir();
    const r = await runBuiltin(
      cwd,
      'bash',
      { command: 'echo started; sleep 30 & echo $! > child.pid; wait', timeout_ms: 500 },
      fast,
    );
    expect(r.status).toBe('error');
    expect(r.isError).toBe(true);
    expect(r.output).toBe(
      '[ERROR] killed: timeout after 0.5s\nstarted\n' +
        'Hint: the command took too long; narrow it (smaller scope, fewer files) or raise timeout_ms',
    );
    const pid = Number((await readFile(join(cwd, 'child.pid'), 'utf8')).trim());
    expect(await isAlive(pid)).toBe(false);
  });

  it('escalates to SIGKILL for children that ignore SIGTERM', async () => {
    const cwd = await tempDir();
    const controller = new AbortController();
    const command = `bash -c 'trap "" TERM; echo $$ > child.pid; while true; do sleep 0.02; done' & wait`;
    const pending = runBuiltin(cwd, 'bash', { command }, { ...fast, ctx: { signal: controller.signal } });
    const pid = await waitForPid(join(cwd, 'child.pid'));
    controller.abort();
    const r = await pending;
    expect(r.status).toBe('cancelled');
    expect(r.output).toMatch(/^\[CANCELLED\] bash was cancelled by the user\nkilled: cancelled/);
    expect(await isAlive(pid)).toBe(false);
  });

  it('stops on cancel and reports it as cancelled', async () => {
    const cwd = await tempDir();
    const controller = new AbortController();
    const pending = runBuiltin(
      cwd,
      'bash',
      { command: 'echo working; sleep 30 & echo $! > child.pid; wait' },
      { ...fast, ctx: { signal: controller.signal } },
    );
    const pid = await waitForPid(join(cwd, 'child.pid'));
    expect(await isAlive(pid)).toBe(true);
    controller.abort();
    const r = await pending;
    expect(r.status).toBe('cancelled');
    expect(r.output).toBe('[CANCELLED] bash was cancelled by the user\nkilled: cancelled\nworking');
    expect(await isAlive(pid)).toBe(false);
  });

  it('keeps the head and tail of huge output', async () => {
    const cwd = await tempDir();
    const lines = await runBuiltin(cwd, 'bash', { command: 'seq 1 30000' });
    expect(lines.status).toBe('ok');
    expect(lines.output.length).toBeLessThanOrEqual(30_000);
    expect(lines.output.startsWith('exit code: 0\n1\n2\n3\n')).toBe(true);
    expect(lines.output.endsWith('\n29999\n30000')).toBe(true);
    expect(lines.output).toMatch(/\n… \[\d+ lines \/ \d+ chars omitted\] …\n/);

    const wide = await runBuiltin(cwd, 'bash', { command: "head -c 100000 /dev/zero | tr '\\0' a" });
    expect(wide.output.length).toBeLessThanOrEqual(30_000);
    expect(wide.output.startsWith('exit code: 0\naaaa')).toBe(true);
    const marker = /… \[0 lines \/ (\d+) chars omitted\] …/.exec(wide.output);
    expect(marker).not.toBeNull();
    const kept = wide.output
      .replace(marker![0], '')
      .match(/a{10,}/g)!
      .join('');
    expect(kept.length + Number(marker![1])).toBe(100_000);
  });

  it('returns when the shell exits even if a background job holds the output open', async () => {
    const cwd = await tempDir();
    const r = await runBuiltin(cwd, 'bash', { command: 'sleep 5 & echo $! > bg.pid; echo done' }, fast);
    const pid = Number((await readFile(join(cwd, 'bg.pid'), 'utf8')).trim());
    try {
      expect(r.status).toBe('ok');
      expect(r.output).toBe(
        'exit code: 0\ndone\n(background processes still hold the output open; their later output is not captured)',
      );
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });

  it('validates timeout_ms', async () => {
    const cwd = await tempDir();
    const r = await runBuiltin(cwd, 'bash', { command: 'true', timeout_ms: 700_000 });
    expect(r.output).toMatch(
      /^\[ERROR\] Invalid arguments for bash: timeout_ms: Too big: expected number to be <=600000/,
    );
  });
});
