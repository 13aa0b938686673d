import { mkdir, symlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGitignore } from '../../src/tools/builtin/gitignore.js';
import { runFile } from './files-helpers.js';
import { tempDir, writeTree } from './helpers.js';

/** A small repository layout with root and nested .gitignore files. */
async function repo(): Promise<string> {
  const cwd = await writeTree(await tempDir(), {
    '.gitignore': 'dist/\n*.log\n!keep.log\n/root-only.txt\n',
    'README.md': '# r',
    'root-only.txt': 'ignored at the root',
    'keep.log': 'kept by a negation',
    'debug.log': 'ignored',
    'dist/bundle.js': 'ignored dir',
    'src/index.ts': 'x',
    'src/root-only.txt': 'not ignored: the rule is anchored at the root',
    'src/app/main.ts': 'x',
    'src/app/deep/more/leaf.ts': 'x',
    'src/gen/.gitignore': '*.gen.ts\n!important.gen.ts\n',
    'src/gen/a.gen.ts': 'x',
    'src/gen/important.gen.ts': 'x',
    'src/gen/plain.ts': 'x',
    'node_modules/pkg/index.js': 'x',
    '.git/HEAD': 'ref: refs/heads/main',
    '.git/info/exclude': 'secret-notes.md\n',
    'secret-notes.md': 'excluded by .git/info/exclude',
  });
  return cwd;
}

describe('gitignore matcher', () => {
  it('applies root, nested, negated and anchored rules plus the always-skipped names', async () => {
    const cwd = await repo();
    const m = await loadGitignore(cwd);
    const ignored = (rel: string, dir = false): boolean => m.isIgnored(join(cwd, rel), dir);
    expect(ignored('dist', true)).toBe(true);
    expect(ignored('dist/bundle.js')).toBe(true);
    expect(ignored('debug.log')).toBe(true);
    expect(ignored('keep.log')).toBe(false);
    expect(ignored('root-only.txt')).toBe(true);
    expect(ignored('src/root-only.txt')).toBe(false);
    expect(ignored('src/gen/a.gen.ts')).toBe(true);
    expect(ignored('src/gen/important.gen.ts')).toBe(false);
    expect(ignored('src/gen/plain.ts')).toBe(false);
    expect(ignored('node_modules/pkg/index.js')).toBe(true);
    expect(ignored('.git/HEAD')).toBe(true);
    expect(ignored('secret-notes.md')).toBe(true);
    expect(ignored('src/index.ts')).toBe(false);
    expect(m.isIgnored('/elsewhere/debug.log', false)).toBe(false);
    const plain = await loadGitignore(cwd, { useGitignore: false, alwaysSkip: [] });
    expect(plain.isIgnored(join(cwd, 'debug.log'), false)).toBe(false);
    expect(plain.isIgnored(join(cwd, 'node_modules/pkg/index.js'), false)).toBe(false);
  });
});

describe('tree', () => {
  it('draws an indented tree that respects .gitignore', async () => {
    const cwd = await repo();
    const r = await runFile(cwd, 'tree', {});
    expect(r.output).toBe(
      [
        './',
        '.gitignore',
        'README.md',
        'keep.log',
        'src/',
        '  app/',
        '    deep/ (1 file)',
        '    main.ts',
        '  gen/',
        '    .gitignore',
        '    important.gen.ts',
        '    plain.ts',
        '  index.ts',
        '  root-only.txt',
      ].join('\n'),
    );
  });

  it('follows depth, shows symlinks and empty directories, and lists a subdirectory', async () => {
    const cwd = await repo();
    await mkdir(join(cwd, 'src/empty'));
    await symlink('app/main.ts', join(cwd, 'src/link.ts'));
    const shallow = await runFile(cwd, 'tree', { depth: 1 });
    expect(shallow.output).toBe(['./', '.gitignore', 'README.md', 'keep.log', 'src/ (8 files)'].join('\n'));
    const sub = await runFile(cwd, 'tree', { path: 'src/app', depth: 5 });
    expect(sub.output).toBe(['src/app/', 'deep/', '  more/', '    leaf.ts', 'main.ts'].join('\n'));
    const src = await runFile(cwd, 'tree', { path: 'src', depth: 1 });
    expect(src.output).toContain('empty/ (empty)');
    expect(src.output).toContain('link.ts -> app/main.ts');
  });

  it('caps entries breadth-first and counts files in directories it did not open', async () => {
    const cwd = await tempDir();
    const files: Record<string, string> = {};
    for (const d of ['a', 'b', 'c']) for (let i = 0; i < 6; i++) files[`${d}/f${i}.txt`] = '';
    await writeTree(cwd, files);
    const r = await runFile(cwd, 'tree', { max_entries: 5 });
    expect(r.output).toBe(
      [
        './',
        'a/',
        '  f0.txt',
        '  f1.txt',
        '  … 4 more entries',
        'b/ (6 files)',
        'c/ (6 files)',
        '(capped at 5 entries; tree a subdirectory or raise max_entries to see more)',
      ].join('\n'),
    );
    const counted = await runFile(cwd, 'tree', { depth: 1 }, { tools: { treeCountLimit: 8 } });
    expect(counted.output).toBe(['./', 'a/ (6 files)', 'b/ (2+ files)', 'c/ (0+ files)'].join('\n'));
  });

  it('shows the inside of an ignored directory when asked for it, and refuses files and escapes', async () => {
    const cwd = await repo();
    const dist = await runFile(cwd, 'tree', { path: 'dist' });
    expect(dist.output).toBe(
      'dist/ (an ignored directory: .gitignore rules are not applied inside it)\nbundle.js',
    );
    expect((await runFile(cwd, 'tree', { path: 'README.md' })).output).toMatch(
      /^\[ERROR\] README\.md is a file, not a directory/,
    );
    expect((await runFile(cwd, 'tree', { path: '..' })).output).toMatch(/outside the workspace/);
    await mkdir(join(cwd, 'void'));
    const empty = await runFile(cwd, 'tree', { path: 'void' });
    expect(empty.output).toBe('void/\n(empty directory)');
  });
});

