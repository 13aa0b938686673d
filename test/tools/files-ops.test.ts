import { chmod, lstat, mkdir, readFile, readlink, symlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFile, snapshot } from './files-helpers.js';
import { tempDir, writeTree } from './helpers.js';

async function workspace(): Promise<string> {
  return writeTree(await tempDir(), {
    'a.txt': 'alpha\n',
    'b.txt': 'beta\n',
    'dir/one.txt': '1',
    'dir/sub/two.txt': '22',
  });
}

describe('delete_path', () => {
  it('deletes files, empty directories, and non-empty ones only with recursive', async () => {
    const cwd = await workspace();
    await mkdir(join(cwd, 'hollow'));
    expect((await runFile(cwd, 'delete_path', { path: 'a.txt' })).output).toBe('Deleted a.txt (6 B)');
    expect((await runFile(cwd, 'delete_path', { path: 'hollow' })).output).toBe(
      'Deleted hollow/ (empty directory)',
    );
    const refused = await runFile(cwd, 'delete_path', { path: 'dir' });
    expect(refused.output).toBe(
      '[ERROR] dir/ is not empty (2 entries: one.txt, sub)\n' +
        'Hint: pass recursive: true to delete it with everything inside, after checking that is really intended',
    );
    expect(Object.keys(await snapshot(cwd)).sort()).toEqual(['b.txt', 'dir/one.txt', 'dir/sub/two.txt']);
    const gone = await runFile(cwd, 'delete_path', { path: 'dir', recursive: true });
    expect(gone.output).toBe('Deleted dir/ (2 files, 1 subdirectory, 3 B)');
    expect(await snapshot(cwd)).toEqual({ 'b.txt': 'beta\n' });
  });

  it('removes a symlink itself, even one pointing outside, never its target', async () => {
    const cwd = await workspace();
    const outside = await writeTree(await tempDir(), { 'keep.txt': 'outside' });
    await symlink(join(outside, 'keep.txt'), join(cwd, 'out-link'));
    await symlink(join(cwd, 'dir'), join(cwd, 'dir-link'));
    expect((await runFile(cwd, 'delete_path', { path: 'out-link' })).output).toBe(
      'Deleted out-link (symlink)',
    );
    expect((await runFile(cwd, 'delete_path', { path: 'dir-link' })).output).toBe(
      'Deleted dir-link (symlink)',
    );
    expect(await readFile(join(outside, 'keep.txt'), 'utf8')).toBe('outside');
    expect(Object.keys(await snapshot(cwd)).sort()).toEqual([
      'a.txt',
      'b.txt',
      'dir/one.txt',
      'dir/sub/two.txt',
    ]);
  });

  it('refuses the workspace root, missing paths, .git and escapes', async () => {
    const cwd = await workspace();
    await writeTree(cwd, { '.git/HEAD': 'ref' });
    const before = await snapshot(cwd);
    for (const p of ['.', cwd, './']) {
      expect((await runFile(cwd, 'delete_path', { path: p, recursive: true })).output).toMatch(
        /^\[ERROR\] Refusing to delete ".*": it is the workspace root or contains it/,
      );
    }
    expect((await runFile(cwd, 'delete_path', { path: 'nope' })).output).toMatch(
      /^\[ERROR\] No such file or directory: nope/,
    );
    expect((await runFile(cwd, 'delete_path', { path: '.git', recursive: true })).output).toMatch(
      /^\[ERROR\] Refusing to write "\.git": it is inside a \.git directory/,
    );
    expect((await runFile(cwd, 'delete_path', { path: '..', recursive: true })).output).toMatch(
      /outside the workspace/,
    );
    expect(await snapshot(cwd)).toEqual(before);
  });
});

