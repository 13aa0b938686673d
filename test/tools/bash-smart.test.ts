import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ExecToolOptions, execTools } from '../../src/tools/builtin/exec.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool, type ToolRunResult } from '../../src/tools/run.js';
import { call, makeCtx, tempDir } from './helpers.js';

/** Small intervals so every case runs in about a second. */
const fast: ExecToolOptions = {
  bashKillGraceMs: 100,
  bashPipeDrainMs: 100,
  bashSampleMs: 100,
  bashIdleGraceMs: 200,
};

async function bash(
  cwd: string,
  args: Record<string, unknown>,
  tools: ExecToolOptions = {},
): Promise<ToolRunResult> {
  const registry = new ToolRegistry();
  registry.registerAll(execTools({ ...fast, ...tools }));
  return runTool(registry, call('bash', args), makeCtx(cwd));
}

/** True while any process is in the group led by `pgid`. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

const BUSY = (ms: number) => `node -e "const t=Date.now(); while(Date.now()-t<${ms}){}"`;

describe('bash smart timeout', () => {
  const smart: ExecToolOptions = {};
  /** A generous cap, so a slow machine cannot turn these into cap tests. */
  const roomy: ExecToolOptions = { ...smart, bashMaxFactor: 10 };

  it('lets a CPU-busy command run past the base deadline', async () => {
    const cwd = await tempDir();
    const r = await bash(cwd, { command: `${BUSY(500)}; echo finished`, timeout_ms: 200 }, roomy);
    expect(r).toEqual({ output: 'exit code: 0\nfinished', isError: false, status: 'ok' });
  });

  it('counts output as activity', async () => {
    const cwd = await tempDir();
    const command = 'for i in 1 2 3 4 5 6 7 8; do echo $i; sleep 0.06; done';
    const r = await bash(cwd, { command, timeout_ms: 200 }, roomy);
    expect(r.output).toBe('exit code: 0\n1\n2\n3\n4\n5\n6\n7\n8');
  });

  it('stops an idle command at the base deadline and kills its group', async () => {
    const cwd = await tempDir();
    const r = await bash(cwd, { command: 'echo $$ > group.pid; sleep 5', timeout_ms: 300 }, smart);
    expect(r.isError).toBe(true);
    // Usually "(idle)" at the deadline; on a slow machine the start-up may still count as activity then.
    expect(r.output.split('\n')[0]).toMatch(
      /^\[ERROR\] killed: timeout after 0\.3 s \(idle( [\d.]+ s, ran [\d.]+ s)?\)$/,
    );
    const pgid = Number((await readFile(join(cwd, 'group.pid'), 'utf8')).trim());
    expect(groupAlive(pgid)).toBe(false);
  });

  it('stops a command that goes idle after being extended, once the idle grace passes', async () => {
    const cwd = await tempDir();
    const r = await bash(
      cwd,
      { command: `${BUSY(400)}; echo busy-done; sleep 5`, timeout_ms: 200 },
      { ...roomy, bashIdleGraceMs: 300 },
    );
    expect(r.output).toMatch(
      // Durations print with up to two decimals: a run of exactly 1.00 s reads "1 s".
      /^\[ERROR\] killed: timeout after 0\.2 s \(idle \d+(\.\d+)? s, ran \d+(\.\d+)? s\)\nbusy-done\n/,
    );
  });

  it('kills a command still busy at the 4× limit', async () => {
    const cwd = await tempDir();
    const r = await bash(cwd, { command: `echo $$ > group.pid; ${BUSY(30_000)}`, timeout_ms: 200 }, smart);
    expect(r.output).toMatch(
      /^\[ERROR\] killed: ran 0\.8 s, the 4× limit\n\(no output\)\nHint: it was still busy/,
    );
    const pgid = Number((await readFile(join(cwd, 'group.pid'), 'utf8')).trim());
    expect(groupAlive(pgid)).toBe(false);
  });

  it('is a plain timeout when smart timeouts are off', async () => {
    const cwd = await tempDir();
    const r = await bash(cwd, { command: BUSY(30_000), timeout_ms: 200 }, { bashSmartTimeout: false });
    expect(r.output).toMatch(
      /^\[ERROR\] killed: timeout after 0\.2 s\n\(no output\)\nHint: the command took too long/,
    );
  });
});
