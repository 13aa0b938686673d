import { lstat, mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TEMP_MARKER } from '../../src/tools/builtin/atomic-write.js';
import { writeChanges } from '../../src/tools/builtin/patch.js';
import type { FileChange } from '../../src/tools/builtin/patch-apply.js';
import { runFile, snapshot } from './files-helpers.js';
import { tempDir, writeTree } from './helpers.js';

const app = [
  'import { x } from "./x";',
  '',
  'function main() {',
  '  const x = 1;',
  '  return x;',
  '}',
  '',
  'function helper() {',
  "  return 'a';",
  '}',
  '',
].join('\n');

const patch = (...lines: string[]): string => ['*** Begin Patch', ...lines, '*** End Patch'].join('\n');

async function project(): Promise<string> {
  return writeTree(await tempDir(), {
    'src/app.ts': app,
    'lib/util.ts': 'export const n = 1;\nexport const m = 2;\n',
    'old.txt': 'bye\nnow\n',
  });
}

const noTemps = (files: Record<string, string>): void => {
  expect(Object.keys(files).filter((f) => f.includes(TEMP_MARKER))).toEqual([]);
};

describe('apply_patch', () => {
  it('adds, updates with two hunks, moves and deletes in one patch', async () => {
    const cwd = await project();
    const r = await runFile(cwd, 'apply_patch', {
      patch: patch(
        '*** Add File: docs/new.md',
        '+# New',
        '+text',
        '*** Update File: src/app.ts',
        '@@ function main() {',
        '-  const x = 1;',
        '+  const x = 2;',
        '   return x;',
        '@@',
        ' function helper() {',
        "-  return 'a';",
        "+  return 'b';",
        '+  // done',
        ' }',
        '*** Update File: lib/util.ts',
        '*** Move to: lib/helpers/util.ts',
        '@@',
        '-export const n = 1;',
        '+export const n = 10;',
        '*** Delete File: old.txt',
      ),
    });
    expect(r).toEqual({
      output: [
        'Applied patch: 4 files changed (+6 -5)',
        'A docs/new.md (+2)',
        'M src/app.ts (+3 -2)',
        'R lib/util.ts -> lib/helpers/util.ts (+1 -1)',
        'D old.txt (-2)',
      ].join('\n'),
      isError: false,
      status: 'ok',
    });
    const files = await snapshot(cwd);
    expect(files).toEqual({
      'docs/new.md': '# New\ntext\n',
      'src/app.ts': app
        .replace('const x = 1', 'const x = 2')
        .replace("return 'a';", "return 'b';\n  // done"),
      'lib/helpers/util.ts': 'export const n = 10;\nexport const m = 2;\n',
    });
    noTemps(files);
  });

  it('changes nothing when the second file does not apply, and shows the expected lines', async () => {
    const cwd = await project();
    const before = await snapshot(cwd);
    const r = await runFile(cwd, 'apply_patch', {
      patch: patch(
        '*** Add File: created.txt',
        '+should not appear',
        '*** Update File: src/app.ts',
        '@@',
        '-  const x = 1;',
        '+  const x = 3;',
        '@@ function helper() {',
        "-  return 'zzz';",
        "+  return 'b';",
        '*** Delete File: old.txt',
      ),
    });
    expect(r.status).toBe('error');
    expect(r.output).toBe(
      [
        '[ERROR] apply_patch changed nothing: src/app.ts, hunk 2 of 2 (patch line 8) does not match the file; expected these lines after line 8:',
        "  |  return 'zzz';",
        'Hint: read_file src/app.ts and resend the whole patch with the context and "-" lines copied exactly from the file',
      ].join('\n'),
    );
    const after = await snapshot(cwd);
    expect(after).toEqual(before);
    noTemps(after);
  });

  it("matches ignoring trailing, then surrounding whitespace, keeping the file's context lines", async () => {
    const cwd = await writeTree(await tempDir(), { 'a.txt': 'keep   \n\tindented\nlast\n' });
    const r = await runFile(cwd, 'apply_patch', {
      patch: patch('*** Update File: a.txt', ' keep', '-  indented', '+changed'),
    });
    expect(r.output).toBe('Applied patch: 1 file changed (+1 -1)\nM a.txt (+1 -1)');
    expect(await readFile(join(cwd, 'a.txt'), 'utf8')).toBe('keep   \nchanged\nlast\n');
  });

  it('keeps CRLF line endings and a missing final newline', async () => {
    const cwd = await writeTree(await tempDir(), { 'w.txt': 'one\r\ntwo\r\nthree\r\n', 'n.txt': 'a\nb' });
    const r = await runFile(cwd, 'apply_patch', {
      patch: patch(
        '*** Update File: w.txt',
        ' one',
        '-two',
        '+2',
        '+2b',
        '*** Update File: n.txt',
        '-b',
        '+B',
      ),
    });
    expect(r.status).toBe('ok');
    expect(await readFile(join(cwd, 'w.txt'), 'utf8')).toBe('one\r\n2\r\n2b\r\nthree\r\n');
    expect(await readFile(join(cwd, 'n.txt'), 'utf8')).toBe('a\nB');
  });

  it('anchors an End of File hunk at the end, and appends pure additions', async () => {
    const cwd = await writeTree(await tempDir(), { 'e.txt': 'x\ny\nx\ny\n', 'log.txt': 'first\n' });
    const r = await runFile(cwd, 'apply_patch', {
      patch: patch(
        '*** Update File: e.txt',
        '@@',
        ' x',
        '-y',
        '+Y',
        '*** End of File',
        '*** Update File: log.txt',
        '@@',
        '+second',
      ),
    });
    expect(r.status).toBe('ok');
    expect(await readFile(join(cwd, 'e.txt'), 'utf8')).toBe('x\ny\nx\nY\n');
    expect(await readFile(join(cwd, 'log.txt'), 'utf8')).toBe('first\nsecond\n');
  });

  it('applies hunks in file order: a later hunk cannot match before an earlier one', async () => {
    const cwd = await writeTree(await tempDir(), { 'o.txt': 'a\nb\na\nb\n' });
    const r = await runFile(cwd, 'apply_patch', {
      patch: patch('*** Update File: o.txt', '@@', '-a', '+A1', '@@', '-a', '+A2'),
    });
    expect(r.status).toBe('ok');
    expect(await readFile(join(cwd, 'o.txt'), 'utf8')).toBe('A1\nb\nA2\nb\n');
    const twice = await runFile(cwd, 'apply_patch', {
      patch: patch('*** Update File: o.txt', '@@', '-b', '+B', '@@', '-b', '+B', '@@', '-b', '+B'),
    });
    expect(twice.output).toMatch(
      /hunk 3 of 3 \(patch line 9\) does not match the file; expected these lines after line 4:/,
    );
    expect(await readFile(join(cwd, 'o.txt'), 'utf8')).toBe('A1\nb\nA2\nb\n');
  });

  it('reports syntax errors with their line numbers', async () => {
    const cwd = await project();
    const before = await snapshot(cwd);
    const cases: Array<[string, RegExp]> = [
      [
        '*** Update File: a\n-x\n+y\n*** End Patch',
        /^\[ERROR\] Invalid patch, line 1: the patch must start with "\*\*\* Begin Patch"/,
      ],
      [
        '*** Begin Patch\n*** Delete File: old.txt',
        /^\[ERROR\] Invalid patch, line 2: the patch must end with "\*\*\* End Patch"/,
      ],
      [
        patch('*** Add File: n.txt', '+ok', 'no plus'),
        /^\[ERROR\] Invalid patch, line 4: every line of an added file must start with "\+"/,
      ],
      [
        patch('*** Update File: src/app.ts', '@@', 'function main() {', '+x'),
        /^\[ERROR\] Invalid patch, line 4: hunk lines must start with " " \(context\), "-" \(remove\) or "\+" \(add\), found "function main\(\) \{"/,
      ],
      [
        patch('*** Update File: src/app.ts', '@@', ' function main() {'),
        /^\[ERROR\] Invalid patch, line 3: this hunk has no "-" or "\+" lines/,
      ],
      [
        patch('*** Update File: src/app.ts'),
        /^\[ERROR\] Invalid patch, line 2: "\*\*\* Update File: src\/app\.ts" has no hunks/,
      ],
      [
        patch('*** Update File: src/app.ts', '*** End of File'),
        /^\[ERROR\] Invalid patch, line 3: "\*\*\* End of File" must end a hunk/,
      ],
      [
        patch('*** Update File: src/app.ts', '@@', '-x', '*** Frobnicate'),
        /^\[ERROR\] Invalid patch, line 5: unknown marker "\*\*\* Frobnicate"/,
      ],
      [
        patch('*** Rename File: a'),
        /^\[ERROR\] Invalid patch, line 2: expected "\*\*\* Add File:", "\*\*\* Update File:" or "\*\*\* Delete File:"/,
      ],
      [patch('*** Add File:   '), /^\[ERROR\] Invalid patch, line 2: "\*\*\* Add File:" needs a path/],
      [patch('*** Delete File: old.txt', '+junk'), /^\[ERROR\] Invalid patch, line 3: unexpected line after/],
      [patch(), /^\[ERROR\] Invalid patch, line 1: the patch changes no files/],
    ];
    for (const [text, expected] of cases) {
      const r = await runFile(cwd, 'apply_patch', { patch: text });
      expect(r.output, text).toMatch(expected);
      expect(r.output, text).toMatch(/\nHint: send "\*\*\* Begin Patch"/);
    }
    expect(await snapshot(cwd)).toEqual(before);
  });

  it('refuses impossible file operations before writing anything', async () => {
    const cwd = await project();
    await mkdir(join(cwd, 'adir'));
    await writeTree(cwd, { 'bin.dat': new Uint8Array([0, 1, 2]) });
    const before = await snapshot(cwd);
    const cases: Array<[string, RegExp]> = [
      [
        patch('*** Add File: old.txt', '+x'),
        /^\[ERROR\] apply_patch changed nothing: old\.txt already exists\nHint: use "\*\*\* Update File:"/,
      ],
      [
        patch('*** Add File: old.txt/inner.txt', '+x'),
        /cannot create old\.txt\/inner\.txt: old\.txt is a file/,
      ],
      [patch('*** Delete File: missing.txt'), /^\[ERROR\] No such file or directory: missing\.txt/],
      [
        patch('*** Delete File: adir'),
        /^\[ERROR\] apply_patch changed nothing: adir is a directory\nHint: use delete_path/,
      ],
      [patch('*** Update File: missing.ts', '-a', '+b'), /^\[ERROR\] No such file or directory: missing\.ts/],
      [patch('*** Update File: bin.dat', '-a', '+b'), /looks like a binary file/],
      [
        patch('*** Update File: old.txt', '-bye', '+hi', '*** Delete File: old.txt'),
        /^\[ERROR\] Invalid patch, line 5: old\.txt is already changed at line 2/,
      ],
      [
        patch('*** Update File: old.txt', '*** Move to: src/app.ts', '-bye', '+hi'),
        /^\[ERROR\] apply_patch changed nothing: src\/app\.ts already exists/,
      ],
      [
        patch('*** Update File: src/app.ts', '@@ function nowhere() {', '-x', '+y'),
        /hunk 1 of 1 \(patch line 3\) has an @@ line "function nowhere\(\) \{" that is not in the file\nHint/,
      ],
      [
        patch('*** Add File: ../escape.txt', '+x'),
        /^\[ERROR\] Path "\.\.\/escape\.txt" is outside the workspace/,
      ],
      [
        patch('*** Add File: .git/hooks/pre-commit', '+x'),
        /^\[ERROR\] Refusing to write "\.git\/hooks\/pre-commit": it is inside a \.git directory/,
      ],
    ];
    for (const [text, expected] of cases) {
      const r = await runFile(cwd, 'apply_patch', { patch: text });
      expect(r.status, text).toBe('error');
      expect(r.output, text).toMatch(expected);
    }
    expect(await snapshot(cwd)).toEqual(before);
  });

  it('deletes a symlink itself, not its target', async () => {
    const cwd = await project();
    await symlink(join(cwd, 'old.txt'), join(cwd, 'link.txt'));
    const r = await runFile(cwd, 'apply_patch', { patch: patch('*** Delete File: link.txt') });
    expect(r.output).toBe('Applied patch: 1 file changed (+0 -0)\nD link.txt');
    await expect(lstat(join(cwd, 'link.txt'))).rejects.toThrow();
    expect(await readFile(join(cwd, 'old.txt'), 'utf8')).toBe('bye\nnow\n');
  });
});