describe('move_path', () => {
  it('renames files and directories, creating parents', async () => {
    const cwd = await workspace();
    expect((await runFile(cwd, 'move_path', { from: 'a.txt', to: 'new/place/a.md' })).output).toBe(
      'Moved a.txt -> new/place/a.md',
    );
    expect((await runFile(cwd, 'move_path', { from: 'dir', to: 'renamed' })).output).toBe(
      'Moved dir/ -> renamed/',
    );
    expect(await snapshot(cwd)).toEqual({
      'b.txt': 'beta\n',
      'new/place/a.md': 'alpha\n',
      'renamed/one.txt': '1',
      'renamed/sub/two.txt': '22',
    });
  });

  it('replaces an existing file only with overwrite, and never a directory', async () => {
    const cwd = await workspace();
    const refused = await runFile(cwd, 'move_path', { from: 'a.txt', to: 'b.txt' });
    expect(refused.output).toBe(
      '[ERROR] b.txt already exists\nHint: pass overwrite: true to replace it, or pick another destination',
    );
    expect((await runFile(cwd, 'move_path', { from: 'a.txt', to: 'b.txt', overwrite: true })).output).toBe(
      'Moved a.txt -> b.txt (replaced the existing file)',
    );
    expect(await readFile(join(cwd, 'b.txt'), 'utf8')).toBe('alpha\n');
    expect((await runFile(cwd, 'move_path', { from: 'b.txt', to: 'dir', overwrite: true })).output).toMatch(
      /^\[ERROR\] dir is a directory; it is not replaced/,
    );
    expect((await runFile(cwd, 'move_path', { from: 'dir', to: 'b.txt', overwrite: true })).output).toMatch(
      /^\[ERROR\] b\.txt is a file; a directory cannot replace it/,
    );
  });

  it('refuses moving into itself, the root, .git, and anything outside', async () => {
    const cwd = await workspace();
    const outside = await tempDir();
    await writeTree(cwd, { '.git/config': '[core]' });
    const before = await snapshot(cwd);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ from: 'dir', to: 'dir/sub/inner' }, /^\[ERROR\] Cannot move dir into itself/],
      [{ from: '.', to: 'x' }, /^\[ERROR\] Refusing to move "\.": it is the workspace root/],
      [{ from: 'a.txt', to: 'a.txt' }, /are the same path/],
      [{ from: 'missing', to: 'x' }, /^\[ERROR\] No such file or directory: missing/],
      [{ from: 'a.txt', to: '.git/a.txt' }, /inside a \.git directory/],
      [{ from: '.git/config', to: 'config' }, /inside a \.git directory/],
      [{ from: 'a.txt', to: join(outside, 'a.txt') }, /outside the workspace/],
      [{ from: join(outside, 'x'), to: 'x' }, /outside the workspace/],
      [{ from: 'a.txt', to: 'a.txt/child' }, /a\.txt is a file, not a directory/],
    ];
    for (const [args, expected] of cases) {
      const r = await runFile(cwd, 'move_path', args);
      expect(r.output, JSON.stringify(args)).toMatch(expected);
    }
    expect(await snapshot(cwd)).toEqual(before);
    expect(await snapshot(outside)).toEqual({});
  });

  it('moves a symlink as a link', async () => {
    const cwd = await workspace();
    await symlink('a.txt', join(cwd, 'link'));
    await runFile(cwd, 'move_path', { from: 'link', to: 'moved-link' });
    expect(await readlink(join(cwd, 'moved-link'))).toBe('a.txt');
    expect(await readFile(join(cwd, 'a.txt'), 'utf8')).toBe('alpha\n');
  });
});

