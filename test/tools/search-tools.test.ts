import { chmod, readdir, readFile, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type SearchToolOptions, searchTools } from '../../src/tools/builtin/search.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool, type ToolRunResult } from '../../src/tools/run.js';
import type { HistoryHit, ToolContext, ToolHost } from '../../src/tools/types.js';
import { call, makeCtx, tempDir, writeTree } from './helpers.js';

async function run(
  cwd: string,
  name: string,
  args: Record<string, unknown>,
  opts: { tools?: SearchToolOptions; ctx?: Partial<ToolContext> } = {},
): Promise<ToolRunResult> {
  const registry = new ToolRegistry();
  registry.registerAll(searchTools({ grepBackend: 'js', ...opts.tools }));
  return runTool(registry, call(name, args), makeCtx(cwd, opts.ctx));
}

async function dated(
  root: string,
  files: Record<string, string>,
  ages: Record<string, number>,
): Promise<string> {
  await writeTree(root, files);
  const now = Date.now() / 1000;
  for (const [rel, age] of Object.entries(ages)) await utimes(join(root, rel), now - age, now - age);
  return root;
}

describe('find_files', () => {
  async function tree(): Promise<string> {
    return dated(
      await tempDir(),
      {
        '.gitignore': 'build/\n',
        'src/config.ts': '',
        'src/AppConfig.json': '',
        'src/config/index.ts': '',
        'docs/setup.md': '',
        'build/config.js': '',
        'node_modules/config/index.js': '',
      },
      { 'src/config.ts': 300, 'src/AppConfig.json': 100, 'src/config/index.ts': 200, 'src/config': 50 },
    );
  }

  it('matches a case-insensitive substring of the name, newest first, respecting .gitignore', async () => {
    const cwd = await tree();
    const r = await run(cwd, 'find_files', { name: 'CONFIG' });
    expect(r).toEqual({
      output: 'src/config/\nsrc/AppConfig.json\nsrc/config.ts',
      isError: false,
      status: 'ok',
    });
    const files = await run(cwd, 'find_files', { name: 'config', type: 'file' });
    expect(files.output).toBe('src/AppConfig.json\nsrc/config.ts');
    const dirs = await run(cwd, 'find_files', { name: 'config', type: 'dir' });
    expect(dirs.output).toBe('src/config/');
  });

  it('takes globs, a path and max_results', async () => {
    const cwd = await tree();
    const ts = await run(cwd, 'find_files', { name: '*.ts', path: 'src' });
    expect(ts.output).toBe('src/config/index.ts\nsrc/config.ts');
    const one = await run(cwd, 'find_files', { name: '*.ts', max_results: 1 });
    expect(one.output).toBe(
      'src/config/index.ts\n… 1 more not shown; narrow the name or path, or raise max_results',
    );
  });

  it('explains empty results and refuses bad input', async () => {
    const cwd = await tree();
    expect((await run(cwd, 'find_files', { name: 'nothing' })).output).toBe(
      'No files or directories named like "nothing" in .',
    );
    expect((await run(cwd, 'find_files', { name: '../*' })).output).toMatch(
      /^\[ERROR\] The name pattern "\.\.\/\*" must be relative/,
    );
    expect((await run(cwd, 'find_files', { name: 'x', path: 'docs/setup.md' })).output).toMatch(
      /^\[ERROR\] docs\/setup\.md is a file, not a directory/,
    );
    expect((await run(cwd, 'find_files', { name: 'x', path: '/etc' })).output).toMatch(
      /outside the workspace/,
    );
  });
});

