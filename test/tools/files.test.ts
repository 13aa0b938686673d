import { mkdir, readFile, stat, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBuiltin, tempDir, writeTree } from './helpers.js';

const numbered = (n: number): string => Array.from({ length: n }, (_, i) => `row ${i + 1}`).join('\n');

describe('read_file', () => {
  it('numbers lines cat -n style', async () => {
    const cwd = await writeTree(await tempDir(), { 'a.txt': 'alpha\nbeta\r\ngamma\n' });
    const r = await runBuiltin(cwd, 'read_file', { path: 'a.txt' });
    expect(r).toEqual({ output: '     1\talpha\n     2\tbeta\n     3\tgamma', isError: false, status: 'ok' });
  });

  it('reads a range and says where to continue', async () => {
    const cwd = await writeTree(await tempDir(), { 'big.txt': `${numbered(3000)}\n` });
    const unlimited = { tools: { readMaxChars: 1_000_000 }, run: { maxOutputChars: 1_000_000 } };
    const first = await runBuiltin(cwd, 'read_file', { path: 'big.txt' }, unlimited);
    const lines = first.output.split('\n');
    expect(lines).toHaveLength(2001);
    expect(lines[1999]).toBe('  2000\trow 2000');
    expect(lines[2000]).toBe('… 1000 more lines; call again with offset=2001');

    const middle = await runBuiltin(cwd, 'read_file', { path: 'big.txt', offset: 10, limit: 3 });
    expect(middle.output).toBe(
      '    10\trow 10\n    11\trow 11\n    12\trow 12\n… 2988 more lines; call again with offset=13',
    );

    const tail = await runBuiltin(cwd, 'read_file', { path: 'big.txt', offset: 2999 });
    expect(tail.output).toBe('  2999\trow 2999\n  3000\trow 3000');

    // With the default output budget a full page stops early but says where to go on.
    const paged = await runBuiltin(cwd, 'read_file', { path: 'big.txt' });
    const last = paged.output.split('\n').at(-1)!;
    const next = Number(/offset=(\d+)$/.exec(last)![1]);
    expect(last).toBe(
      `… ${3001 - next} more lines (output size limit reached); call again with offset=${next}`,
    );
    expect(paged.output.length).toBeLessThanOrEqual(28_100);
    expect(paged.output.split('\n').at(-2)).toBe(`${String(next - 1).padStart(6)}\trow ${next - 1}`);
  });

  it('stops at the output budget and points to the next offset', async () => {
    const cwd = await writeTree(await tempDir(), { 'wide.txt': Array(100).fill('y'.repeat(90)).join('\n') });
    const r = await runBuiltin(cwd, 'read_file', { path: 'wide.txt' }, { tools: { readMaxChars: 1000 } });
    const lines = r.output.split('\n');
    expect(lines.length).toBe(11);
    expect(lines.at(-1)).toBe('… 90 more lines (output size limit reached); call again with offset=11');
  });

  it('cuts very long lines', async () => {
    const cwd = await writeTree(await tempDir(), { 'long.txt': `${'z'.repeat(5000)}\nshort` });
    const r = await runBuiltin(cwd, 'read_file', { path: 'long.txt' });
    const [first, second] = r.output.split('\n');
    expect(first).toBe(`     1\t${'z'.repeat(2000)}… [line truncated, 3000 more chars]`);
    expect(second).toBe('     2\tshort');
  });

  it('refuses binary files, directories, missing paths and offsets past the end', async () => {
    const cwd = await writeTree(await tempDir(), {
      'img.bin': new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]),
      'small.txt': 'one\ntwo\n',
      'empty.txt': '',
      'dir/x.txt': 'x',
    });
    const binary = await runBuiltin(cwd, 'read_file', { path: 'img.bin' });
    expect(binary.status).toBe('error');
    expect(binary.output).toMatch(/^\[ERROR\] img\.bin looks like a binary file/);
    expect(binary.output).toContain('Hint: inspect it with bash');

    const dir = await runBuiltin(cwd, 'read_file', { path: 'dir' });
    expect(dir.output).toMatch(/^\[ERROR\] dir is a directory, not a file\nHint: .*list_dir/);

    const missing = await runBuiltin(cwd, 'read_file', { path: 'nope.txt' });
    expect(missing.output).toBe(
      '[ERROR] No such file or directory: nope.txt\nHint: the path does not exist; list the directory or use glob to find the right path',
    );

    const past = await runBuiltin(cwd, 'read_file', { path: 'small.txt', offset: 5 });
    expect(past.output).toBe(
      '[ERROR] offset 5 is past the end of small.txt, which has 2 lines\nHint: use an offset between 1 and 2',
    );

    const empty = await runBuiltin(cwd, 'read_file', { path: 'empty.txt' });
    expect(empty).toMatchObject({ status: 'ok', output: '(empty.txt is empty)' });

    const outside = await runBuiltin(cwd, 'read_file', { path: '/etc/hostname' });
    expect(outside.output).toMatch(/^\[ERROR\] Path "\/etc\/hostname" is outside the workspace/);
  });
});

