/**
 * A Tea killed (SIGKILL) while a gate runs leaves its patch applied and its backup in
 * the state `applying`. The next self_modify puts that run back first and says so; if
 * a touched file was edited since, it restores nothing and names the file and backup.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { selfModify } from '../../../src/evolve/self/pipeline.js';
import { failureText, successText } from '../../../src/evolve/self/result.js';
import { useFixture } from './cases.js';
import { copyRepo, diffOf, FILES, treeState } from './fixture.js';

const fx = useFixture();
const TEXT = 'src/util/text.ts';
/** Blocks the importing thread for good (a hang that burns no CPU while the test kills Tea). */
const LOOP = `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);\n\n${FILES[TEXT]}`;

/** Kills every process working inside `root` (the gate a killed Tea left behind). */
function killLeftovers(root: string): number {
  let killed = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readlinkSync(`/proc/${pid}/cwd`).startsWith(root)) {
        process.kill(Number(pid), 'SIGKILL');
        killed++;
      }
    } catch {
      // Gone already, or not ours.
    }
  }
  return killed;
}

/** Runs the child until it reports gate 4, then kills it with SIGKILL. */
async function killedAtGate4(root: string, home: string): Promise<void> {
  mkdirSync(home, { recursive: true });
  const patchFile = path.join(home, 'loop.patch');
  writeFileSync(patchFile, diffOf(fx.template, fx.dir, { [TEXT]: LOOP }));
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(import.meta.dirname, 'crash-child.ts'), root, home, patchFile],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('gate 4')) resolve();
    });
    child.on('exit', () => reject(new Error(`the child ended before gate 4: ${out}${err}`)));
  });
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

describe('a self_modify killed in the middle', { timeout: 120_000 }, () => {
  it.concurrent('is rolled back by the next one, which then runs as usual', async () => {
    const root = copyRepo(fx.template, fx.dir);
    const home = path.join(fx.dir, `home-crash-${Math.random().toString(36).slice(2)}`);
    const before = treeState(root);
    try {
      await killedAtGate4(root, home);
    } finally {
      killLeftovers(root);
    }
    expect(readFileSync(path.join(root, TEXT), 'utf8')).toBe(LOOP);
    const result = await selfModify({
      root,
      home,
      reason: 'check after a crash',
      patch: diffOf(fx.template, fx.dir, {
        [TEXT]: FILES[TEXT]!.replace('export function', '/** Loud. */\nexport function'),
      }),
      signal: new AbortController().signal,
      checkOnly: true,
    });
    if (!result.ok) throw new Error(JSON.stringify(result));
    expect(successText(result)).toMatch(
      /\nNote: an interrupted self_modify was rolled back from its backup \(.+\) before this one$/,
    );
    expect(treeState(root)).toEqual(before);
  });

  it.concurrent('restores nothing when a touched file was edited since, and says where the backup is', async () => {
    const root = copyRepo(fx.template, fx.dir);
    const home = path.join(fx.dir, `home-crash-${Math.random().toString(36).slice(2)}`);
    try {
      await killedAtGate4(root, home);
    } finally {
      killLeftovers(root);
    }
    const mine = `${FILES[TEXT]}// the user's own fix\n`;
    writeFileSync(path.join(root, TEXT), mine);
    const result = await selfModify({
      root,
      home,
      reason: 'after a crash',
      patch: diffOf(fx.template, fx.dir, {
        'src/tools/registry.ts': "export const TOOL_NAMES: readonly string[] = ['add'];\n",
      }),
      signal: new AbortController().signal,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(failureText(result).message).toMatch(
      /refused, nothing was changed: an interrupted self_modify \(backup .+\) left changes, and src\/util\/text\.ts changed since; nothing of it was restored/,
    );
    expect(readFileSync(path.join(root, TEXT), 'utf8')).toBe(mine);
  });
});
