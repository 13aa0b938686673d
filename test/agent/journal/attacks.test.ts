/**
 * Break-in attempts against undo/redo: each either restores exactly or refuses,
 * changing nothing, and never writes through a symlink or outside the workspace.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalFiles, useDirect } from './direct.js';

const direct = useDirect();
const read = (p: string): string => readFileSync(p, 'utf8');

describe('journal attack table', () => {
  it('a symlink swapped in for a journaled file: undo refuses and does not follow it', async () => {
    const d = direct();
    const outside = path.join(d.home, 'secret.txt');
    writeFileSync(outside, 'after\n');
    writeFileSync(path.join(d.work, 'a.txt'), 'before\n');
    const s = d.session();
    await d.round(s, () => writeFileSync(path.join(d.work, 'a.txt'), 'after\n'));
    unlinkSync(path.join(d.work, 'a.txt'));
    symlinkSync(outside, path.join(d.work, 'a.txt'));
    const r = await d.journal.undo(s);
    expect(r).toMatchObject({ ok: false, reason: 'conflict', files: ['a.txt'] });
    expect(read(outside)).toBe('after\n');
    expect(lstatSync(path.join(d.work, 'a.txt')).isSymbolicLink()).toBe(true);
  });

  it('a directory on the way swapped for a symlink out of the workspace: refused, the target untouched', async () => {
    const d = direct();
    const outDir = path.join(d.home, 'elsewhere');
    mkdirSync(outDir);
    mkdirSync(path.join(d.work, 'dir'));
    writeFileSync(path.join(d.work, 'dir', 'a.txt'), 'before\n');
    const s = d.session();
    await d.round(s, () => writeFileSync(path.join(d.work, 'dir', 'a.txt'), 'after\n'));
    // The same bytes behind the link: only the symlink check can refuse it.
    renameSync(path.join(d.work, 'dir'), path.join(d.home, 'moved'));
    writeFileSync(path.join(outDir, 'a.txt'), 'after\n');
    symlinkSync(outDir, path.join(d.work, 'dir'));
    const r = await d.journal.undo(s);
    expect(r).toMatchObject({ ok: false, reason: 'conflict', files: ['dir/a.txt'] });
    expect(r.ok ? '' : r.message).toContain('symbolic link');
    expect(read(path.join(outDir, 'a.txt'))).toBe('after\n');
  });

  it('a file replaced by a directory: refused, naming it', async () => {
    const d = direct();
    const s = d.session();
    await d.round(s, () => writeFileSync(path.join(d.work, 'a.txt'), 'new\n'));
    unlinkSync(path.join(d.work, 'a.txt'));
    mkdirSync(path.join(d.work, 'a.txt'));
    const r = await d.journal.undo(s);
    expect(r).toMatchObject({ ok: false, reason: 'conflict', files: ['a.txt'] });
    expect(r.ok ? '' : r.message).toContain('a.txt (it is now a directory)');
    expect(statSync(path.join(d.work, 'a.txt')).isDirectory()).toBe(true);
  });

  it.each([['../escape.txt'], ['/etc/passwd'], ['.git/config'], ['a/../../b'], ['C:\\x']])(
    'a stored row naming %j is refused and nothing is written',
    async (bad) => {
      const d = direct();
      const s = d.session();
      await d.round(s, () => {
        writeFileSync(path.join(d.work, 'x.txt'), 'x\n');
        writeFileSync(path.join(d.work, 'y.txt'), 'y\n');
      });
      d.store.db.prepare("UPDATE journal_files SET path = ? WHERE path = 'y.txt'").run(bad);
      const r = await d.journal.undo(s);
      expect(r).toMatchObject({ ok: false, reason: 'unsafe' });
      expect(read(path.join(d.work, 'x.txt'))).toBe('x\n');
      expect(existsSync(path.join(d.home, 'escape.txt'))).toBe(false);
      expect(d.journal.rounds(s)[0]?.state).toBe('applied');
    },
  );

  it('user edits after the round: refused naming the file, and the round’s other files stay', async () => {
    const d = direct();
    writeFileSync(path.join(d.work, 'a.txt'), 'a0\n');
    writeFileSync(path.join(d.work, 'b.txt'), 'b0\n');
    const s = d.session();
    await d.round(s, () => {
      writeFileSync(path.join(d.work, 'a.txt'), 'a1\n');
      writeFileSync(path.join(d.work, 'b.txt'), 'b1\n');
    });
    writeFileSync(path.join(d.work, 'b.txt'), 'mine\n');
    const r = await d.journal.undo(s);
    expect(r).toMatchObject({ ok: false, reason: 'conflict', files: ['b.txt'] });
    expect(r.ok ? '' : r.message).toMatch(/changed since: b\.txt\. Nothing was changed/);
    expect(read(path.join(d.work, 'a.txt'))).toBe('a1\n');
    expect(read(path.join(d.work, 'b.txt'))).toBe('mine\n');
    // Put back as the round left it, the undo goes through.
    writeFileSync(path.join(d.work, 'b.txt'), 'b1\n');
    expect((await d.journal.undo(s)).ok).toBe(true);
    expect(read(path.join(d.work, 'b.txt'))).toBe('b0\n');
  });

  it('binary and empty files come back byte for byte', async () => {
    const d = direct();
    const bytes = Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 7) % 256));
    writeFileSync(path.join(d.work, 'blob.bin'), bytes);
    writeFileSync(path.join(d.work, 'crlf.txt'), 'one\r\ntwo\r\n');
    const s = d.session();
    await d.round(s, () => {
      writeFileSync(path.join(d.work, 'blob.bin'), Buffer.concat([bytes, Buffer.from([0, 255])]));
      writeFileSync(path.join(d.work, 'empty.txt'), '');
      writeFileSync(path.join(d.work, 'crlf.txt'), '');
    });
    expect((await d.journal.undo(s)).ok).toBe(true);
    expect(readFileSync(path.join(d.work, 'blob.bin')).equals(bytes)).toBe(true);
    expect(read(path.join(d.work, 'crlf.txt'))).toBe('one\r\ntwo\r\n');
    expect(existsSync(path.join(d.work, 'empty.txt'))).toBe(false);
    expect((await d.journal.redo(s)).ok).toBe(true);
    expect(readFileSync(path.join(d.work, 'blob.bin')).length).toBe(514);
    expect(read(path.join(d.work, 'empty.txt'))).toBe('');
    expect(read(path.join(d.work, 'crlf.txt'))).toBe('');
  });

  it('executable bits are journaled and restored', async () => {
    const d = direct();
    writeFileSync(path.join(d.work, 'run.sh'), '#!/bin/sh\n', { mode: 0o644 });
    const s = d.session();
    const events = await d.round(s, () => {
      chmodSync(path.join(d.work, 'run.sh'), 0o755);
      writeFileSync(path.join(d.work, 'new.sh'), 'echo\n', { mode: 0o755 });
    });
    expect(journalFiles(events)).toEqual([
      { path: 'new.sh', change: 'added' },
      { path: 'run.sh', change: 'modified' },
    ]);
    expect((await d.journal.undo(s)).ok).toBe(true);
    expect(statSync(path.join(d.work, 'run.sh')).mode & 0o111).toBe(0);
    expect((await d.journal.redo(s)).ok).toBe(true);
    expect(statSync(path.join(d.work, 'run.sh')).mode & 0o100).toBe(0o100);
    expect(statSync(path.join(d.work, 'new.sh')).mode & 0o100).toBe(0o100);
  });

  it('unicode, spaces and a newline in file names', async () => {
    const d = direct();
    const dir = path.join(d.work, 'dir with space');
    const names = ['naïve 文件.txt', 'new\nline.txt', ' lead.txt'];
    const s = d.session();
    const events = await d.round(s, () => {
      mkdirSync(dir);
      for (const n of names) writeFileSync(path.join(dir, n), n);
    });
    expect(
      journalFiles(events)
        ?.map((f) => f.path)
        .sort(),
    ).toEqual(names.map((n) => `dir with space/${n}`).sort());
    expect((await d.journal.undo(s)).ok).toBe(true);
    for (const n of names) expect(existsSync(path.join(dir, n))).toBe(false);
    expect((await d.journal.redo(s)).ok).toBe(true);
    for (const n of names) expect(read(path.join(dir, n))).toBe(n);
  });

  it('nested git repositories are left out (with and without commits); their .git is untouched', async () => {
    const d = direct();
    for (const sub of ['empty-repo', 'repo']) {
      mkdirSync(path.join(d.work, sub));
      execFileSync('git', ['init', '-q'], { cwd: path.join(d.work, sub) });
    }
    writeFileSync(path.join(d.work, 'repo', 'r.txt'), 'r\n');
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '.'], {
      cwd: path.join(d.work, 'repo'),
    });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'c'], {
      cwd: path.join(d.work, 'repo'),
    });
    const s = d.session();
    const events = await d.round(s, () => {
      writeFileSync(path.join(d.work, 'repo', 'r.txt'), 'changed\n');
      writeFileSync(path.join(d.work, 'empty-repo', 'e.txt'), 'e\n');
      writeFileSync(path.join(d.work, 'top.txt'), 't\n');
    });
    expect(journalFiles(events)).toEqual([{ path: 'top.txt', change: 'added' }]);
    expect((await d.journal.undo(s)).ok).toBe(true);
    expect(read(path.join(d.work, 'repo', 'r.txt'))).toBe('changed\n');
  });

  it('ignored files are not journaled (and undo leaves them)', async () => {
    const d = direct();
    writeFileSync(path.join(d.work, '.gitignore'), '*.log\nbuild/\n');
    const s = d.session();
    const events = await d.round(s, () => {
      writeFileSync(path.join(d.work, 'x.log'), 'log\n');
      mkdirSync(path.join(d.work, 'build'));
      writeFileSync(path.join(d.work, 'build', 'out.js'), 'js\n');
      writeFileSync(path.join(d.work, 'y.txt'), 'y\n');
    });
    expect(journalFiles(events)).toEqual([{ path: 'y.txt', change: 'added' }]);
    expect((await d.journal.undo(s)).ok).toBe(true);
    expect(existsSync(path.join(d.work, 'y.txt'))).toBe(false);
    expect(read(path.join(d.work, 'x.log'))).toBe('log\n');
    expect(read(path.join(d.work, 'build', 'out.js'))).toBe('js\n');
  });

  it('two sessions in one workspace: undo of the first refuses to revert the second’s later change', async () => {
    const d = direct();
    writeFileSync(path.join(d.work, 'f.txt'), '0\n');
    const a = d.session();
    const b = d.session();
    await d.round(a, () => writeFileSync(path.join(d.work, 'f.txt'), 'a\n'));
    const eb = await d.round(b, () => writeFileSync(path.join(d.work, 'f.txt'), 'b\n'));
    expect(journalFiles(eb)).toEqual([{ path: 'f.txt', change: 'modified' }]);
    expect(await d.journal.undo(a)).toMatchObject({ ok: false, reason: 'conflict', files: ['f.txt'] });
    expect(read(path.join(d.work, 'f.txt'))).toBe('b\n');
    expect((await d.journal.undo(b)).ok).toBe(true);
    expect(read(path.join(d.work, 'f.txt'))).toBe('a\n');
    // Now the first session's round matches again and can be undone.
    expect((await d.journal.undo(a)).ok).toBe(true);
    expect(read(path.join(d.work, 'f.txt'))).toBe('0\n');
  });

  it('a deleted file is recreated; a created directory tree is removed file by file', async () => {
    const d = direct();
    mkdirSync(path.join(d.work, 'old'));
    writeFileSync(path.join(d.work, 'old', 'keep.txt'), 'k\n');
    const s = d.session();
    await d.round(s, () => {
      rmSync(path.join(d.work, 'old'), { recursive: true });
      mkdirSync(path.join(d.work, 'n', 'm'), { recursive: true });
      writeFileSync(path.join(d.work, 'n', 'm', 'z.txt'), 'z\n');
    });
    expect((await d.journal.undo(s)).ok).toBe(true);
    expect(read(path.join(d.work, 'old', 'keep.txt'))).toBe('k\n');
    expect(existsSync(path.join(d.work, 'n', 'm', 'z.txt'))).toBe(false);
  });
});
