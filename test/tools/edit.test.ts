import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runFile, snapshot } from './files-helpers.js';
import { tempDir, writeTree } from './helpers.js';

const source = ['function a() {', '  return 1;', '}', '', 'function b() {', '  return 1;', '}', ''].join(
  '\n',
);

async function workspace(): Promise<string> {
  return writeTree(await tempDir(), { 'src/code.js': source, 'crlf.txt': 'one\r\ntwo\r\nthree\r\n' });
}

const read = (cwd: string, p: string): Promise<string> => readFile(join(cwd, p), 'utf8');

describe('edit_file', () => {
  it('replaces a unique string and answers with the changed lines and a unified diff', async () => {
    const cwd = await workspace();
    const r = await runFile(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: 'function b() {\n  return 1;',
      new_string: 'function b() {\n  // two\n  return 2;',
    });
    expect(r).toEqual({
      output: [
        'Edited src/code.js: replaced 1 occurrence (lines 5-7)',
        '--- src/code.js',
        '+++ src/code.js',
        '@@ -3,5 +3,6 @@',
        ' }',
        ' ',
        ' function b() {',
        '-  return 1;',
        '+  // two',
        '+  return 2;',
        ' }',
      ].join('\n'),
      isError: false,
      status: 'ok',
    });
    expect(await read(cwd, 'src/code.js')).toBe(
      source.replace('function b() {\n  return 1;', 'function b() {\n  // two\n  return 2;'),
    );
    expect(Object.keys(await snapshot(cwd)).sort()).toEqual(['crlf.txt', 'src/code.js']);
  });

  it('replaces every occurrence with replace_all, $ patterns kept literally', async () => {
    const cwd = await workspace();
    const r = await runFile(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: 'return 1;',
      new_string: 'return $&;',
      replace_all: true,
    });
    expect(r.output.split('\n')[0]).toBe('Edited src/code.js: replaced 2 occurrences (lines 2, 6)');
    expect(await read(cwd, 'src/code.js')).toBe(source.replaceAll('return 1;', () => 'return $&;'));
  });

  it('refuses an ambiguous match, naming the count and lines', async () => {
    const cwd = await workspace();
    const r = await runFile(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: '  return 1;',
      new_string: '  return 3;',
    });
    expect(r.output).toBe(
      '[ERROR] old_string matches 2 times in src/code.js (at lines 2, 6); it must be unique\n' +
        'Hint: include more surrounding lines in old_string so it matches exactly once, or set replace_all: true to change every occurrence',
    );
    expect(await read(cwd, 'src/code.js')).toBe(source);
  });

  it('says when the text is missing, pointing at the closest line when there is one', async () => {
    const cwd = await workspace();
    const far = await runFile(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: 'zzzz qqqq',
      new_string: 'x',
    });
    expect(far.output).toBe(
      '[ERROR] old_string was not found in src/code.js\n' +
        'Hint: use read_file to see the current text, then copy the exact lines (including indentation) into old_string',
    );
    const near = await runFile(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: 'function bb() {',
      new_string: 'x',
    });
    expect(near.output).toMatch(
      /^\[ERROR\] old_string was not found in src\/code\.js\nHint: the closest line is 5: "function b\(\) \{"; use read_file/,
    );
    expect(await read(cwd, 'src/code.js')).toBe(source);
  });

  it('applies a unique whitespace-tolerant match, re-indents new_string and says so', async () => {
    const cwd = await workspace();
    const r = await runFile(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: 'function b()   {\n\treturn 1;\n}',
      new_string: 'function b() {\n\treturn 2;\n}',
    });
    expect(r.status).toBe('ok');
    const lines = r.output.split('\n');
    expect(lines[0]).toBe('Edited src/code.js: replaced 1 occurrence (lines 5-7)');
    expect(lines[1]).toBe(
      'Note: old_string did not match exactly; it was matched ignoring whitespace at line 5. Check the diff.',
    );
    expect(r.output).toContain('-  return 1;\n+\treturn 2;');
    expect(await read(cwd, 'src/code.js')).toBe(
      source.replace('function b() {\n  return 1;', 'function b() {\n\treturn 2;'),
    );
  });

  it('swaps a consistent indentation prefix when the model dropped a level', async () => {
    const py = 'class A:\n    def f(self):\n        if x:\n            return 1\n        return 0\n';
    const cwd = await writeTree(await tempDir(), { 'a.py': py });
    const r = await runFile(cwd, 'edit_file', {
      path: 'a.py',
      old_string: 'if x:\n    return 1',
      new_string: 'if x:\n    log(x)\n    return 1',
    });
    expect(r.output).toContain('new_string was re-indented to match the file');
    expect(await read(cwd, 'a.py')).toBe(
      'class A:\n    def f(self):\n        if x:\n            log(x)\n            return 1\n        return 0\n',
    );
  });

  it('refuses a whitespace-tolerant match that is not unique', async () => {
    const cwd = await workspace();
    const r = await runFile(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: '\treturn  1;\n}',
      new_string: 'x',
    });
    expect(r.output).toBe(
      '[ERROR] old_string was not found in src/code.js exactly, and ignoring whitespace it matches 2 places (lines 2, 6)\n' +
        'Hint: use read_file to copy the exact text, with enough surrounding lines to be unique',
    );
    expect(await read(cwd, 'src/code.js')).toBe(source);
  });

  it('matches LF old_string against a CRLF file and keeps CRLF', async () => {
    const cwd = await workspace();
    const r = await runFile(cwd, 'edit_file', {
      path: 'crlf.txt',
      old_string: 'one\ntwo',
      new_string: 'uno\ndos',
    });
    expect(r.output).toBe(
      [
        'Edited crlf.txt: replaced 1 occurrence (lines 1-2)',
        '--- crlf.txt',
        '+++ crlf.txt',
        '@@ -1,3 +1,3 @@',
        '-one',
        '-two',
        '+uno',
        '+dos',
        ' three',
      ].join('\n'),
    );
    expect(await read(cwd, 'crlf.txt')).toBe('uno\r\ndos\r\nthree\r\n');
    const fuzzy = await runFile(cwd, 'edit_file', {
      path: 'crlf.txt',
      old_string: ' dos\n three ',
      new_string: 'tres',
    });
    expect(fuzzy.output).toContain('matched ignoring whitespace at line 2');
    expect(await read(cwd, 'crlf.txt')).toBe('uno\r\ntres\r\n');
  });

  it('applies several edits in order in one call', async () => {
    const cwd = await workspace();
    const r = await runFile(cwd, 'edit_file', {
      path: 'src/code.js',
      edits: [
        { old_string: 'function a() {', new_string: 'function first() {' },
        { old_string: 'return 1;', new_string: 'return 9;', replace_all: true },
        { old_string: 'function first() {\n  return 9;', new_string: 'function first() {\n  return 0;' },
      ],
    });
    expect(r.output.split('\n')[0]).toBe('Edited src/code.js: applied 3 edits (4 replacements)');
    expect(r.output).toContain('+function first() {');
    expect(await read(cwd, 'src/code.js')).toBe(
      'function first() {\n  return 0;\n}\n\nfunction b() {\n  return 9;\n}\n',
    );
  });

  it('writes nothing when one of several edits fails, and names it', async () => {
    const cwd = await workspace();
    const before = await snapshot(cwd);
    const r = await runFile(cwd, 'edit_file', {
      path: 'src/code.js',
      edits: [
        { old_string: 'function a() {', new_string: 'function first() {' },
        { old_string: 'function missing() {', new_string: 'x' },
        { old_string: 'function b() {', new_string: 'function second() {' },
      ],
    });
    expect(r.status).toBe('error');
    expect(r.output).toMatch(
      /^\[ERROR\] edit 2 of 3 failed: old_string was not found in src\/code\.js; no edits were written\nHint: /,
    );
    expect(await snapshot(cwd)).toEqual(before);
    const ambiguous = await runFile(cwd, 'edit_file', {
      path: 'src/code.js',
      edits: [{ old_string: 'return 1;', new_string: 'return 2;' }],
    });
    expect(ambiguous.output).toMatch(/^\[ERROR\] edit 1 of 1 failed: old_string matches 2 times/);
    expect(await snapshot(cwd)).toEqual(before);
  });

  it('rejects bad argument combinations, identical strings, missing files and binaries', async () => {
    const cwd = await workspace();
    await writeTree(cwd, { 'bin.dat': new Uint8Array([1, 0, 2]) });
    const before = await snapshot(cwd);
    const both = await runFile(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: 'a',
      new_string: 'b',
      edits: [{ old_string: 'a', new_string: 'b' }],
    });
    expect(both.output).toMatch(/^\[ERROR\] Pass either edits or old_string\/new_string, not both/);
    const half = await runFile(cwd, 'edit_file', { path: 'src/code.js', old_string: 'a' });
    expect(half.output).toMatch(/^\[ERROR\] new_string is missing\nHint: pass old_string and new_string/);
    const none = await runFile(cwd, 'edit_file', { path: 'src/code.js', edits: [] });
    expect(none.output).toMatch(/^\[ERROR\] edits is empty/);
    const same = await runFile(cwd, 'edit_file', { path: 'src/code.js', old_string: 'a', new_string: 'a' });
    expect(same.output).toMatch(/^\[ERROR\] old_string and new_string are identical; nothing would change/);
    const empty = await runFile(cwd, 'edit_file', { path: 'src/code.js', old_string: '', new_string: 'a' });
    expect(empty.output).toBe(
      '[ERROR] old_string is empty\nHint: to create a file or replace all of it use write_file',
    );
    const undone = await runFile(cwd, 'edit_file', {
      path: 'src/code.js',
      edits: [
        { old_string: 'function a', new_string: 'function z' },
        { old_string: 'function z', new_string: 'function a' },
      ],
    });
    expect(undone.output).toMatch(/^\[ERROR\] The edits leave the file unchanged; nothing was written/);
    const missing = await runFile(cwd, 'edit_file', {
      path: 'src/nope.js',
      old_string: 'a',
      new_string: 'b',
    });
    expect(missing.output).toBe(
      '[ERROR] File not found: src/nope.js\nHint: check the path with list_dir or glob; to create a new file use write_file',
    );
    const binary = await runFile(cwd, 'edit_file', { path: 'bin.dat', old_string: 'a', new_string: 'b' });
    expect(binary.output).toMatch(/looks like a binary file/);
    expect(await snapshot(cwd)).toEqual(before);
  });

  it('reports the line of a deletion and caps long diffs', async () => {
    const cwd = await workspace();
    const r = await runFile(cwd, 'edit_file', {
      path: 'src/code.js',
      old_string: '\nfunction b() {\n  return 1;\n}\n',
      new_string: '',
    });
    expect(r.output.split('\n')[0]).toBe('Edited src/code.js: replaced 1 occurrence (line 4)');
    expect(await read(cwd, 'src/code.js')).toBe('function a() {\n  return 1;\n}\n');

    const big = Array.from({ length: 400 }, (_, i) => `line ${i}`).join('\n');
    await writeTree(cwd, { 'big.txt': big });
    const capped = await runFile(
      cwd,
      'edit_file',
      { path: 'big.txt', old_string: big, new_string: big.toUpperCase() },
      { tools: { diffMaxChars: 500 } },
    );
    expect(capped.output).toMatch(/… \[\d+ lines \/ \d+ chars omitted\] …/);
    expect(capped.output.length).toBeLessThan(700);
    expect(await read(cwd, 'big.txt')).toBe(big.toUpperCase());
  });
});
