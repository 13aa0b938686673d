import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBuiltin, tempDir, writeTree } from './helpers.js';

async function project(): Promise<string> {
  const cwd = await writeTree(await tempDir(), {
    'src/app.ts': 'import x from "y";\nexport function loadConfig() {\n  return read();\n}\n',
    'src/util/strings.ts': 'export const LOAD = 1;\n// loadConfig is used in app\n',
    'src/readme.md': 'How to loadConfig\n',
    'node_modules/dep/index.ts': 'export function loadConfig() {}\n',
    '.git/config': 'loadConfig = true\n',
    'assets/logo.bin': new Uint8Array([0x6c, 0x6f, 0x61, 0x64, 0, 0x43, 0x6f, 0x6e, 0x66, 0x69, 0x67]),
    'big.txt': `${'loadConfig\n'.repeat(200)}`,
  });
  const base = Date.now() / 1000;
  await utimes(join(cwd, 'src/app.ts'), base - 300, base - 300);
  await utimes(join(cwd, 'src/util/strings.ts'), base - 100, base - 100);
  await utimes(join(cwd, 'src/readme.md'), base - 200, base - 200);
  return cwd;
}

describe('glob', () => {
  it('finds files newest first, skipping node_modules and .git', async () => {
    const cwd = await project();
    const r = await runBuiltin(cwd, 'glob', { pattern: '**/*.ts' });
    expect(r).toEqual({ output: 'src/util/strings.ts\nsrc/app.ts', isError: false, status: 'ok' });
    const scoped = await runBuiltin(cwd, 'glob', { pattern: '*.{md,ts}', path: 'src' });
    expect(scoped.output).toBe('src/readme.md\nsrc/app.ts');
  });

  it('searches node_modules only when the pattern names it', async () => {
    const cwd = await project();
    const r = await runBuiltin(cwd, 'glob', { pattern: 'node_modules/**/*.ts' });
    expect(r.output).toBe('node_modules/dep/index.ts');
  });

  it('caps results with a note, and explains empty results and bad patterns', async () => {
    const cwd = await tempDir();
    const files: Record<string, string> = {};
    for (let i = 0; i < 12; i++) files[`f${i}.txt`] = '';
    await writeTree(cwd, files);
    const capped = await runBuiltin(cwd, 'glob', { pattern: '*.txt' }, { tools: { globMaxResults: 5 } });
    const lines = capped.output.split('\n');
    expect(lines).toHaveLength(6);
    expect(lines[5]).toBe(
      '… 7 more files not shown (the 5 most recently modified are listed); narrow the pattern or path',
    );
    expect((await runBuiltin(cwd, 'glob', { pattern: '*.py' })).output).toBe('No files match "*.py" in .');
    const escaping = await runBuiltin(cwd, 'glob', { pattern: '../**/*' });
    expect(escaping.output).toMatch(
      /^\[ERROR\] The glob pattern "\.\.\/\*\*\/\*" must be relative and must not contain "\.\."/,
    );
    const outside = await runBuiltin(cwd, 'glob', { pattern: '*', path: '/' });
    expect(outside.output).toMatch(/outside the workspace/);
  });
});

describe('grep', () => {
  it('finds regex matches as path:line: text, skipping ignored, binary and large files', async () => {
    const cwd = await project();
    const r = await runBuiltin(
      cwd,
      'grep',
      { pattern: 'load\\w+\\(' },
      { tools: { grepMaxFileBytes: 1000 } },
    );
    expect(r.output).toBe('src/app.ts:2: export function loadConfig() {');
    const all = await runBuiltin(cwd, 'grep', { pattern: 'loadConfig', max_results: 1000 });
    expect(all.output.split('\n')).toHaveLength(203);
    expect(all.output).not.toMatch(/node_modules|\.git\/|logo\.bin/);
  });

  it('filters by glob, ignores case and shows context with separators', async () => {
    const cwd = await project();
    const ts = await runBuiltin(cwd, 'grep', { pattern: 'LOADCONFIG', ignore_case: true, glob: '*.ts' });
    expect(ts.output).toBe(
      'src/app.ts:2: export function loadConfig() {\nsrc/util/strings.ts:2: // loadConfig is used in app',
    );
    const ctx = await runBuiltin(cwd, 'grep', {
      pattern: 'loadConfig|LOAD',
      path: 'src',
      glob: '**/*.ts',
      context: 1,
    });
    expect(ctx.output).toBe(
      [
        'src/app.ts-1- import x from "y";',
        'src/app.ts:2: export function loadConfig() {',
        'src/app.ts-3-   return read();',
        '--',
        'src/util/strings.ts:1: export const LOAD = 1;',
        'src/util/strings.ts:2: // loadConfig is used in app',
      ].join('\n'),
    );
  });

  it('stops at max_results with a note and can search a single file', async () => {
    const cwd = await project();
    const r = await runBuiltin(cwd, 'grep', { pattern: 'loadConfig', path: 'big.txt', max_results: 3 });
    expect(r.output).toBe(
      [
        'big.txt:1: loadConfig',
        'big.txt:2: loadConfig',
        'big.txt:3: loadConfig',
        '… stopped after 3 matches; narrow the pattern, path or glob, or raise max_results',
      ].join('\n'),
    );
  });

  it('explains no matches and invalid regexes', async () => {
    const cwd = await project();
    const none = await runBuiltin(cwd, 'grep', { pattern: 'nothing_here', glob: '*.md' });
    expect(none.output).toBe('No matches for /nothing_here/ in . (files matching "*.md"); searched 1 file');
    const bad = await runBuiltin(cwd, 'grep', { pattern: 'load(' });
    expect(bad.status).toBe('error');
    expect(bad.output).toMatch(
      /^\[ERROR\] Invalid regular expression: .*Unterminated group\nHint: pattern is a JavaScript regex/,
    );
    const missing = await runBuiltin(cwd, 'grep', { pattern: 'x', path: 'nowhere' });
    expect(missing.output).toMatch(
      /^\[ERROR\] No such file or directory: nowhere\nHint: the path does not exist/,
    );
  });
});
