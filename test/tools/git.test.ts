import { chmod, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitTools } from '../../src/tools/builtin/git.js';
import { runTool } from '../../src/tools/run.js';
import type { Tool } from '../../src/tools/types.js';
import {
  call,
  commitAt,
  commitFiles,
  git,
  gitRegistry,
  makeCtx,
  makeRepo,
  registry,
  run,
  tempDir,
  writeTree,
} from './git-fixtures.js';

function tool(name: string): Tool {
  const found = registry.loaded(name);
  if (!found) throw new Error(`no tool ${name}`);
  return found;
}

describe('git tool declarations', () => {
  it('marks read tools safe and write tools as workspace changes', () => {
    const tools = gitTools();
    expect(tools.map((t) => t.name)).toEqual([
      'git_status',
      'git_diff',
      'git_log',
      'git_show',
      'git_blame',
      'git_branch',
      'git_add',
      'git_commit',
      'git_stash',
      'git_checkout_file',
    ]);
    for (const t of tools) {
      expect(t.category).toBe('git');
      expect(t.keywords).toContain('git');
      const read = ['git_status', 'git_diff', 'git_log', 'git_show', 'git_blame'].includes(t.name);
      expect({ name: t.name, readOnly: t.readOnly, safe: t.concurrencySafe, approval: t.approval }).toEqual({
        name: t.name,
        readOnly: read,
        safe: read,
        approval: read ? 'none' : 'write',
      });
    }
  });

  it('gives the git command line as the subject, and never throws for it', () => {
    expect(tool('git_status').subject?.({})).toBe('git status');
    expect(tool('git_diff').subject?.({ staged: true, path: 'src/a.ts' })).toBe(
      'git diff --no-ext-diff --no-textconv --ignore-submodules=dirty --cached -- src/a.ts',
    );
    expect(tool('git_branch').subject?.({ action: 'delete', name: 'old' })).toBe('git branch --delete old');
    expect(tool('git_commit').subject?.({ message: 'fix: it works', all: true })).toBe(
      "git commit --all -m 'fix: it works'",
    );
    expect(tool('git_add').subject?.({ paths: ['a b.txt', 'c'] })).toBe("git add -- 'a b.txt' c");
    expect(tool('git_stash').subject?.({ action: 'pop', index: 1 })).toBe('git stash pop stash@{1}');
    expect(tool('git_diff').subject?.({ ref: '--output=x' })).toBe('git diff');
  });
});

