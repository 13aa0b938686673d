import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBuiltin, tempDir, writeTree } from './helpers.js';

const source = ['function a() {', '  return 1;', '}', '', 'function b() {', '  return 1;', '}', ''].join(
  '\n',
);

async function workspace(): Promise<string> {
  return writeTree(await tempDir(), { 'src/code.js': source, 'crlf.txt': 'one\r\ntwo\r\nthree\r\n' });
}

const read = (cwd: string, p: string): Promise<string> => readFile(join(cwd, p), 'utf8');

describe('edit_file', () => {
  it('replaces a unique string and reports the changed lines', async () => {
    const cwd = await workspace();
    const r = await runBuiltin(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: 'function b() {\n  return 1;',
      new_string: 'function b() {\n  // two\n  return 2;',
    });
    expect(r).toEqual({
      output: 'Edited src/code.js: replaced 1 occurrence (lines 5-7)',
      isError: false,
      status: 'ok',
    });
    expect(await read(cwd, 'src/code.js')).toBe(
      source.replace('function b() {\n  return 1;', 'function b() {\n  // two\n  return 2;'),
    );
  });

  it('replaces every occurrence with replace_all, text with $ patterns kept literally', async () => {
    const cwd = await workspace();
    const r = await runBuiltin(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: 'return 1;',
      new_string: 'return $&;',
      replace_all: true,
    });
    expect(r.output).toBe('Edited src/code.js: replaced 2 occurrences (lines 2, 6)');
    expect(await read(cwd, 'src/code.js')).toBe(source.replaceAll('return 1;', () => 'return $&;'));
  });

  it('refuses an ambiguous match, naming the count and lines', async () => {
    const cwd = await workspace();
    const r = await runBuiltin(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: '  return 1;',
      new_string: '  return 3;',
    });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      '[ERROR] old_string matches 2 times in src/code.js (at lines 2, 6); it must be unique\n' +
        'Hint: include more surrounding lines in old_string so it matches exactly once, or set replace_all: true to change every occurrence',
    );
    expect(await read(cwd, 'src/code.js')).toBe(source);
  });

  it('says when the text is missing, suggesting read_file', async () => {
    const cwd = await workspace();
    const r = await runBuiltin(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: 'return 42;',
      new_string: 'x',
    });
    expect(r.output).toBe(
      '[ERROR] old_string was not found in src/code.js\n' +
        'Hint: use read_file to see the current text, then copy the exact lines (including indentation) into old_string',
    );
    expect(await read(cwd, 'src/code.js')).toBe(source);
  });

  it('spots a match that differs only in whitespace and gives its line', async () => {
    const cwd = await workspace();
    const r = await runBuiltin(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: 'function b() {\n\treturn 1;',
      new_string: 'x',
    });
    expect(r.output).toMatch(
      /^\[ERROR\] old_string was not found in src\/code\.js exactly, but a match that differs only in whitespace exists at line 5\nHint: read_file around line 5/,
    );
    expect(await read(cwd, 'src/code.js')).toBe(source);
  });

  it('matches LF old_string against a CRLF file and keeps CRLF', async () => {
    const cwd = await workspace();
    const r = await runBuiltin(cwd, 'edit_file', {
      path: 'crlf.txt',
      old_string: 'one\ntwo',
      new_string: 'uno\ndos',
    });
    expect(r.output).toBe('Edited crlf.txt: replaced 1 occurrence (lines 1-2)');
    expect(await read(cwd, 'crlf.txt')).toBe('uno\r\ndos\r\nthree\r\n');
  });

  it('rejects identical strings, an empty old_string, a missing file and binaries', async () => {
    const cwd = await workspace();
    await writeTree(cwd, { 'bin.dat': new Uint8Array([1, 0, 2]) });
    const same = await runBuiltin(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: 'a',
      new_string: 'a',
    });
    expect(same.output).toMatch(/^\[ERROR\] old_string and new_string are identical; nothing would change/);
    const empty = await runBuiltin(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: '',
      new_string: 'a',
    });
    expect(empty.output).toBe(
      '[ERROR] old_string is empty\nHint: to create a file or replace all of it use write_file',
    );
    const missing = await runBuiltin(cwd, 'edit_file', {
      path: 'src/nope.js',
      old_string: 'a',
      new_string: 'b',
    });
    expect(missing.output).toBe(
      '[ERROR] File not found: src/nope.js\nHint: check the path with list_dir or glob; to create a new file use write_file',
    );
    const binary = await runBuiltin(cwd, 'edit_file', { path: 'bin.dat', old_string: 'a', new_string: 'b' });
    expect(binary.output).toMatch(/looks like a binary file/);
    expect(await read(cwd, 'src/code.js')).toBe(source);
  });

  it('reports the line of a deletion', async () => {
    const cwd = await workspace();
    const r = await runBuiltin(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: '\nfunction b() {\n  return 1;\n}\n',
      new_string: '',
    });
    expect(r.output).toBe('Edited src/code.js: replaced 1 occurrence (line 4)');
    expect(await read(cwd, 'src/code.js')).toBe('function a() {\n  return 1;\n}\n');
  });
});