describe('copy_path', () => {
  it('copies files and whole directories, symlinks as links', async () => {
    const cwd = await workspace();
    await symlink('one.txt', join(cwd, 'dir/link'));
    expect((await runFile(cwd, 'copy_path', { from: 'a.txt', to: 'copies/a.txt' })).output).toBe(
      'Copied a.txt -> copies/a.txt (6 B)',
    );
    expect((await runFile(cwd, 'copy_path', { from: 'dir', to: 'dir2' })).output).toBe(
      'Copied dir/ -> dir2/ (3 files, 1 subdirectory, 10 B)',
    );
    expect(await readFile(join(cwd, 'dir2/sub/two.txt'), 'utf8')).toBe('22');
    expect((await lstat(join(cwd, 'dir2/link'))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(cwd, 'dir2/link'))).toBe('one.txt');
    expect(await readFile(join(cwd, 'a.txt'), 'utf8')).toBe('alpha\n');
  });

  it('overwrites only when asked, and refuses escapes and copying into itself', async () => {
    const cwd = await workspace();
    const outside = await writeTree(await tempDir(), { 'secret.txt': 'secret' });
    await symlink(join(outside, 'secret.txt'), join(cwd, 'leak'));
    const before = await snapshot(cwd);
    expect((await runFile(cwd, 'copy_path', { from: 'a.txt', to: 'b.txt' })).output).toMatch(
      /^\[ERROR\] b\.txt already exists/,
    );
    expect((await runFile(cwd, 'copy_path', { from: 'dir', to: 'dir/sub/copy' })).output).toMatch(
      /^\[ERROR\] Cannot copy dir into itself/,
    );
    expect((await runFile(cwd, 'copy_path', { from: 'leak', to: 'stolen.txt' })).output).toMatch(
      /outside the workspace/,
    );
    expect(
      (await runFile(cwd, 'copy_path', { from: join(outside, 'secret.txt'), to: 's.txt' })).output,
    ).toMatch(/outside the workspace/);
    expect((await runFile(cwd, 'copy_path', { from: 'a.txt', to: join(outside, 'a.txt') })).output).toMatch(
      /outside the workspace/,
    );
    expect((await runFile(cwd, 'copy_path', { from: 'a.txt', to: '.git/a.txt' })).output).toMatch(
      /\.git directory/,
    );
    expect(await snapshot(cwd)).toEqual(before);
    expect(await snapshot(outside)).toEqual({ 'secret.txt': 'secret' });
    expect((await runFile(cwd, 'copy_path', { from: 'a.txt', to: 'b.txt', overwrite: true })).status).toBe(
      'ok',
    );
    expect(await readFile(join(cwd, 'b.txt'), 'utf8')).toBe('alpha\n');
  });
});

describe('make_dir', () => {
  it('creates nested directories, accepts existing ones and refuses files and .git', async () => {
    const cwd = await workspace();
    expect((await runFile(cwd, 'make_dir', { path: 'x/y/z' })).output).toBe('Created x/y/z/');
    expect((await lstat(join(cwd, 'x/y/z'))).isDirectory()).toBe(true);
    expect((await runFile(cwd, 'make_dir', { path: 'x/y' })).output).toBe('x/y/ already exists');
    expect((await runFile(cwd, 'make_dir', { path: 'a.txt' })).output).toMatch(
      /^\[ERROR\] a\.txt exists and is a file/,
    );
    expect((await runFile(cwd, 'make_dir', { path: 'a.txt/inner' })).output).toMatch(
      /^\[ERROR\] Cannot create a\.txt\/inner\/: a part of the path is a file/,
    );
    expect((await runFile(cwd, 'make_dir', { path: '.git/hooks' })).output).toMatch(/\.git directory/);
    expect((await runFile(cwd, 'make_dir', { path: '~/tea-should-not-exist' })).output).toMatch(
      /outside the workspace/,
    );
  });
});

