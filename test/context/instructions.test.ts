import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatInstructions, type Instruction, loadInstructions } from '../../src/context/instructions.js';

let root: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'tea-instr-'));
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** Writes `text` at `rel` under the temp root, creating folders. */
function put(rel: string, text: string | Buffer): string {
  const file = path.join(root, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

const dir = (rel: string): string => {
  const full = path.join(root, rel);
  mkdirSync(full, { recursive: true });
  return full;
};

const paths = (list: Instruction[]): string[] => list.map((i) => path.relative(root, i.path));

describe('loadInstructions discovery', () => {
  it('loads the global file first, then project files from the git root down to cwd', async () => {
    put('home/AGENTS.md', 'global rules');
    put('outside/AGENTS.md', 'above the git root: never loaded');
    dir('outside/repo/.git');
    put('outside/repo/AGENTS.md', 'repo rules');
    put('outside/repo/pkg/AGENTS.md', 'pkg rules');
    const cwd = dir('outside/repo/pkg/src');

    const list = await loadInstructions({ cwd, home: path.join(root, 'home') });

    expect(paths(list)).toEqual(['home/AGENTS.md', 'outside/repo/AGENTS.md', 'outside/repo/pkg/AGENTS.md']);
    expect(list.map((i) => i.text)).toEqual(['global rules', 'repo rules', 'pkg rules']);
    expect(list.every((i) => !i.truncated)).toBe(true);
  });

  it('treats a .git file (worktree) as the git root too', async () => {
    put('a/AGENTS.md', 'above');
    put('a/wt/.git', 'gitdir: /elsewhere');
    put('a/wt/AGENTS.md', 'worktree');
    const list = await loadInstructions({ cwd: path.join(root, 'a/wt'), home: dir('home') });
    expect(paths(list)).toEqual(['a/wt/AGENTS.md']);
  });

  it('also reads .tea/AGENTS.md, after the AGENTS.md of the same folder', async () => {
    dir('repo/.git');
    put('repo/.tea/AGENTS.md', 'seed-compatible rules');
    put('repo/AGENTS.md', 'plain rules');
    put('repo/sub/.tea/AGENTS.md', 'inner seed rules');
    const list = await loadInstructions({ cwd: dir('repo/sub'), home: dir('home') });
    expect(paths(list)).toEqual(['repo/AGENTS.md', 'repo/.tea/AGENTS.md', 'repo/sub/.tea/AGENTS.md']);
  });

  it('walks up to the filesystem root when there is no git root, and never throws for missing files', async () => {
    put('x/AGENTS.md', 'x rules');
    const cwd = dir('x/y/z');
    const list = await loadInstructions({ cwd, home: path.join(root, 'no-such-home') });
    // Files above the temp root (if any) may be found too; ours must be the last one.
    expect(list.at(-1)?.path).toBe(path.join(root, 'x/AGENTS.md'));
    expect(list.some((i) => i.path.startsWith(path.join(root, 'no-such-home')))).toBe(false);
  });

  it('reads a file once when the global file is also on the project path', async () => {
    dir('proj/.git');
    const home = dir('proj/.tea');
    put('proj/.tea/AGENTS.md', 'shared');
    const list = await loadInstructions({ cwd: path.join(root, 'proj'), home });
    expect(paths(list)).toEqual(['proj/.tea/AGENTS.md']);
  });

  it('skips binary files, invalid UTF-8, directories and unreadable files', async () => {
    dir('repo/.git');
    put('home/AGENTS.md', Buffer.from([0x72, 0x75, 0x00, 0x6c, 0x65]));
    put('repo/AGENTS.md', Buffer.from([0x66, 0xff, 0xfe, 0x6f]));
    dir('repo/a/AGENTS.md');
    const locked = put('repo/a/b/AGENTS.md', 'secret');
    chmodSync(locked, 0o000);
    put('repo/a/b/.tea/AGENTS.md', '中文规则 ok');
    const list = await loadInstructions({ cwd: path.join(root, 'repo/a/b'), home: path.join(root, 'home') });
    const expected = ['repo/a/b/.tea/AGENTS.md'];
    // root can read anything: then the locked file is loaded as usual.
    const isRoot = process.getuid?.() === 0;
    expect(paths(list)).toEqual(isRoot ? ['repo/a/b/AGENTS.md', ...expected] : expected);
    expect(list.at(-1)?.text).toBe('中文规则 ok');
  });
});

describe('loadInstructions caps', () => {
  it('cuts a file over the per-file cap, on a character boundary, with a note', async () => {
    dir('repo/.git');
    // 'é' is 2 bytes: 8 of them are 16 bytes; a 5-byte cap lands inside the third one.
    put('repo/AGENTS.md', 'éééééééé');
    const list = await loadInstructions({
      cwd: path.join(root, 'repo'),
      home: dir('home'),
      maxBytesPerFile: 5,
    });
    expect(list).toHaveLength(1);
    expect(list[0]?.truncated).toBe(true);
    expect(list[0]?.text).toBe('éé\n… [truncated: 12 more bytes]');
  });

  it('skips later files once the total cap is reached and lists them in a note', async () => {
    dir('repo/.git');
    put('home/AGENTS.md', 'g'.repeat(60));
    put('repo/AGENTS.md', 'r'.repeat(60));
    put('repo/a/AGENTS.md', 'a'.repeat(10));
    put('repo/a/.tea/AGENTS.md', 'b'.repeat(10));
    const list = await loadInstructions({
      cwd: path.join(root, 'repo/a'),
      home: path.join(root, 'home'),
      maxBytesPerFile: 100,
      maxTotalBytes: 100,
    });
    expect(list).toHaveLength(3);
    expect(list[0]?.text).toBe('g'.repeat(60));
    expect(list[1]?.truncated).toBe(true);
    expect(list[1]?.text).toBe(`${'r'.repeat(40)}\n… [truncated: 20 more bytes]`);
    const note = list[2];
    expect(note?.path).toBe('');
    expect(note?.skipped).toEqual([
      path.join(root, 'repo/a/AGENTS.md'),
      path.join(root, 'repo/a/.tea/AGENTS.md'),
    ]);
    expect(note?.text).toContain('total cap of 100 bytes');
    expect(note?.text).toContain(path.join(root, 'repo/a/.tea/AGENTS.md'));
  });

  it('rejects a cap that is not a positive number', async () => {
    await expect(loadInstructions({ cwd: root, home: root, maxBytesPerFile: 0 })).rejects.toThrow(
      /maxBytesPerFile must be a positive number/,
    );
  });
});

describe('formatInstructions', () => {
  it('labels files relative to cwd, ~-relative under the user home, or absolute', () => {
    const cwd = '/work/proj/pkg';
    const list: Instruction[] = [
      { path: '/home/ann/.tea/AGENTS.md', text: 'global', truncated: false },
      { path: '/work/proj/AGENTS.md', text: 'repo', truncated: false },
      { path: '/work/proj/pkg/.tea/AGENTS.md', text: 'pkg', truncated: false },
      { path: '', text: '[instruction files skipped: …]', truncated: true, skipped: ['/x/AGENTS.md'] },
    ];
    expect(formatInstructions(list, { cwd, userHome: '/home/ann' })).toEqual([
      '# ~/.tea/AGENTS.md\nglobal',
      '# /work/proj/AGENTS.md\nrepo',
      '# .tea/AGENTS.md\npkg',
      '[instruction files skipped: …]',
    ]);
  });

  it('formats what loadInstructions found', async () => {
    dir('repo/.git');
    put('repo/AGENTS.md', 'Use pnpm.');
    const cwd = path.join(root, 'repo');
    const list = await loadInstructions({ cwd, home: dir('home') });
    expect(formatInstructions(list, { cwd, userHome: '/nowhere' })).toEqual(['# AGENTS.md\nUse pnpm.']);
  });
});
