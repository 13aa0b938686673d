import { chmod, chown, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  analyzeConfig,
  type ConfigEntry,
  configEnv,
  parseConfigList,
  parseSubmoduleNames,
} from '../../src/tools/builtin/git-safety.js';
import { git, gitRegistry, makeRepo, run, tempDir, writeTree } from './git-fixtures.js';
import { makeMarkers, marker, marks } from './git-hostile-fixtures.js';

const local = (key: string, value?: string): ConfigEntry => ({
  scope: 'local',
  origin: 'file:.git/config',
  key,
  value,
});
const global = (key: string, value?: string): ConfigEntry => ({
  scope: 'global',
  origin: 'file:/home/u/.gitconfig',
  key,
  value,
});

describe('reading a repository config', () => {
  it('parses scope, origin, key and value, including bare keys and values with newlines', () => {
    const out =
      'local\0file:.git/config\0core.bare\nfalse\0global\0file:/h/.gitconfig\0x.flag\0local\0file:.git/config\0alias.l\nline1\nline2\0';
    expect(parseConfigList(out)).toEqual([
      { scope: 'local', origin: 'file:.git/config', key: 'core.bare', value: 'false' },
      { scope: 'global', origin: 'file:/h/.gitconfig', key: 'x.flag', value: undefined },
      { scope: 'local', origin: 'file:.git/config', key: 'alias.l', value: 'line1\nline2' },
    ]);
  });

  it("turns off the repository's filters by name, and leaves the user's own alone", () => {
    const config = analyzeConfig([
      global('filter.lfs.clean', 'git-lfs clean -- %f'),
      local('filter.Crypt.smudge', 'evil smudge'),
      local('filter.a=b.process', 'evil process'),
    ]);
    expect(config.overrides).toEqual([
      ['filter.Crypt.clean', ''],
      ['filter.Crypt.smudge', ''],
      ['filter.Crypt.process', ''],
      ['filter.Crypt.required', 'false'],
      ['filter.a=b.clean', ''],
      ['filter.a=b.smudge', ''],
      ['filter.a=b.process', ''],
      ['filter.a=b.required', 'false'],
    ]);
    expect(config.filters.map((f) => `${f.what} ${f.key} ${f.origin}`)).toEqual([
      'filter "Crypt" filter.Crypt.smudge .git/config',
      'filter "a=b" filter.a=b.process .git/config',
    ]);
  });

  it("treats worktree and unknown scopes as the repository's, command-line config as the user's", () => {
    const config = analyzeConfig([
      { scope: 'worktree', origin: 'file:.git/config.worktree', key: 'filter.w.clean', value: 'x' },
      { scope: 'unknown', origin: 'blob:abc', key: 'merge.m.driver', value: 'y' },
      { scope: 'command', origin: 'command line:', key: 'diff.d.textconv', value: 'mine' },
    ]);
    expect(config.filters.map((f) => f.key)).toEqual(['filter.w.clean']);
    expect(config.mergeDrivers.map((f) => f.what)).toEqual(['merge driver "m"']);
    expect(config.overrides).toEqual([
      ['filter.w.clean', ''],
      ['filter.w.smudge', ''],
      ['filter.w.process', ''],
      ['filter.w.required', 'false'],
    ]);
  });

  it('disables every configured hook, reports the enabled ones with their events', () => {
    const config = analyzeConfig([
      global('hook.lint.command', '~/bin/lint'),
      global('hook.lint.event', 'pre-commit'),
      local('hook.evil.command', 'sh -c evil'),
      local('hook.evil.event', 'post-commit'),
      local('hook.evil.event', ''),
      local('hook.evil.event', 'post-checkout'),
      local('hook.off.command', 'x'),
      local('hook.off.enabled', 'false'),
      local('hook.pre-commit.enabled', 'true'),
    ]);
    expect(config.configHooks.map((h) => `${h.name}:${h.events.join(',')}`)).toEqual([
      'lint:pre-commit',
      'evil:post-checkout',
    ]);
    expect(config.overrides).toEqual([
      ['hook.lint.enabled', 'false'],
      ['hook.lint.event', ''],
      ['hook.evil.enabled', 'false'],
      ['hook.evil.event', ''],
      ['hook.off.enabled', 'false'],
      ['hook.off.event', ''],
    ]);
  });

  it('keeps git out of every submodule named in config or .gitmodules', () => {
    const names = parseSubmoduleNames('submodule.lib/a.path\0submodule.lib/a.url\0submodule.b.c.ignore\0');
    expect(names).toEqual(['lib/a', 'b.c']);
    const config = analyzeConfig(
      [local('submodule.lib/a.active', 'true'), local('submodule.recurse', 'true')],
      [...names, 'x'],
    );
    expect(config.overrides).toEqual([
      ['submodule.lib/a.ignore', 'dirty'],
      ['submodule.b.c.ignore', 'dirty'],
      ['submodule.x.ignore', 'dirty'],
    ]);
  });

  it("knows when commits are signed, and the repository's signing programs", () => {
    const signed = analyzeConfig([
      global('commit.gpgsign', 'yes'),
      global('gpg.program', 'gpg2'),
      local('gpg.ssh.program', '/tmp/evil'),
      local('gpg.ssh.defaultkeycommand', 'evil'),
      local('gpg.format', 'ssh'),
    ]);
    expect(signed.signsCommits).toBe(true);
    expect(signed.signers.map((s) => s.key)).toEqual(['gpg.ssh.program', 'gpg.ssh.defaultkeycommand']);
    expect(analyzeConfig([global('commit.gpgsign', 'true'), local('commit.gpgsign', '0')]).signsCommits).toBe(
      false,
    );
    expect(analyzeConfig([local('commit.gpgsign')]).signsCommits).toBe(true);
  });

  it('adds config through GIT_CONFIG_COUNT after what the environment already carries', () => {
    expect(configEnv({}, [])).toEqual({});
    expect(configEnv({ GIT_CONFIG_COUNT: '2' }, [['filter.x.clean', '']])).toEqual({
      GIT_CONFIG_COUNT: '3',
      GIT_CONFIG_KEY_2: 'filter.x.clean',
      GIT_CONFIG_VALUE_2: '',
    });
    expect(configEnv({ GIT_CONFIG_COUNT: 'junk' }, [['a.b', 'c']]).GIT_CONFIG_KEY_0).toBe('a.b');
  });
});

