import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import type { GrepBackend } from '../../src/tools/builtin/grep-core.js';
import { jsGrepBackend } from '../../src/tools/builtin/grep-js.js';
import { findRipgrep, rgGrepBackend } from '../../src/tools/builtin/grep-rg.js';
import { type SearchToolOptions, searchTools } from '../../src/tools/builtin/search.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool, type ToolRunResult } from '../../src/tools/run.js';
import { buildSpec } from '../../src/tools/schema.js';
import { call, makeCtx, tempDir, writeTree } from './helpers.js';

let rgPath: string;

beforeAll(async () => {
  const found = await findRipgrep();
  if (found === undefined) throw new Error('no working ripgrep binary (rg on PATH or @vscode/ripgrep)');
  rgPath = found;
});

function grepWith(backend: () => GrepBackend) {
  return async (
    cwd: string,
    args: Record<string, unknown>,
    options: SearchToolOptions = {},
  ): Promise<ToolRunResult> => {
    const registry = new ToolRegistry();
    registry.registerAll(searchTools({ ...options, grepBackend: backend() }));
    return runTool(registry, call('grep', args), makeCtx(cwd));
  };
}

const BINARY = new Uint8Array([...Buffer.from('loadConfig'), 0, 1, 2, ...Buffer.from('loadConfig\n')]);

async function project(): Promise<string> {
  return writeTree(await tempDir(), {
    '.gitignore': 'dist/\n*.log\n',
    'src/.gitignore': 'generated.ts\n',
    'src/app.ts': 'import x from "y";\nexport function loadConfig() {\n  return read();\n}\n',
    'src/util/strings.ts': 'export const LOAD = 1;\n// loadConfig is used in app\n',
    'src/readme.md': 'How to loadConfig\n',
    'src/generated.ts': 'loadConfig();\n',
    'src/debug.log': 'loadConfig\n',
    'dist/out.ts': 'loadConfig();\n',
    'debug.log': 'loadConfig\n',
    '.hidden/conf.ts': 'loadConfig hidden\n',
    'node_modules/dep/index.ts': 'export function loadConfig() {}\n',
    '.git/config': 'loadConfig = true\n',
    'assets/logo.bin': BINARY,
    'crlf.txt': 'loadConfig\r\nother\r\n',
    'big.txt': 'loadConfig\n'.repeat(200),
  });
}

const backends: Array<[string, () => GrepBackend]> = [
  ['js', () => jsGrepBackend],
  ['rg', () => rgGrepBackend(rgPath)],
];

