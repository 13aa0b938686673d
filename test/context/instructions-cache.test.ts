/**
 * loadInstructions caches what it found per directory and reuses it only while
 * every path it looked at is unchanged: edits, new files, removed files and a
 * moved git root are all seen on the next call.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadInstructions } from '../../src/context/instructions.js';

let root: string;
let home: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'tea-instr-cache-'));
  home = path.join(root, 'home');
  mkdirSync(home);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

function put(rel: string, text: string): void {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
}

const texts = async (cwd: string) =>
  (await loadInstructions({ cwd: path.join(root, cwd), home })).map((i) => i.text);

describe('loadInstructions cache', () => {
  it('sees an edit, even one of the same size within the same second', async () => {
    mkdirSync(path.join(root, 'repo/.git'), { recursive: true });
    put('repo/AGENTS.md', 'rule A');
    expect(await texts('repo')).toEqual(['rule A']);
    const file = path.join(root, 'repo/AGENTS.md');
    const { atime, mtime } = statSync(file);
    put('repo/AGENTS.md', 'rule B');
    // Same size, and the modification time put back: the inode change time still differs.
    utimesSync(file, atime, mtime);
    expect(await texts('repo')).toEqual(['rule B']);
  });

  it('sees files created and removed after a cached load', async () => {
    mkdirSync(path.join(root, 'repo/.git'), { recursive: true });
    mkdirSync(path.join(root, 'repo/sub'), { recursive: true });
    expect(await texts('repo/sub')).toEqual([]);
    put('repo/AGENTS.md', 'root rules');
    put('repo/sub/.tea/AGENTS.md', 'sub rules');
    writeFileSync(path.join(home, 'AGENTS.md'), 'global');
    expect(await texts('repo/sub')).toEqual(['global', 'root rules', 'sub rules']);
    unlinkSync(path.join(root, 'repo/AGENTS.md'));
    expect(await texts('repo/sub')).toEqual(['global', 'sub rules']);
  });

  it('sees a new git root that cuts the walk short', async () => {
    put('outer/AGENTS.md', 'outer rules');
    mkdirSync(path.join(root, 'outer/.git'), { recursive: true });
    put('outer/inner/AGENTS.md', 'inner rules');
    expect(await texts('outer/inner')).toEqual(['outer rules', 'inner rules']);
    mkdirSync(path.join(root, 'outer/inner/.git'));
    expect(await texts('outer/inner')).toEqual(['inner rules']);
  });

  it('gives concurrent callers the same answer from one read, as copies', async () => {
    mkdirSync(path.join(root, 'repo/.git'), { recursive: true });
    put('repo/AGENTS.md', 'shared');
    const opts = { cwd: path.join(root, 'repo'), home };
    const all = await Promise.all(Array.from({ length: 20 }, () => loadInstructions(opts)));
    for (const list of all) expect(list.map((i) => i.text)).toEqual(['shared']);
    // A caller changing its copy does not change what the next caller gets.
    all[0]![0]!.text = 'mutated';
    expect((await loadInstructions(opts)).map((i) => i.text)).toEqual(['shared']);
  });

  it('keeps separate answers for separate caps', async () => {
    mkdirSync(path.join(root, 'repo/.git'), { recursive: true });
    put('repo/AGENTS.md', 'x'.repeat(100));
    const cwd = path.join(root, 'repo');
    const whole = await loadInstructions({ cwd, home });
    const cut = await loadInstructions({ cwd, home, maxBytesPerFile: 10 });
    expect(whole[0]!.truncated).toBe(false);
    expect(cut[0]!.truncated).toBe(true);
    expect(cut[0]!.text.startsWith('x'.repeat(10))).toBe(true);
  });
});
