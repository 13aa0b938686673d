/**
 * Edits keep every byte they do not change: files that are not valid UTF-8, byte order
 * marks, UTF-16, CRLF, mixed and CR-only line endings (issue 13). Each case runs the
 * tool through the real runner, as the agent calls it, and compares bytes on disk.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFile } from './files-helpers.js';
import { runBuiltin, tempDir, writeTree } from './helpers.js';

const bytes = (...parts: Array<string | number[]>): Buffer =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));
const utf16le = (text: string): Buffer =>
  Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
const utf16be = (text: string): Buffer =>
  Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);

async function file(content: Buffer | string): Promise<{ cwd: string; read: () => Promise<Buffer> }> {
  const cwd = await writeTree(await tempDir(), { f: content });
  return { cwd, read: () => readFile(join(cwd, 'f')) };
}

const edit = (cwd: string, old_string: string, new_string: string, extra: Record<string, unknown> = {}) =>
  runFile(cwd, 'edit_file', { path: 'f', old_string, new_string, ...extra });

const patch = (cwd: string, ...lines: string[]) =>
  runFile(cwd, 'apply_patch', {
    patch: ['*** Begin Patch', '*** Update File: f', ...lines, '*** End Patch'].join('\n'),
  });

describe('edit_file on bytes that are not UTF-8', () => {
  it('keeps an invalid byte before, after and around the edit', async () => {
    const before = await file(bytes('caf', [0xe9], '\nX\n'));
    expect((await edit(before.cwd, 'X', 'Y')).status).toBe('ok');
    expect(await before.read()).toEqual(bytes('caf', [0xe9], '\nY\n'));

    const after = await file(bytes('X\nna', [0xef, 0xbf], 've ', [0xff, 0xfe], '\n'));
    expect((await edit(after.cwd, 'X', 'Y')).status).toBe('ok');
    expect(await after.read()).toEqual(bytes('Y\nna', [0xef, 0xbf], 've ', [0xff, 0xfe], '\n'));

    const same = await file(bytes('a', [0x80], 'b X c', [0xc3], '\n'));
    expect((await edit(same.cwd, 'X', 'Y')).status).toBe('ok');
    expect(await same.read()).toEqual(bytes('a', [0x80], 'b Y c', [0xc3], '\n'));
  });

  it('matches U+FFFD (as read_file shows the bytes) and writes the same bytes back', async () => {
    const f = await file(bytes('un caf', [0xe9], ' au lait\nfin\n'));
    const shown = await runFile(f.cwd, 'read_file', { path: 'f' });
    expect(shown.output).toBe('     1\tun caf\uFFFD au lait\n     2\tfin');
    const r = await edit(f.cwd, 'caf\uFFFD au lait', 'caf\uFFFD noir');
    expect(r.output).toContain('-un caf\uFFFD au lait\n+un caf\uFFFD noir');
    expect(await f.read()).toEqual(bytes('un caf', [0xe9], ' noir\nfin\n'));
    // Left out of new_string: those bytes go, as asked.
    expect((await edit(f.cwd, 'caf\uFFFD noir', 'cafe noir')).status).toBe('ok');
    expect(await f.read()).toEqual(bytes('un cafe noir\nfin\n'));
  });

  it('refuses an edit that would drop or invent undecodable bytes, writing nothing', async () => {
    const f = await file(bytes('a', [0xe9], 'b', [0xe8], 'c\n'));
    const r = await edit(f.cwd, 'a\uFFFDb\uFFFDc', 'x\uFFFDy');
    expect(r.output).toMatch(/^\[ERROR\] new_string has 1 run of U\+FFFD \(�\) but old_string has 2;/);
    expect(r.output).toContain('\nHint: keep the � characters in new_string where they are in old_string');
    expect(await f.read()).toEqual(bytes('a', [0xe9], 'b', [0xe8], 'c\n'));
  });

  it('refuses non-ASCII text in an 8-bit (Latin-1) file, naming the encoding; ASCII goes in', async () => {
    const f = await file(bytes('na', [0xef], 've\nvalue = 1\n'));
    const r = await edit(f.cwd, 'value = 1', 'value = "déjà"');
    expect(r.output).toMatch(
      /^\[ERROR\] f is not UTF-8 \(byte 0xEF on line 1 is not valid UTF-8; it looks like an 8-bit encoding such as Latin-1 or Windows-1252\), so the new text's non-ASCII character "é" cannot be written in the file's own encoding; nothing was written\nHint: use only ASCII in the new text/,
    );
    expect(await f.read()).toEqual(bytes('na', [0xef], 've\nvalue = 1\n'));
    expect((await edit(f.cwd, 'value = 1', 'value = 2')).status).toBe('ok');
    expect(await f.read()).toEqual(bytes('na', [0xef], 've\nvalue = 2\n'));
  });

  it('writes non-ASCII text as UTF-8 into a UTF-8 file that has a stray bad byte', async () => {
    const f = await file(bytes('héllo ', [0xff], '\nX\n'));
    expect((await edit(f.cwd, 'X', 'ü')).status).toBe('ok');
    expect(await f.read()).toEqual(bytes('héllo ', [0xff], '\nü\n'));
  });

  it('refuses binary files with NUL bytes', async () => {
    const f = await file(bytes('X', [0, 1, 2], '\n'));
    const r = await edit(f.cwd, 'X', 'Y');
    expect(r.output).toMatch(/^\[ERROR\] f looks like a binary file \(it has NUL bytes in the first 8 KB\)/);
    expect(await f.read()).toEqual(bytes('X', [0, 1, 2], '\n'));
  });
});

describe('byte order marks and UTF-16', () => {
  it('keeps a UTF-8 byte order mark and CRLF endings', async () => {
    const f = await file(bytes([0xef, 0xbb, 0xbf], 'first\r\nsecond\r\n'));
    expect((await runFile(f.cwd, 'read_file', { path: 'f' })).output).toBe('     1\tfirst\n     2\tsecond');
    expect((await edit(f.cwd, 'first\nsecond', 'one\ntwo\nthree')).status).toBe('ok');
    expect(await f.read()).toEqual(bytes([0xef, 0xbb, 0xbf], 'one\r\ntwo\r\nthree\r\n'));
  });

  it('reads and edits UTF-16 LE and BE files, writing them back in their own encoding', async () => {
    for (const encode of [utf16le, utf16be]) {
      const f = await file(encode('naïve = 1\r\nnext = 2\r\n'));
      expect((await runFile(f.cwd, 'read_file', { path: 'f' })).output).toBe(
        '     1\tnaïve = 1\n     2\tnext = 2',
      );
      const r = await edit(f.cwd, 'naïve = 1', 'naïve = "日本"');
      expect(r.output.split('\n')[0]).toBe('Edited f: replaced 1 occurrence (line 1)');
      expect(await f.read()).toEqual(encode('naïve = "日本"\r\nnext = 2\r\n'));
      const p = await patch(f.cwd, '@@', ' naïve = "日本"', '-next = 2', '+next = 3');
      expect(p.status).toBe('ok');
      expect(await f.read()).toEqual(encode('naïve = "日本"\r\nnext = 3\r\n'));
    }
  });
});

describe('line endings', () => {
  it('gives new lines the CRLF ending of the line they land in', async () => {
    const f = await file('a = 1\r\nb = 2\r\n');
    expect((await edit(f.cwd, 'a = 1', 'a = 1\n// note')).status).toBe('ok');
    expect((await f.read()).toString()).toBe('a = 1\r\n// note\r\nb = 2\r\n');
  });

  it('leaves the other lines of a mixed LF/CRLF file alone, fuzzy match and patch alike', async () => {
    const mixed = 'one\r\n  two\nthree\r\nfour\n';
    const f = await file(mixed);
    const r = await edit(f.cwd, 'two\n   three', 'TWO\nTHREE');
    expect(r.output).toContain('did not match exactly; it was matched ignoring whitespace at line 2');
    expect((await f.read()).toString()).toBe('one\r\nTWO\nTHREE\r\nfour\n');
    expect((await patch(f.cwd, '@@', ' THREE', '-four', '+4', '+5')).status).toBe('ok');
    expect((await f.read()).toString()).toBe('one\r\nTWO\nTHREE\r\n4\n5\n');
  });

  it('keeps lone CRs, and edits a CR-only file with LF text', async () => {
    const lone = await file('a\rb\nc\n');
    expect((await edit(lone.cwd, 'c', 'd')).status).toBe('ok');
    expect((await lone.read()).toString()).toBe('a\rb\nd\n');
    const mac = await file('one\rtwo\rthree\r');
    expect((await edit(mac.cwd, 'two\nthree', '2\n3')).status).toBe('ok');
    expect((await mac.read()).toString()).toBe('one\r2\r3\r');
  });
});

describe('apply_patch and replace_in_files on bytes that are not UTF-8', () => {
  it('apply_patch matches context copied from read_file and keeps the bytes', async () => {
    const f = await file(bytes('caf', [0xe9], '\nold\n', [0xff], ' end\n'));
    const r = await patch(f.cwd, '@@', ' caf\uFFFD', '-old', '+new', ' \uFFFD end');
    expect(r.output).toBe('Applied patch: 1 file changed (+1 -1)\nM f (+1 -1)');
    expect(await f.read()).toEqual(bytes('caf', [0xe9], '\nnew\n', [0xff], ' end\n'));
  });

  it('apply_patch refuses a "+" line holding U+FFFD in such a file, changing nothing', async () => {
    const f = await file(bytes('caf', [0xe9], '\n'));
    const r = await patch(f.cwd, '@@', '-caf\uFFFD', '+caf\uFFFD!');
    expect(r.output).toMatch(
      /^\[ERROR\] apply_patch changed nothing: f, hunk 1 of 1 \(patch line 3\) adds a line with U\+FFFD \(�\), which read_file shows for bytes of this file that are not valid UTF-8/,
    );
    expect(await f.read()).toEqual(bytes('caf', [0xe9], '\n'));
  });

  it('replace_in_files keeps undecodable bytes and writes UTF-16 files in UTF-16', async () => {
    const cwd = await writeTree(await tempDir(), {
      'latin.txt': bytes('caf', [0xe9], ' oldName\n'),
      'wide.txt': utf16le('oldName\r\n'),
    });
    const r = await runBuiltin(cwd, 'replace_in_files', {
      pattern: 'oldName',
      replacement: 'newName',
      dry_run: false,
    });
    expect(r.output.split('\n')[0]).toBe('Replaced: 2 replacements in 2 files');
    expect(r.output).toContain('latin.txt:1: caf\uFFFD oldName → caf\uFFFD newName');
    expect(await readFile(join(cwd, 'latin.txt'))).toEqual(bytes('caf', [0xe9], ' newName\n'));
    expect(await readFile(join(cwd, 'wide.txt'))).toEqual(utf16le('newName\r\n'));
    const refused = await runBuiltin(cwd, 'replace_in_files', {
      pattern: 'newName',
      replacement: 'nouveauNom€',
      dry_run: false,
    });
    expect(refused.output).toMatch(/^\[ERROR\] latin\.txt is not UTF-8 .*nothing was written/);
    expect(await readFile(join(cwd, 'wide.txt'))).toEqual(utf16le('newName\r\n'));
  });
});