describe('outside a repository', () => {
  it('says so with a hint for every tool', async () => {
    const cwd = await tempDir('tea-nogit-');
    for (const [name, args] of [
      ['git_status', {}],
      ['git_log', {}],
      ['git_diff', {}],
      ['git_commit', { message: 'x' }],
    ] as const) {
      const r = await run(cwd, name, args);
      expect(r.status).toBe('error');
      expect(r.output).toBe(
        `[ERROR] not a git repository: ${cwd}\nHint: run \`git init\` there to create one (ask the user first), or start tea with --cwd inside a git repository`,
      );
    }
  });

  it('reports a missing git binary and stops a git that hangs', async () => {
    const cwd = await tempDir();
    const missing = await run(cwd, 'git_status', {}, gitRegistry({ binary: join(cwd, 'no-such-git') }));
    expect(missing.output).toMatch(/^\[ERROR\] git is not installed or not on PATH/);

    // Real git for the config reads that come first; `git log` hangs.
    const fake = join(cwd, 'slow-git');
    await writeFile(
      fake,
      `#!/bin/sh\nfor a in "$@"; do [ "$a" = log ] && { echo $$ > '${cwd}/pid'; exec sleep 30; }; done\nexec git "$@"\n`,
    );
    await chmod(fake, 0o755);
    const repo = await makeRepo();
    const slow = await run(repo, 'git_log', {}, gitRegistry({ binary: fake, timeoutMs: 200 }));
    expect(slow.output).toMatch(/^\[ERROR\] git .*log .* timed out after 0\.2s\nHint: narrow the command/);
    const pid = Number((await readFile(join(cwd, 'pid'), 'utf8')).trim());
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('kills git when the user cancels', async () => {
    const cwd = await tempDir();
    const fake = join(cwd, 'slow-git');
    await writeFile(fake, '#!/bin/sh\necho $$ > "$(dirname "$0")/pid"\nexec sleep 30\n');
    await chmod(fake, 0o755);
    const controller = new AbortController();
    const running = runTool(
      gitRegistry({ binary: fake }),
      call('git_status', {}),
      makeCtx(cwd, controller.signal),
    );
    let pid = Number.NaN;
    for (let i = 0; i < 200 && Number.isNaN(pid); i++) {
      await new Promise((r) => setTimeout(r, 10));
      pid = Number.parseInt(await readFile(join(cwd, 'pid'), 'utf8').catch(() => ''), 10);
    }
    expect(pid).toBeGreaterThan(0);
    expect(() => process.kill(pid, 0)).not.toThrow();
    controller.abort();
    const r = await running;
    expect(r.status).toBe('cancelled');
    expect(r.output).toBe('[CANCELLED] git_status was cancelled by the user');
    expect(() => process.kill(pid, 0)).toThrow();
  });
});

describe('git_status', () => {
  it('summarises branch, staged, unstaged and untracked files', async () => {
    const cwd = await makeRepo({
      'README.md': 'hello\n',
      'old.txt': 'old\n',
      'gone.txt': 'bye\n',
      'keep.txt': 'k\n',
    });
    await writeTree(cwd, { 'README.md': 'hello world\n', 'new.txt': 'new\n', 'dir/deep.txt': 'deep\n' });
    git(cwd, 'mv', 'old.txt', 'renamed.txt');
    await writeTree(cwd, { 'keep.txt': 'k2\n' });
    git(cwd, 'add', 'keep.txt');
    await writeTree(cwd, { 'keep.txt': 'k3\n' });
    await rm(join(cwd, 'gone.txt'));
    const r = await run(cwd, 'git_status');
    expect(r.status).toBe('ok');
    expect(r.output).toBe(
      [
        'On branch main (no upstream)',
        'Staged (2):',
        '  modified: keep.txt',
        '  renamed: old.txt -> renamed.txt',
        'Unstaged (3):',
        '  modified: README.md',
        '  deleted: gone.txt',
        '  modified: keep.txt',
        'Untracked (2):',
        '  dir/deep.txt',
        '  new.txt',
      ].join('\n'),
    );
  });

  it('reports ahead/behind, a clean tree, stashes, detached HEAD and an empty repository', async () => {
    const cwd = await makeRepo();
    git(cwd, 'branch', 'base');
    git(cwd, 'branch', '--set-upstream-to=base');
    await commitFiles(cwd, { 'a.txt': 'a\n' }, 'on main');
    git(cwd, 'switch', '-q', 'base');
    await commitFiles(cwd, { 'b.txt': 'b\n' }, 'on base');
    git(cwd, 'switch', '-q', 'main');
    await writeTree(cwd, { 'a.txt': 'changed\n' });
    git(cwd, 'stash', '-q');
    expect((await run(cwd, 'git_status')).output).toBe(
      'On branch main, tracking base: ahead 1, behind 1\nWorking tree clean\nStashes: 1',
    );

    const head = git(cwd, 'rev-parse', 'HEAD').trim();
    git(cwd, 'switch', '-q', '--detach', 'HEAD');
    expect((await run(cwd, 'git_status')).output).toBe(
      `HEAD detached at ${head.slice(0, 7)} (no upstream)\nWorking tree clean\nStashes: 1`,
    );

    const empty = await tempDir();
    git(empty, 'init', '-q', '-b', 'trunk');
    await writeTree(empty, { 'x.txt': 'x' });
    expect((await run(empty, 'git_status')).output).toBe(
      'On branch trunk (no commits yet)\nUntracked (1):\n  x.txt',
    );
  });
});

describe('git_diff', () => {
  it('shows unstaged, staged, ref and stat views', async () => {
    const cwd = await makeRepo({ 'README.md': 'hello\n', 'other.txt': 'one\n' });
    await commitFiles(cwd, { 'README.md': 'hello again\n' }, 'second');
    await writeTree(cwd, { 'README.md': 'hello world\n', 'other.txt': 'two\n' });
    git(cwd, 'add', 'other.txt');

    const unstaged = await run(cwd, 'git_diff');
    expect(unstaged.output).toContain('diff --git a/README.md b/README.md');
    expect(unstaged.output).toContain('-hello again\n+hello world');
    expect(unstaged.output).not.toContain('other.txt');

    const staged = await run(cwd, 'git_diff', { staged: true });
    expect(staged.output).toContain('-one\n+two');
    expect(staged.output).not.toContain('README.md');

    const againstRef = await run(cwd, 'git_diff', { ref: 'HEAD~1', path: 'README.md' });
    expect(againstRef.output).toContain('-hello\n+hello world');

    const stat = await run(cwd, 'git_diff', { ref: 'HEAD~1', stat_only: true });
    expect(stat.output).toBe(
      ' README.md | 2 +-\n other.txt | 2 +-\n 2 files changed, 2 insertions(+), 2 deletions(-)',
    );

    git(cwd, 'add', '-A');
    expect((await run(cwd, 'git_diff')).output).toBe(
      'No unstaged changes (pass staged=true for staged changes; untracked files are not diffed, see git_status)',
    );
    expect((await run(cwd, 'git_diff', { ref: 'HEAD~1..HEAD', path: 'other.txt' })).output).toBe(
      'No differences against HEAD~1..HEAD in other.txt',
    );
  });

  it('stops long output at the cap and says how to narrow it', async () => {
    const cwd = await makeRepo({ 'big.txt': `${'line\n'.repeat(500)}` });
    await writeTree(cwd, { 'big.txt': `${'changed\n'.repeat(500)}` });
    const r = await run(cwd, 'git_diff', {}, gitRegistry({ maxOutputChars: 300 }));
    expect(r.status).toBe('ok');
    expect(r.output).toMatch(/^diff --git a\/big\.txt b\/big\.txt\n/);
    expect(r.output).toMatch(
      /\n… \[output stopped at 300 chars; pass path to diff fewer files, or stat_only=true\]$/,
    );
    expect(r.output.length).toBeLessThan(420);
  });

  it('refuses option-like refs, unknown refs and paths outside the workspace', async () => {
    const cwd = await makeRepo();
    const option = await run(cwd, 'git_diff', { ref: '--output=pwned.txt' });
    expect(option.output).toMatch(/^\[ERROR\] The ref "--output=pwned\.txt" starts with "-"/);
    await expect(stat(join(cwd, 'pwned.txt'))).rejects.toThrow();

    const unknown = await run(cwd, 'git_diff', { ref: 'no-such-branch' });
    expect(unknown.output).toMatch(/^\[ERROR\] git diff failed: ambiguous argument 'no-such-branch'/);
    expect(unknown.output).toContain('Hint: the ref does not exist');

    const outside = await run(cwd, 'git_diff', { path: '../elsewhere' });
    expect(outside.output).toMatch(/^\[ERROR\] Path "\.\.\/elsewhere" is outside the workspace/);
  });
});

describe('git_log', () => {
  it('lists commits one per line and filters them', async () => {
    const cwd = await tempDir();
    git(cwd, 'init', '-q', '-b', 'main');
    git(cwd, 'config', 'user.name', 'Tea Tester');
    git(cwd, 'config', 'user.email', 'tea@example.com');
    await writeTree(cwd, { 'README.md': 'hello\n' });
    commitAt(cwd, '2020-01-01', 'initial commit');
    await writeTree(cwd, { 'a.txt': 'a\n' });
    commitAt(cwd, '2021-06-01', 'add a');
    await writeTree(cwd, { 'b.txt': 'b\n' });
    commitAt(cwd, '2024-03-01', 'add b', '-c', 'user.name=Other Person', '-c', 'user.email=o@example.com');

    const all = await run(cwd, 'git_log');
    const lines = all.output.split('\n');
    expect(lines.map((l) => l.replace(/^[0-9a-f]{7,} /, '<hash> '))).toEqual([
      '<hash> 2024-03-01 [Other Person] add b',
      '<hash> 2021-06-01 [Tea Tester] add a',
      '<hash> 2020-01-01 [Tea Tester] initial commit',
    ]);
    expect(lines[0]?.split(' ')[0]).toBe(git(cwd, 'rev-parse', '--short', 'HEAD').trim());

    const two = await run(cwd, 'git_log', { max_count: 2 });
    expect(two.output.split('\n').slice(2)).toEqual([
      '… more commits exist; raise max_count (up to 500) or narrow',
    ]);

    expect((await run(cwd, 'git_log', { author: 'Other' })).output).toMatch(
      /^\S+ 2024-03-01 \[Other Person\] add b$/,
    );
    expect((await run(cwd, 'git_log', { path: 'a.txt' })).output).toMatch(
      /^\S+ 2021-06-01 \[Tea Tester\] add a$/,
    );
    expect((await run(cwd, 'git_log', { ref: 'HEAD~2' })).output).toMatch(
      /^\S+ 2020-01-01 \[Tea Tester\] initial commit$/,
    );
    expect((await run(cwd, 'git_log', { since: '2021-01-01' })).output.split('\n')).toHaveLength(2);
    expect((await run(cwd, 'git_log', { author: 'Nobody' })).output).toBe('No commits match');
  });

  it('says when there are no commits yet', async () => {
    const cwd = await tempDir();
    git(cwd, 'init', '-q', '-b', 'main');
    const r = await run(cwd, 'git_log');
    expect(r.output).toBe(
      '[ERROR] No commits yet in this repository\nHint: commit something first with git_commit',
    );
  });
});

describe('git_show', () => {
  it('shows a commit with its message and diff, or a file at a ref', async () => {
    const cwd = await makeRepo({ 'README.md': 'v1\n', 'sub/inner.txt': 'inner v1\n' });
    await commitFiles(
      cwd,
      { 'README.md': 'v2\n', 'sub/inner.txt': 'inner v2\n' },
      'Bump to v2\n\nLonger body.',
    );
    const hash = git(cwd, 'rev-parse', 'HEAD').trim();

    const commit = await run(cwd, 'git_show', { ref: 'HEAD' });
    expect(commit.output).toMatch(new RegExp(`^commit ${hash}\\nAuthor: +Tea Tester <tea@example.com>`));
    expect(commit.output).toContain('    Bump to v2\n    \n    Longer body.');
    expect(commit.output).toContain('2 files changed');
    expect(commit.output).toContain('-v1\n+v2');

    expect((await run(cwd, 'git_show', { ref: 'HEAD~1', path: 'README.md' })).output).toBe('v1');
    // Paths are relative to the workspace, even when it is a subdirectory of the repository.
    const fromSub = await runTool(
      registry,
      call('git_show', { ref: 'HEAD~1', path: 'inner.txt' }),
      makeCtx(join(cwd, 'sub')),
    );
    expect(fromSub.output).toBe('inner v1');

    const missing = await run(cwd, 'git_show', { ref: 'HEAD', path: 'nope.txt' });
    expect(missing.output).toMatch(/^\[ERROR\] git show failed: .*nope\.txt.* does not exist in 'HEAD'/);
    expect(missing.output).toContain('Hint: check the path with git_status');
  });

  it('does not print binary files', async () => {
    const cwd = await makeRepo();
    await writeFile(join(cwd, 'img.bin'), Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]));
    git(cwd, 'add', 'img.bin');
    git(cwd, 'commit', '-q', '-m', 'binary');
    expect((await run(cwd, 'git_show', { ref: 'HEAD', path: 'img.bin' })).output).toBe(
      'img.bin at HEAD is a binary file; not shown',
    );
  });
});