describe('writeChanges', () => {
  it('undoes the changes already made when a later one fails, leaving no temp files', async () => {
    const cwd = await project();
    const before = await snapshot(cwd);
    const changes: FileChange[] = [
      {
        kind: 'A',
        abs: join(cwd, 'fresh/dir/new.txt'),
        shown: 'fresh/dir/new.txt',
        after: 'new\n',
        added: 1,
      },
      {
        kind: 'M',
        abs: join(cwd, 'old.txt'),
        shown: 'old.txt',
        before: 'bye\nnow\n',
        after: 'changed\n',
        added: 1,
        removed: 2,
      },
      {
        kind: 'R',
        abs: join(cwd, 'lib/util.ts'),
        dest: join(cwd, 'lib/moved.ts'),
        shown: 'lib/util.ts',
        destShown: 'lib/moved.ts',
        mode: 0o644,
        before: 'export const n = 1;\nexport const m = 2;\n',
        after: 'moved\n',
        added: 1,
        removed: 1,
      },
      // Vanished between planning and writing: the unlink fails.
      { kind: 'D', abs: join(cwd, 'gone.txt'), shown: 'gone.txt', before: Buffer.from('x'), removed: 1 },
    ];
    await expect(writeChanges(changes, new AbortController().signal)).rejects.toThrow(
      /^apply_patch failed while writing gone\.txt \(ENOENT\); the files already written were restored$/,
    );
    const after = await snapshot(cwd);
    expect(after).toEqual(before);
    await expect(lstat(join(cwd, 'fresh'))).rejects.toThrow();
  });
});