describe('replace_in_files', () => {
  async function code(): Promise<string> {
    return writeTree(await tempDir(), {
      '.gitignore': 'dist/\n',
      'src/a.ts': 'const oldName = 1;\nexport { oldName };\n',
      'src/b.ts': 'import { oldName } from "./a";\nconsole.log(oldName + oldName);\n',
      'src/c.md': 'oldName in docs\n',
      'dist/a.js': 'var oldName = 1;\n',
      'bin.dat': new Uint8Array([0, 1, ...Buffer.from('oldName')]),
    });
  }

  it('previews changes without writing by default', async () => {
    const cwd = await code();
    const before = await readFile(join(cwd, 'src/b.ts'), 'utf8');
    const r = await run(cwd, 'replace_in_files', {
      pattern: 'oldName',
      replacement: 'newName',
      glob: '*.ts',
    });
    expect(r.output).toBe(
      [
        'Dry run: 5 replacements in 2 files (nothing written; call again with dry_run: false to apply)',
        'src/a.ts:1: const oldName = 1; → const newName = 1;',
        'src/a.ts:2: export { oldName }; → export { newName };',
        'src/b.ts:1: import { oldName } from "./a"; → import { newName } from "./a";',
        'src/b.ts:2: console.log(oldName + oldName); → console.log(newName + newName);',
      ].join('\n'),
    );
    expect(await readFile(join(cwd, 'src/b.ts'), 'utf8')).toBe(before);
  });

  it('writes with dry_run false, skipping ignored and binary files, keeping modes and leaving no temp files', async () => {
    const cwd = await code();
    await chmod(join(cwd, 'src/a.ts'), 0o755);
    const r = await run(cwd, 'replace_in_files', {
      pattern: '(old)Name',
      replacement: '$1Title',
      dry_run: false,
    });
    expect(r.output.split('\n')[0]).toBe('Replaced: 6 replacements in 3 files');
    expect(await readFile(join(cwd, 'src/b.ts'), 'utf8')).toBe(
      'import { oldTitle } from "./a";\nconsole.log(oldTitle + oldTitle);\n',
    );
    expect(await readFile(join(cwd, 'src/c.md'), 'utf8')).toBe('oldTitle in docs\n');
    expect(await readFile(join(cwd, 'dist/a.js'), 'utf8')).toBe('var oldName = 1;\n');
    expect((await readFile(join(cwd, 'bin.dat'))).includes(Buffer.from('oldName'))).toBe(true);
    expect((await stat(join(cwd, 'src/a.ts'))).mode & 0o777).toBe(0o755);
    expect((await readdir(join(cwd, 'src'))).sort()).toEqual(['a.ts', 'b.ts', 'c.md']);
  });

  it('shows multi-line changes, caps the listing and honours ignore_case', async () => {
    const cwd = await writeTree(await tempDir(), {
      'list.txt': 'Item one\nitem two\nITEM three\n',
      'join.txt': 'a,\nb\n',
    });
    const joined = await run(cwd, 'replace_in_files', {
      pattern: ',\\n',
      replacement: ', ',
      path: 'join.txt',
    });
    expect(joined.output).toBe(
      'Dry run: 1 replacement in 1 file (nothing written; call again with dry_run: false to apply)\n' +
        'join.txt:1: a, ⏎ b → a, b',
    );
    const capped = await run(
      cwd,
      'replace_in_files',
      { pattern: '^item', replacement: '-', ignore_case: true, glob: 'list.txt' },
      { tools: { replaceMaxShown: 2 } },
    );
    expect(capped.output).toBe(
      [
        'Dry run: 3 replacements in 1 file (nothing written; call again with dry_run: false to apply)',
        'list.txt:1: Item one → - one',
        'list.txt:2: item two → - two',
        '… more changed lines not shown',
      ].join('\n'),
    );
  });

  it('refuses bad regexes, too many files and .git internals, writing nothing', async () => {
    const cwd = await code();
    const bad = await run(cwd, 'replace_in_files', { pattern: 'old(', replacement: 'x' });
    expect(bad.output).toMatch(
      /^\[ERROR\] Invalid regular expression: .*\nHint: pattern is a JavaScript regex/,
    );
    const many = await run(
      cwd,
      'replace_in_files',
      { pattern: 'oldName', replacement: 'x', dry_run: false },
      { tools: { replaceMaxFiles: 2 } },
    );
    expect(many.output).toMatch(/^\[ERROR\] The replacement would change 3 files, more than the 2 allowed/);
    expect(await readFile(join(cwd, 'src/a.ts'), 'utf8')).toBe('const oldName = 1;\nexport { oldName };\n');
    await writeTree(cwd, { '.git/config': 'oldName\n' });
    const git = await run(cwd, 'replace_in_files', {
      pattern: 'oldName',
      replacement: 'x',
      glob: '.git/**',
      dry_run: false,
    });
    expect(git.output).toMatch(/^\[ERROR\] Refusing to write .*inside a \.git directory/);
    expect(await readFile(join(cwd, '.git/config'), 'utf8')).toBe('oldName\n');
    const none = await run(cwd, 'replace_in_files', { pattern: 'absent', replacement: 'x', path: 'src' });
    expect(none.output).toBe('No changes: /absent/ matches nothing to replace in src; searched 3 files');
  });
});