describe('glob', () => {
  it('finds files newest first, skipping git-ignored ones, node_modules and .git', async () => {
    const cwd = await repo();
    await utimes(join(cwd, 'src/app/main.ts'), new Date(2030, 0, 1), new Date(2030, 0, 1));
    const r = await runFile(cwd, 'glob', { pattern: '**/*.ts' });
    const lines = r.output.split('\n');
    expect(lines[0]).toBe('src/app/main.ts');
    expect([...lines].sort()).toEqual(
      [
        'src/app/deep/more/leaf.ts',
        'src/app/main.ts',
        'src/gen/important.gen.ts',
        'src/gen/plain.ts',
        'src/index.ts',
      ].sort(),
    );
    const logs = await runFile(cwd, 'glob', { pattern: '*.log' });
    expect(logs.output).toBe('keep.log');
  });

  it('includes ignored files on request, and node_modules or .git when the pattern names them', async () => {
    const cwd = await repo();
    const all = await runFile(cwd, 'glob', { pattern: '**/*.{log,js}', include_ignored: true });
    expect(all.output.split('\n').sort()).toEqual(
      ['debug.log', 'dist/bundle.js', 'keep.log', 'node_modules/pkg/index.js'].sort(),
    );
    const modules = await runFile(cwd, 'glob', { pattern: 'node_modules/**/*.js' });
    expect(modules.output).toBe('node_modules/pkg/index.js');
    const git = await runFile(cwd, 'glob', { pattern: '.git/*' });
    expect(git.output).toBe('.git/HEAD');
    const inDist = await runFile(cwd, 'glob', { pattern: '*.js', path: 'dist' });
    expect(inDist.output).toBe('dist/bundle.js');
  });

  it('says when nothing matches (and when matches were ignored), caps results and refuses bad patterns', async () => {
    const cwd = await repo();
    expect((await runFile(cwd, 'glob', { pattern: '**/*.py' })).output).toBe('No files match "**/*.py" in .');
    expect((await runFile(cwd, 'glob', { pattern: 'debug.*' })).output).toBe(
      'No files match "debug.*" in . (1 git-ignored file; pass include_ignored: true)',
    );
    const capped = await runFile(cwd, 'glob', { pattern: '**/*.ts' }, { tools: { globMaxResults: 2 } });
    expect(capped.output.split('\n')).toHaveLength(3);
    expect(capped.output.split('\n')[2]).toBe(
      '… 3 more files not shown (the 2 most recently modified are listed); narrow the pattern or path',
    );
    expect((await runFile(cwd, 'glob', { pattern: '../*' })).output).toMatch(
      /^\[ERROR\] The glob pattern "\.\.\/\*" must be relative/,
    );
    expect((await runFile(cwd, 'glob', { pattern: '*', path: 'README.md' })).output).toMatch(
      /^\[ERROR\] README\.md is a file, not a directory/,
    );
    expect((await runFile(cwd, 'glob', { pattern: '*', path: '/etc' })).output).toMatch(
      /outside the workspace/,
    );
  });
});