describe('git tools in ordinary repositories', () => {
  it('show status, diff and log, and commit, with no notes or refusals', async () => {
    const cwd = await makeRepo({ 'a.txt': 'one\n', '.gitattributes': '*.txt text\n' });
    await writeTree(cwd, { 'a.txt': 'one\ntwo\n' });
    const status = await run(cwd, 'git_status');
    expect(status.output).toBe('On branch main (no upstream)\nUnstaged (1):\n  modified: a.txt');
    expect((await run(cwd, 'git_diff')).output).toContain('@@ -1 +1,2 @@\n one\n+two');
    const commit = await run(cwd, 'git_commit', { message: 'two', all: true });
    expect(commit.output).toMatch(/^Committed [0-9a-f]{12} [\s\S]*\n 1 file changed, 1 insertion\(\+\)$/);
    expect((await run(cwd, 'git_log', {})).output).toMatch(
      /^[0-9a-f]+ \d{4}-\d\d-\d\d \[Tea Tester\] two\n[0-9a-f]+ \d{4}-\d\d-\d\d \[Tea Tester\] initial commit$/,
    );
  });

  const savedGlobal = process.env.GIT_CONFIG_GLOBAL;
  afterEach(() => {
    process.env.GIT_CONFIG_GLOBAL = savedGlobal;
  });

  it("run the user's own filter (global config), and refuse the same filter set by the repository", async () => {
    const m = await makeMarkers();
    const upper = join(m.bin, 'upper');
    await writeFile(upper, `#!/bin/sh\ntouch '${join(m.dir, 'upper')}'\ntr a-z A-Z\n`);
    await chmod(upper, 0o755);
    const cwd = await makeRepo({ '.gitattributes': '*.txt filter=upper\n' });
    const home = await tempDir('tea-home-');
    await writeFile(join(home, 'gitconfig'), `[filter "upper"]\n\tclean = ${upper}\n`);
    process.env.GIT_CONFIG_GLOBAL = join(home, 'gitconfig');
    await writeTree(cwd, { 'a.txt': 'quiet\n' });
    expect((await run(cwd, 'git_add', { paths: ['a.txt'] })).output).toBe('Staged (1):\n  A a.txt');
    expect(git(cwd, 'show', ':a.txt')).toBe('QUIET\n');
    expect(await marks(m)).toEqual(['upper']);

    process.env.GIT_CONFIG_GLOBAL = '/dev/null';
    git(cwd, 'config', 'filter.upper.clean', upper);
    await writeTree(cwd, { 'b.txt': 'loud\n' });
    const refused = await run(cwd, 'git_add', { paths: ['b.txt'] });
    expect(refused.output).toBe(
      '[ERROR] git add -- b.txt was not run: it would run programs this repository sets up, and git tools never run those:\n' +
        `  - filter "upper": filter.upper.clean = ${upper} (from .git/config)\n` +
        'Hint: if the user trusts this repository, run the same git command with bash (it asks for approval to run commands), or ask the user to run it',
    );
    const status = await run(cwd, 'git_status');
    expect(status.output).toContain('Untracked (1):\n  b.txt');
    expect(status.output).toContain(
      'Note: this repository\'s config sets filter "upper"; git tools do not run a repository\'s programs, so files using it are read as stored on disk and may show as changed.',
    );
    expect(await marks(m)).toEqual(['upper']);
  });

  it('refuse to run on a git that ignores GIT_CONFIG_COUNT when the repository has programs to switch off', async () => {
    const m = await makeMarkers();
    const oldGit = join(m.bin, 'old-git');
    await writeFile(oldGit, '#!/bin/sh\nunset GIT_CONFIG_COUNT\nexec git "$@"\n');
    await chmod(oldGit, 0o755);
    const reg = gitRegistry({ binary: oldGit });
    const cwd = await makeRepo({ '.gitattributes': '*.txt filter=evil\n', 'a.txt': 'one\n' });
    expect((await run(cwd, 'git_status', {}, reg)).output).toBe(
      'On branch main (no upstream)\nWorking tree clean',
    );
    git(cwd, 'config', 'filter.evil.clean', await marker(m, 'clean', 'stdin'));
    await writeTree(cwd, { 'a.txt': 'two\n' });
    expect((await run(cwd, 'git_diff', {}, reg)).output).toBe(
      '[ERROR] this git cannot be told to leave the programs this repository sets up alone (git tools need git 2.31 or newer)\n' +
        'Hint: upgrade git; if the user trusts this repository, bash can run git instead (it asks for approval)',
    );
    expect(await marks(m)).toEqual([]);
  });

  // chown needs root; git tools never pass safe.directory, so git's own check stands.
  it.skipIf(process.getuid?.() !== 0)(
    "keep git's own ownership check: a repository of another user is refused, its config never read",
    async () => {
      const m = await makeMarkers();
      const cwd = await makeRepo();
      git(cwd, 'config', 'core.fsmonitor', await marker(m, 'fsmonitor'));
      await chown(cwd, 12345, 12345);
      await chown(join(cwd, '.git'), 12345, 12345);
      const r = await run(cwd, 'git_status');
      expect(r.status).toBe('error');
      expect(r.output).toMatch(/dubious ownership[\s\S]*Hint: the repository belongs to another user/);
      expect(await marks(m)).toEqual([]);
      expect(await readFile(join(cwd, 'README.md'), 'utf8')).toBe('hello\n');
    },
  );
});