describe('file_info', () => {
  it('describes text files, directories, images, binaries and symlinks', async () => {
    const cwd = await workspace();
    await writeTree(cwd, {
      'pic.gif': Buffer.concat([Buffer.from('GIF89a'), Buffer.from([3, 0, 4, 0, 0, 0, 0])]),
      'blob.bin': new Uint8Array([0, 1, 2]),
    });
    await chmod(join(cwd, 'a.txt'), 0o640);
    const when = new Date('2024-05-06T07:08:09.000Z');
    await utimes(join(cwd, 'a.txt'), when, when);
    const text = await runFile(cwd, 'file_info', { path: 'a.txt' });
    expect(text.output).toMatch(
      /^path: a\.txt\ntype: file\nsize: 6 bytes \(6 B\)\ncontent: text\nlines: 1\nmode: 0640\nmodified: 2024-05-06T07:08:09\.000Z\nchanged: \d{4}-/,
    );
    const dir = await runFile(cwd, 'file_info', { path: 'dir' });
    expect(dir.output).toMatch(/^path: dir\ntype: directory\nsize: .*\nentries: 2\nmode: 0\d{3}\n/);
    expect((await runFile(cwd, 'file_info', { path: 'pic.gif' })).output).toContain(
      'content: image (image/gif, 3x4)',
    );
    expect((await runFile(cwd, 'file_info', { path: 'blob.bin' })).output).toContain('content: binary');

    await symlink('a.txt', join(cwd, 'link'));
    const link = await runFile(cwd, 'file_info', { path: 'link' });
    expect(link.output).toMatch(
      /^path: link\ntype: symlink -> a\.txt\ntarget: a\.txt \(file\)\nsize: 6 bytes/,
    );
    await symlink('missing.txt', join(cwd, 'broken'));
    expect((await runFile(cwd, 'file_info', { path: 'broken' })).output).toBe(
      'path: broken\ntype: symlink -> missing.txt\ntarget: missing (broken symlink)',
    );
    const outside = await writeTree(await tempDir(), { 's.txt': 'secret' });
    await symlink(join(outside, 's.txt'), join(cwd, 'out'));
    expect((await runFile(cwd, 'file_info', { path: 'out' })).output).toBe(
      `path: out\ntype: symlink -> ${join(outside, 's.txt')}\ntarget: outside the workspace (not inspected)`,
    );
  });

  it('skips the line count of big files and refuses missing and outside paths', async () => {
    const cwd = await writeTree(await tempDir(), { 'big.txt': 'x\n'.repeat(100) });
    const r = await runFile(cwd, 'file_info', { path: 'big.txt' }, { tools: { infoMaxLineCountBytes: 50 } });
    expect(r.output).toContain('lines: not counted (over 50 B)');
    expect((await runFile(cwd, 'file_info', { path: 'nope' })).output).toMatch(
      /^\[ERROR\] No such file or directory: nope/,
    );
    expect((await runFile(cwd, 'file_info', { path: '/etc/passwd' })).output).toMatch(
      /outside the workspace/,
    );
  });
});

describe('diff_files', () => {
  it('shows a unified diff, or says the files are identical', async () => {
    const cwd = await writeTree(await tempDir(), {
      'old.txt': 'one\ntwo\nthree\n',
      'new.txt': 'one\n2\nthree\nfour\n',
      'same.txt': 'one\ntwo\nthree\n',
      'crlf.txt': 'one\r\ntwo\r\nthree\r\n',
      'bin.dat': new Uint8Array([0, 1]),
    });
    expect((await runFile(cwd, 'diff_files', { a: 'old.txt', b: 'new.txt' })).output).toBe(
      [
        'old.txt -> new.txt: +2 -1 lines',
        '--- old.txt',
        '+++ new.txt',
        '@@ -1,3 +1,4 @@',
        ' one',
        '-two',
        '+2',
        ' three',
        '+four',
      ].join('\n'),
    );
    expect((await runFile(cwd, 'diff_files', { a: 'old.txt', b: 'same.txt' })).output).toBe(
      'old.txt and same.txt are identical',
    );
    expect((await runFile(cwd, 'diff_files', { a: 'old.txt', b: 'crlf.txt' })).output).toBe(
      'old.txt and crlf.txt differ only in line endings (CRLF vs LF)',
    );
    expect((await runFile(cwd, 'diff_files', { a: 'old.txt', b: 'bin.dat' })).output).toMatch(
      /looks like a binary file/,
    );
    expect((await runFile(cwd, 'diff_files', { a: 'old.txt', b: 'nope' })).output).toMatch(/No such file/);
    expect((await runFile(cwd, 'diff_files', { a: 'old.txt', b: '../x' })).output).toMatch(
      /outside the workspace/,
    );
  });
});