describe('write_file', () => {
  it('creates parents, then overwrites, reporting sizes', async () => {
    const cwd = await tempDir();
    const created = await runBuiltin(cwd, 'write_file', { path: 'a/b/c.txt', content: 'héllo\nworld\n' });
    expect(created).toEqual({
      output: 'Created a/b/c.txt (13 bytes, 2 lines)',
      isError: false,
      status: 'ok',
    });
    expect(await readFile(join(cwd, 'a/b/c.txt'), 'utf8')).toBe('héllo\nworld\n');

    const over = await runBuiltin(cwd, 'write_file', { path: 'a/b/c.txt', content: 'x' });
    expect(over.output).toBe('Overwrote a/b/c.txt (1 byte, 1 line; was 13 bytes)');
    expect(await readFile(join(cwd, 'a/b/c.txt'), 'utf8')).toBe('x');
  });

  it('refuses directories, paths under a file and paths outside the workspace', async () => {
    const cwd = await writeTree(await tempDir(), { 'file.txt': 'keep', 'd/x': '' });
    const dir = await runBuiltin(cwd, 'write_file', { path: 'd', content: 'x' });
    expect(dir.output).toMatch(/^\[ERROR\] d is a directory\nHint:/);

    const under = await runBuiltin(cwd, 'write_file', { path: 'file.txt/inner.txt', content: 'x' });
    expect(under.status).toBe('error');
    expect(under.output).toMatch(/^\[ERROR\] (ENOTDIR|EEXIST)/);
    expect(under.output).toMatch(/\nHint: /);
    expect(await readFile(join(cwd, 'file.txt'), 'utf8')).toBe('keep');

    const outside = await runBuiltin(cwd, 'write_file', { path: '../escape.txt', content: 'x' });
    expect(outside.output).toMatch(/outside the workspace/);
    await expect(stat(join(cwd, '../escape.txt'))).rejects.toThrow();
  });
});

describe('list_dir', () => {
  it('lists sorted entries, directories with a slash, files with sizes', async () => {
    const cwd = await writeTree(await tempDir(), {
      'b.txt': 'x'.repeat(2048),
      'a.txt': 'abc',
      'sub/inner.txt': '',
      '.hidden': '',
    });
    await symlink(join(cwd, 'sub'), join(cwd, 'link'));
    const r = await runBuiltin(cwd, 'list_dir', {});
    expect(r.output).toBe(
      ['./ (5 entries)', '.hidden  (0 B)', 'a.txt  (3 B)', 'b.txt  (2.0 KB)', 'link/ (symlink)', 'sub/'].join(
        '\n',
      ),
    );
    const sub = await runBuiltin(cwd, 'list_dir', { path: 'sub' });
    expect(sub.output).toBe('sub/ (1 entry)\ninner.txt  (0 B)');
  });

  it('caps long listings with a note and reports empty directories and files', async () => {
    const cwd = await tempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i++) files[`many/f${String(i).padStart(2, '0')}.txt`] = '';
    await writeTree(cwd, files);
    await mkdir(join(cwd, 'empty'));
    const capped = await runBuiltin(cwd, 'list_dir', { path: 'many' }, { tools: { listMaxEntries: 10 } });
    const lines = capped.output.split('\n');
    expect(lines[0]).toBe('many/ (30 entries)');
    expect(lines[10]).toBe('f09.txt  (0 B)');
    expect(lines[11]).toBe('… 20 more entries not shown (capped at 10); use glob to narrow');
    expect((await runBuiltin(cwd, 'list_dir', { path: 'empty' })).output).toBe(
      'empty/ (0 entries)\n(empty directory)',
    );
    const file = await runBuiltin(cwd, 'list_dir', { path: 'many/f00.txt' });
    expect(file.output).toBe(
      '[ERROR] many/f00.txt is a file, not a directory\nHint: use read_file to read it',
    );
  });
});
