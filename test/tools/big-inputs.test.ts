/**
 * Big inputs (issue 13): edits of files past the size limit are refused with a clear
 * error instead of blowing up memory, glob stops at a cap and says so, grep searches
 * large files instead of skipping them silently, and replace_in_files names the files
 * it skips. Peak memory figures live in bench/tools-memory.ts.
 */
import { readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GrepBackend } from '../../src/tools/builtin/grep-core.js';
import { jsGrepBackend } from '../../src/tools/builtin/grep-js.js';
import { findRipgrep, rgGrepBackend } from '../../src/tools/builtin/grep-rg.js';
import { runFile } from './files-helpers.js';
import { runBuiltin, tempDir, writeTree } from './helpers.js';

const line = (i: number): string => `line ${i} of filler text for a big file\n`;
/** About `bytes` bytes of numbered lines, then `tail`. */
function big(bytes: number, tail = ''): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 1; size < bytes; i++) {
    lines.push(line(i));
    size += line(i).length;
  }
  return lines.join('') + tail;
}

describe('edit size limit', () => {
  it('refuses to edit a file over the 10 MB default, naming sizes and what to use instead', async () => {
    const cwd = await writeTree(await tempDir(), { 'huge.txt': `${'x'.repeat(10 * 1024 * 1024)}\nTAIL\n` });
    const r = await runFile(cwd, 'edit_file', { path: 'huge.txt', old_string: 'TAIL', new_string: 'END' });
    expect(r.output).toBe(
      '[ERROR] huge.txt is 10.0 MB; edit_file only changes files up to 10.0 MB (it holds the whole file in memory); nothing was written\n' +
        'Hint: change it with bash instead (e.g. `sed -i` or a short script that streams the file), and read parts of it with read_file offset/limit',
    );
    expect((await readFile(join(cwd, 'huge.txt'), 'utf8')).endsWith('\nTAIL\n')).toBe(true);
  });

  it('applies the limit to apply_patch too, and edits files under it', async () => {
    const cwd = await writeTree(await tempDir(), { 'big.txt': big(3000, 'TAIL\n'), 'small.txt': 'TAIL\n' });
    const tools = { editMaxFileBytes: 2000 };
    const patch = await runFile(
      cwd,
      'apply_patch',
      { patch: '*** Begin Patch\n*** Update File: big.txt\n@@\n-TAIL\n+END\n*** End Patch' },
      { tools },
    );
    expect(patch.output).toMatch(
      /^\[ERROR\] big\.txt is 3\.0 KB; apply_patch only changes files up to 2\.0 KB/,
    );
    const small = await runFile(
      cwd,
      'edit_file',
      { path: 'small.txt', old_string: 'TAIL', new_string: 'END' },
      { tools },
    );
    expect(small.status).toBe('ok');
    expect((await readFile(join(cwd, 'big.txt'), 'utf8')).endsWith('TAIL\n')).toBe(true);
  });

  it('replace_in_files names the files it skipped for size, also when nothing changed', async () => {
    const cwd = await writeTree(await tempDir(), { 'big.txt': big(3000, 'oldName\n'), 'a.txt': 'nothing\n' });
    const r = await runBuiltin(
      cwd,
      'replace_in_files',
      { pattern: 'oldName', replacement: 'newName' },
      { tools: { replaceMaxFileBytes: 2000 } },
    );
    expect(r.output).toBe(
      'No changes: /oldName/ matches nothing to replace in .; searched 1 file\n' +
        '(skipped 1 file over the 2.0 KB limit, not searched: big.txt (3.0 KB); change it with bash, e.g. sed -i)',
    );
  });

  it('answers with a diff of the changed lines only, numbered as in the whole file', async () => {
    const cwd = await writeTree(await tempDir(), { 'big.txt': big(200_000) });
    const r = await runFile(cwd, 'edit_file', {
      path: 'big.txt',
      old_string: 'line 3000 of',
      new_string: 'LINE 3000 of',
    });
    expect(r.output.split('\n').slice(0, 5)).toEqual([
      'Edited big.txt: replaced 1 occurrence (line 3000)',
      '--- big.txt',
      '+++ big.txt',
      '@@ -2997,7 +2997,7 @@',
      ' line 2997 of filler text for a big file',
    ]);
  });
});