describe('history_search', () => {
  function fakeHost(): { host: ToolHost; calls: string[] } {
    const calls: string[] = [];
    const hits: HistoryHit[] = [
      {
        seq: 3,
        role: 'assistant',
        turnId: 't1',
        snippet: 'bash {"command":"npm test"}',
        tool: 'bash',
        callId: 'c7',
      },
      { seq: 4, role: 'tool', turnId: 't1', snippet: 'exit code: 1 … FAIL', tool: 'bash', callId: 'c7' },
      { seq: 5, role: 'user', turnId: 't2', snippet: 'why did the tests fail?' },
    ];
    const host: ToolHost = {
      ask: async () => '',
      plan: () => undefined,
      currentPlan: () => ({ items: [] }),
      searchHistory(query, opts) {
        calls.push(`search ${JSON.stringify(query)} ${JSON.stringify(opts)}`);
        return hits
          .filter((h) => (opts?.tool ? h.tool === opts.tool : true))
          .filter((h) => h.snippet.includes(query))
          .slice(0, opts?.limit ?? 20);
      },
      readHistory(from, to) {
        calls.push(`read ${from}-${to}`);
        return hits.filter((h) => h.seq >= from && h.seq <= to);
      },
      loadTools: () => undefined,
      loadedTools: () => [],
      notify: () => undefined,
    };
    return { host, calls };
  }

  it('searches the transcript through the host and formats the hits', async () => {
    const cwd = await tempDir();
    const { host, calls } = fakeHost();
    const r = await run(cwd, 'history_search', { query: 'test' }, { ctx: { host } });
    expect(r.output).toBe(
      ['#3 assistant [bash c7]: bash {"command":"npm test"}', '#5 user: why did the tests fail?'].join('\n'),
    );
    const byTool = await run(cwd, 'history_search', { tool: 'bash', limit: 1 }, { ctx: { host } });
    expect(byTool.output).toBe(
      '#3 assistant [bash c7]: bash {"command":"npm test"}\n… showing the first 1 hit; raise limit for more',
    );
    expect(calls).toEqual(['search "test" {"limit":20}', 'search "" {"limit":1,"tool":"bash"}']);
  });

  it('reads a seq range back', async () => {
    const cwd = await tempDir();
    const { host, calls } = fakeHost();
    const r = await run(cwd, 'history_search', { from_seq: 4, to_seq: 5 }, { ctx: { host } });
    expect(r.output).toBe('#4 tool [bash c7]: exit code: 1 … FAIL\n#5 user: why did the tests fail?');
    const open = await run(cwd, 'history_search', { from_seq: 3, limit: 2 }, { ctx: { host } });
    expect(open.output.split('\n')).toHaveLength(2);
    const empty = await run(cwd, 'history_search', { from_seq: 40, to_seq: 41 }, { ctx: { host } });
    expect(empty.output).toBe('No messages with seq 40-41 in this session');
    expect(calls).toEqual(['read 4-5', 'read 3-4', 'read 40-41']);
  });

  it('explains a missing host, an empty request, a reversed range and no hits', async () => {
    const cwd = await tempDir();
    const bare = await run(cwd, 'history_search', { query: 'x' });
    expect(bare.output).toMatch(
      /^\[ERROR\] history_search needs a session, and this call runs without one\nHint: /,
    );
    const { host } = fakeHost();
    expect((await run(cwd, 'history_search', {}, { ctx: { host } })).output).toMatch(
      /^\[ERROR\] Nothing to search for\nHint: pass query/,
    );
    expect((await run(cwd, 'history_search', { from_seq: 5, to_seq: 2 }, { ctx: { host } })).output).toMatch(
      /^\[ERROR\] to_seq \(2\) is before from_seq \(5\)/,
    );
    expect((await run(cwd, 'history_search', { query: 'zzz', tool: 'bash' }, { ctx: { host } })).output).toBe(
      'No matches for "zzz" in tool bash in this session\'s history',
    );
  });
});