describe.each(backends)('grep (%s backend)', (_name, backend) => {
  const grep = grepWith(backend);

  it('finds regex matches as path:line: text, skipping ignored and binary files', async () => {
    const cwd = await project();
    const r = await grep(cwd, { pattern: 'load\\w+\\(\\)' });
    expect(r).toEqual({
      output: 'src/app.ts:2: export function loadConfig() {',
      isError: false,
      status: 'ok',
    });
    const all = await grep(cwd, { pattern: 'loadConfig', max_results: 1000 }, { grepMaxPerFile: 500 });
    expect(all.output.split('\n').slice(0, 6)).toEqual([
      '.hidden/conf.ts:1: loadConfig hidden',
      'big.txt:1: loadConfig',
      'big.txt:2: loadConfig',
      'big.txt:3: loadConfig',
      'big.txt:4: loadConfig',
      'big.txt:5: loadConfig',
    ]);
    expect(all.output.split('\n').slice(201)).toEqual([
      'crlf.txt:1: loadConfig',
      'src/app.ts:2: export function loadConfig() {',
      'src/readme.md:1: How to loadConfig',
      'src/util/strings.ts:2: // loadConfig is used in app',
    ]);
    expect(all.output).not.toMatch(/node_modules|\.git\/|logo\.bin|dist\/|\.log|generated/);
  });

  it('applies .gitignore rules from above the searched directory', async () => {
    const cwd = await project();
    const r = await grep(cwd, { pattern: 'loadConfig', path: 'src' });
    expect(r.output).toBe(
      [
        'src/app.ts:2: export function loadConfig() {',
        'src/readme.md:1: How to loadConfig',
        'src/util/strings.ts:2: // loadConfig is used in app',
      ].join('\n'),
    );
  });

  it('filters by glob, ignores case and shows context with separators', async () => {
    const cwd = await project();
    const ts = await grep(cwd, { pattern: 'LOADCONFIG', ignore_case: true, glob: '*.ts' });
    expect(ts.output).toBe(
      [
        '.hidden/conf.ts:1: loadConfig hidden',
        'src/app.ts:2: export function loadConfig() {',
        'src/util/strings.ts:2: // loadConfig is used in app',
      ].join('\n'),
    );
    const ctx = await grep(cwd, { pattern: 'loadConfig|LOAD', path: 'src', glob: '**/*.ts', context: 1 });
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

  it('matches at line ends in CRLF files and supports lookahead', async () => {
    const cwd = await project();
    const r = await grep(cwd, { pattern: 'Config$', glob: '*.txt', max_results: 2 });
    expect(r.output.split('\n')[0]).toBe('big.txt:1: loadConfig');
    const crlf = await grep(cwd, { pattern: '^loadConfig$', path: 'crlf.txt' });
    expect(crlf.output).toBe('crlf.txt:1: loadConfig');
    const ahead = await grep(cwd, { pattern: 'load(?=Config\\(\\))', glob: '*.ts' });
    expect(ahead.output).toBe('src/app.ts:2: export function loadConfig() {');
  });

  it('caps matches per file and in total, and can search a single file', async () => {
    const cwd = await project();
    const capped = await grep(
      cwd,
      { pattern: 'loadConfig', glob: '*.txt', context: 1 },
      { grepMaxPerFile: 2 },
    );
    expect(capped.output).toBe(
      [
        'big.txt:1: loadConfig',
        'big.txt:2: loadConfig',
        'big.txt-3- loadConfig',
        '… big.txt: more matches not shown (2 per file)',
        '--',
        'crlf.txt:1: loadConfig',
        'crlf.txt-2- other',
      ].join('\n'),
    );
    const total = await grep(cwd, { pattern: 'loadConfig', path: 'big.txt', max_results: 3 });
    expect(total.output).toBe(
      [
        'big.txt:1: loadConfig',
        'big.txt:2: loadConfig',
        'big.txt:3: loadConfig',
        '… stopped after 3 matches; narrow the pattern, path or glob, or raise max_results',
      ].join('\n'),
    );
    const acrossFiles = await grep(cwd, { pattern: 'loadConfig', path: 'src', max_results: 2 });
    expect(acrossFiles.output).toBe(
      [
        'src/app.ts:2: export function loadConfig() {',
        'src/readme.md:1: How to loadConfig',
        '… stopped after 2 matches; narrow the pattern, path or glob, or raise max_results',
      ].join('\n'),
    );
  });

  it('explains no matches, bad regexes, binary and missing paths', async () => {
    const cwd = await project();
    const none = await grep(cwd, { pattern: 'nothing_here', glob: '*.md' });
    expect(none.output).toBe('No matches for /nothing_here/ in . (files matching "*.md"); searched 1 file');
    const bad = await grep(cwd, { pattern: 'load(' });
    expect(bad.status).toBe('error');
    expect(bad.output).toMatch(
      /^\[ERROR\] Invalid regular expression: [\s\S]*(Unterminated group|unclosed group)/,
    );
    expect(bad.output).toMatch(/\nHint: pattern is a (JavaScript|ripgrep \(Rust\/PCRE2\)) regex; escape/);
    const binary = await grep(cwd, { pattern: 'loadConfig', path: 'assets/logo.bin' });
    expect(binary.output).toBe(
      '[ERROR] assets/logo.bin is a binary file; grep only searches text\nHint: inspect it with bash instead',
    );
    const missing = await grep(cwd, { pattern: 'x', path: 'nowhere' });
    expect(missing.output).toMatch(
      /^\[ERROR\] No such file or directory: nowhere\nHint: the path does not exist/,
    );
    const outside = await grep(cwd, { pattern: 'x', path: '/' });
    expect(outside.output).toMatch(/outside the workspace/);
  });
});

describe('grep backends agree', () => {
  it('gives identical output from ripgrep and JavaScript on the same calls', async () => {
    const cwd = await project();
    const js = grepWith(() => jsGrepBackend);
    const rg = grepWith(() => rgGrepBackend(rgPath));
    const calls: Array<Record<string, unknown>> = [
      { pattern: 'loadConfig', max_results: 2000 },
      { pattern: 'config', ignore_case: true, context: 2 },
      { pattern: 'o', glob: 'src/**', context: 1 },
      { pattern: 'zzz' },
      { pattern: '^$' },
    ];
    for (const args of calls) {
      const [a, b] = await Promise.all([js(cwd, args), rg(cwd, args)]);
      expect(b, JSON.stringify(args)).toEqual(a);
    }
  });

  it('searches node_modules only when the glob names it', async () => {
    const cwd = await project();
    for (const backend of backends) {
      const r = await grepWith(backend[1])(cwd, { pattern: 'loadConfig', glob: 'node_modules/**/*.ts' });
      expect(r.output).toBe('node_modules/dep/index.ts:1: export function loadConfig() {}');
    }
  });

  it('finds a working ripgrep binary', () => {
    expect(execFileSync(rgPath, ['--version'], { encoding: 'utf8' })).toMatch(/^ripgrep \d+\./);
  });
});

describe('grep spec budget', () => {
  it('stays small enough to send on every request', () => {
    const grep = searchTools().find((t) => t.name === 'grep')!;
    const spec = buildSpec(grep);
    expect(spec.description.length).toBeLessThanOrEqual(200);
    const props = spec.parameters.properties as Record<string, { description?: string }>;
    for (const [name, prop] of Object.entries(props)) {
      expect(prop.description?.length ?? 0, name).toBeLessThanOrEqual(60);
    }
    expect(JSON.stringify(spec).length).toBeLessThanOrEqual(700);
  });
});