describe('glob on big trees', () => {
  async function tree(files: number): Promise<string> {
    const cwd = await tempDir();
    const all: Record<string, string> = {};
    for (let i = 0; i < files; i++) all[`d${i % 3}/f${String(i).padStart(2, '0')}.ts`] = '';
    await writeTree(cwd, all);
    // Distinct dates: f00 oldest, the last file newest.
    for (let i = 0; i < files; i++) {
      const t = 1_700_000_000 + i * 60;
      await utimes(join(cwd, `d${i % 3}/f${String(i).padStart(2, '0')}.ts`), t, t);
    }
    return cwd;
  }

  it('keeps only the newest matches, in order, and counts the rest', async () => {
    const cwd = await tree(40);
    const r = await runFile(cwd, 'glob', { pattern: '**/*.ts' }, { tools: { globMaxResults: 4 } });
    expect(r.output.split('\n')).toEqual([
      'd0/f39.ts',
      'd2/f38.ts',
      'd1/f37.ts',
      'd0/f36.ts',
      '… 36 more files not shown (the 4 most recently modified are listed); narrow the pattern or path',
    ]);
  });

  it('stops walking after globMaxScan entries and says the list may be incomplete', async () => {
    const cwd = await tree(40);
    const r = await runFile(
      cwd,
      'glob',
      { pattern: '**/*.ts' },
      { tools: { globMaxScan: 10, globMaxResults: 100 } },
    );
    const lines = r.output.split('\n');
    expect(r.status).toBe('ok');
    expect(lines.at(-1)).toBe(
      '… stopped after reading 10 directory entries: there may be more matches, and these are the newest of the ones found so far; narrow the pattern or path',
    );
    expect(lines.length).toBeLessThan(41);
  });
});

describe.each<[string, () => Promise<GrepBackend>]>([
  ['js', async () => jsGrepBackend],
  [
    'rg',
    async () => {
      const rg = await findRipgrep();
      if (rg === undefined) throw new Error('no working ripgrep binary');
      return rgGrepBackend(rg);
    },
  ],
])('grep over large files (%s backend)', (_name, makeBackend) => {
  let backend: GrepBackend;
  beforeAll(async () => {
    backend = await makeBackend();
  });

  it('finds text in a file over 1 MB instead of answering "no matches"', async () => {
    const cwd = await writeTree(await tempDir(), {
      'a.txt': 'small\n',
      'data/big.log': big(3 * 1024 * 1024, 'NEEDLE near the end\nlast line\n'),
      'b.txt': 'NEEDLE in a small file\n',
      'c.txt': 'small\n',
    });
    const r = await runBuiltin(
      cwd,
      'grep',
      { pattern: 'NEEDLE', context: 1 },
      { tools: { grepBackend: backend } },
    );
    const count = big(3 * 1024 * 1024).split('\n').length - 1;
    expect(r.output).toBe(
      [
        'b.txt:1: NEEDLE in a small file',
        '--',
        `data/big.log-${count}- line ${count} of filler text for a big file`,
        `data/big.log:${count + 1}: NEEDLE near the end`,
        `data/big.log-${count + 2}- last line`,
      ].join('\n'),
    );
    const single = await runBuiltin(
      cwd,
      'grep',
      { pattern: 'line 2000[05] of', path: 'data/big.log' },
      {
        tools: { grepBackend: backend },
      },
    );
    expect(single.output).toBe(
      'data/big.log:20000: line 20000 of filler text for a big file\n--\ndata/big.log:20005: line 20005 of filler text for a big file',
    );
  });

  it('caps matches per file in a large file, as in a small one', async () => {
    const cwd = await writeTree(await tempDir(), { 'big.txt': big(2 * 1024 * 1024) });
    const r = await runBuiltin(
      cwd,
      'grep',
      { pattern: 'line \\d+0 of' },
      { tools: { grepBackend: backend, grepMaxPerFile: 2 } },
    );
    expect(r.output).toBe(
      [
        'big.txt:10: line 10 of filler text for a big file',
        '--',
        'big.txt:20: line 20 of filler text for a big file',
        '… big.txt: more matches not shown (2 per file)',
      ].join('\n'),
    );
  });
});