describe('git_blame', () => {
  it('annotates lines with commit, author and date, optionally a range', async () => {
    const cwd = await makeRepo({ 'f.txt': 'one\ntwo\nthree\n' });
    await writeTree(cwd, { 'f.txt': 'one\nTWO\nthree\n' });
    git(cwd, 'commit', '-q', '-a', '--author=Second Author <s@example.com>', '-m', 'shout');

    const all = await run(cwd, 'git_blame', { path: 'f.txt' });
    const lines = all.output.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^\^?[0-9a-f]{7,} \(Tea Tester +\d{4}-\d{2}-\d{2} 1\) one$/);
    expect(lines[1]).toMatch(/^[0-9a-f]{7,} \(Second Author +\d{4}-\d{2}-\d{2} 2\) TWO$/);

    const range = await run(cwd, 'git_blame', { path: 'f.txt', start_line: 2, end_line: 3 });
    expect(range.output.split('\n').map((l) => l.replace(/^.*\d{4}-\d{2}-\d{2} +/, ''))).toEqual([
      '2) TWO',
      '3) three',
    ]);

    const backwards = await run(cwd, 'git_blame', { path: 'f.txt', start_line: 3, end_line: 1 });
    expect(backwards.output).toBe(
      '[ERROR] end_line 1 is before start_line 3\nHint: pass end_line >= start_line, or leave it out to blame to the end',
    );

    await mkdir(join(cwd, 'new'));
    await writeFile(join(cwd, 'new', 'untracked.txt'), 'x\n');
    const untracked = await run(cwd, 'git_blame', { path: 'new/untracked.txt' });
    expect(untracked.output).toMatch(
      /^\[ERROR\] git blame failed: no such path 'new\/untracked\.txt' in HEAD/,
    );
  });
});
