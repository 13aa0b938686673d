import { chmod, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitFiles, git, makeRepo, run, tempDir, writeTree } from './git-fixtures.js';

const currentBranch = (cwd: string): string => git(cwd, 'rev-parse', '--abbrev-ref', 'HEAD').trim();

describe('git_branch', () => {
  it('lists, creates, switches and deletes branches', async () => {
    const cwd = await makeRepo();
    await commitFiles(cwd, { 'a.txt': 'a\n' }, 'second');

    const list = await run(cwd, 'git_branch', { action: 'list' });
    expect(list.output).toMatch(/^\* main +[0-9a-f]{7,} second$/);

    expect((await run(cwd, 'git_branch', { action: 'create', name: 'feature' })).output).toBe(
      'Created branch feature at HEAD (not switched)',
    );
    expect(
      (await run(cwd, 'git_branch', { action: 'create', name: 'old', start_point: 'HEAD~1' })).output,
    ).toBe('Created branch old at HEAD~1 (not switched)');
    expect(git(cwd, 'rev-parse', 'old').trim()).toBe(git(cwd, 'rev-parse', 'HEAD~1').trim());
    expect(currentBranch(cwd)).toBe('main');

    expect((await run(cwd, 'git_branch', { action: 'switch', name: 'feature' })).output).toBe(
      'Switched to branch feature',
    );
    expect(currentBranch(cwd)).toBe('feature');
    const after = (await run(cwd, 'git_branch', { action: 'list' })).output.split('\n');
    expect(after.map((l) => l.slice(0, 10).trimEnd())).toEqual(['* feature', '  main', '  old']);

    // `old` is behind main, so it is merged and may be deleted.
    const deleted = await run(cwd, 'git_branch', { action: 'delete', name: 'old' });
    expect(deleted.output).toMatch(/^Deleted branch old \(was [0-9a-f]+\)\.$/);
    expect(git(cwd, 'branch', '--list', 'old')).toBe('');
  });

  it('explains missing names, unknown branches and unmerged deletes', async () => {
    const cwd = await makeRepo();
    const noName = await run(cwd, 'git_branch', { action: 'create' });
    expect(noName.output).toBe(
      '[ERROR] git_branch action "create" needs a name\nHint: pass name, e.g. "feature/login"',
    );

    const option = await run(cwd, 'git_branch', { action: 'create', name: '--force' });
    expect(option.output).toMatch(/^\[ERROR\] The branch name "--force" starts with "-"/);

    const missing = await run(cwd, 'git_branch', { action: 'switch', name: 'nope' });
    expect(missing.output).toBe(
      '[ERROR] git switch failed: invalid reference: nope\nHint: the branch does not exist; create it first with action "create"',
    );

    git(cwd, 'switch', '-q', '-c', 'work');
    await commitFiles(cwd, { 'w.txt': 'w\n' }, 'unmerged work');
    git(cwd, 'switch', '-q', 'main');
    const unmerged = await run(cwd, 'git_branch', { action: 'delete', name: 'work' });
    expect(unmerged.output).toMatch(/^\[ERROR\] git branch failed: .*not fully merged/);
    expect(unmerged.output).toContain('Hint: merge the branch first');
    expect(git(cwd, 'branch', '--list', 'work').trim()).toBe('work');
  });
});

describe('git_add', () => {
  it('stages new, modified and deleted files and says what it staged', async () => {
    const cwd = await makeRepo({ 'README.md': 'hello\n', 'old.txt': 'old\n' });
    await writeTree(cwd, { 'README.md': 'changed\n', 'src/new.ts': 'export {};\n', 'skip.txt': 'not me\n' });
    await rm(join(cwd, 'old.txt'));
    const r = await run(cwd, 'git_add', { paths: ['README.md', 'src', 'old.txt'] });
    expect(r.output).toBe('Staged (3):\n  M README.md\n  D old.txt\n  A src/new.ts');
    expect(git(cwd, 'status', '--porcelain')).toBe('M  README.md\nD  old.txt\nA  src/new.ts\n?? skip.txt\n');

    const again = await run(cwd, 'git_add', { paths: ['README.md'] });
    expect(again.output).toBe('Staged (1):\n  M README.md');
  });

  it('refuses paths outside the workspace and reports unknown ones', async () => {
    const cwd = await makeRepo();
    const outside = await run(cwd, 'git_add', { paths: ['../../etc/passwd'] });
    expect(outside.output).toMatch(/^\[ERROR\] Path "\.\.\/\.\.\/etc\/passwd" is outside the workspace/);

    const unknown = await run(cwd, 'git_add', { paths: ['nope.txt'] });
    expect(unknown.output).toBe(
      "[ERROR] git add failed: pathspec 'nope.txt' did not match any files\nHint: check the path with git_status or list_dir; paths are relative to the workspace",
    );
    expect((await run(cwd, 'git_add', { paths: ['README.md'] })).output).toBe(
      'Nothing to stage in README.md (no changes)',
    );
    expect((await run(cwd, 'git_add', { paths: [] })).output).toMatch(
      /^\[ERROR\] Invalid arguments for git_add: paths/,
    );
  });
});

describe('git_commit', () => {
  it('commits staged changes with the exact message and reports the hash', async () => {
    const cwd = await makeRepo();
    await writeTree(cwd, { 'README.md': 'v2\n' });
    git(cwd, 'add', 'README.md');
    const message = 'feat: second version\n\n- keeps # this line\n- and this one';
    const r = await run(cwd, 'git_commit', { message });
    const hash = git(cwd, 'rev-parse', 'HEAD').trim();
    expect(r.status).toBe('ok');
    expect(r.output.split('\n')[0]).toBe(`Committed ${hash.slice(0, 12)} (${hash})`);
    expect(r.output).toContain('1 file changed, 1 insertion(+), 1 deletion(-)');
    expect(git(cwd, 'log', '-1', '--format=%B').trim()).toBe(message);
    expect(git(cwd, 'status', '--porcelain')).toBe('');
  });

  it('commits all tracked changes with all=true and rewrites the last commit with amend', async () => {
    const cwd = await makeRepo();
    await writeTree(cwd, { 'README.md': 'v2\n', 'untracked.txt': 'u\n' });
    const all = await run(cwd, 'git_commit', { message: 'update readme', all: true });
    expect(all.output).toMatch(/^Committed [0-9a-f]{12} /);
    expect(git(cwd, 'status', '--porcelain')).toBe('?? untracked.txt\n');

    const count = git(cwd, 'rev-list', '--count', 'HEAD').trim();
    const amended = await run(cwd, 'git_commit', { message: 'update the readme', amend: true });
    expect(amended.output).toMatch(/^Amended [0-9a-f]{12} /);
    expect(git(cwd, 'rev-list', '--count', 'HEAD').trim()).toBe(count);
    expect(git(cwd, 'log', '-1', '--format=%s').trim()).toBe('update the readme');
  });

  it('refuses an empty message and says clearly when nothing is staged', async () => {
    const cwd = await makeRepo();
    const empty = await run(cwd, 'git_commit', { message: '   ' });
    expect(empty.output).toMatch(/^\[ERROR\] Invalid arguments for git_commit: message: must not be empty/);

    const nothingHint =
      'Hint: stage files with git_add first (see git_status), or pass all=true to commit every modified tracked file';
    await writeTree(cwd, { 'new.txt': 'n\n', 'README.md': 'changed\n' });
    expect((await run(cwd, 'git_commit', { message: 'x' })).output).toBe(
      `[ERROR] Nothing to commit: no changes are staged\n${nothingHint}`,
    );
    git(cwd, 'checkout', '--', 'README.md');
    // Only an untracked file: all=true has nothing to take either.
    expect((await run(cwd, 'git_commit', { message: 'x', all: true })).output).toBe(
      `[ERROR] Nothing to commit: no changes are staged\n${nothingHint}`,
    );
    expect(git(cwd, 'rev-list', '--count', 'HEAD').trim()).toBe('1');
  });

  it('refuses to commit when a hook would run, and never runs it', async () => {
    const cwd = await makeRepo();
    const hook = join(cwd, '.git', 'hooks', 'pre-commit');
    await writeFile(hook, `#!/bin/sh\ntouch '${cwd}/hook-ran'\n`);
    await chmod(hook, 0o755);
    await writeTree(cwd, { 'README.md': 'v2\n' });
    git(cwd, 'add', 'README.md');
    const r = await run(cwd, 'git_commit', { message: 'try' });
    expect(r.output).toBe(
      '[ERROR] git commit -m try was not run: it would run programs this repository sets up, and git tools never run those:\n' +
        `  - pre-commit hook (${hook})\n` +
        'Hint: if the user trusts this repository, run the same git command with bash (it asks for approval to run commands), or ask the user to run it',
    );
    expect(git(cwd, 'rev-list', '--count', 'HEAD').trim()).toBe('1');
    await expect(stat(join(cwd, 'hook-ran'))).rejects.toThrow();

    // A hook git would not run (not executable) is no reason to refuse.
    await chmod(hook, 0o644);
    expect((await run(cwd, 'git_commit', { message: 'try' })).output).toMatch(/^Committed [0-9a-f]{12} /);
  });
});

describe('git_stash', () => {
  it('pushes, lists, shows, pops and drops', async () => {
    const cwd = await makeRepo();
    await writeTree(cwd, { 'README.md': 'work in progress\n' });
    const pushed = await run(cwd, 'git_stash', { action: 'push', message: 'wip readme' });
    expect(pushed.output).toBe('Saved working directory and index state On main: wip readme');
    expect(await readFile(join(cwd, 'README.md'), 'utf8')).toBe('hello\n');

    await writeTree(cwd, { 'README.md': 'second try\n' });
    await run(cwd, 'git_stash', { action: 'push' });
    expect((await run(cwd, 'git_stash', { action: 'list' })).output).toMatch(
      /^stash@\{0\}: WIP on main: [0-9a-f]+ initial commit\nstash@\{1\}: On main: wip readme$/,
    );

    const shown = await run(cwd, 'git_stash', { action: 'show', index: 1 });
    expect(shown.output).toContain('README.md | 2 +-');
    expect(shown.output).toContain('-hello\n+work in progress');

    const dropped = await run(cwd, 'git_stash', { action: 'drop', index: 0 });
    expect(dropped.output).toMatch(/^Dropped stash@\{0\} \([0-9a-f]+\)$/);

    const popped = await run(cwd, 'git_stash', { action: 'pop' });
    expect(popped.status).toBe('ok');
    expect(await readFile(join(cwd, 'README.md'), 'utf8')).toBe('work in progress\n');
    expect((await run(cwd, 'git_stash', { action: 'list' })).output).toBe('No stashes');
  });

  it('says when there is nothing to stash or pop', async () => {
    const cwd = await makeRepo();
    expect((await run(cwd, 'git_stash', { action: 'push' })).output).toBe(
      'No local changes to save; nothing was stashed',
    );
    const pop = await run(cwd, 'git_stash', { action: 'pop' });
    expect(pop.status).toBe('error');
    expect(pop.output).toBe('[ERROR] git stash failed: No stash entries found.');
  });
});

describe('git_checkout_file', () => {
  it('restores a file from HEAD or a ref and says what was discarded', async () => {
    const cwd = await makeRepo({ 'f.txt': 'one\ntwo\n' });
    await commitFiles(cwd, { 'f.txt': 'one\nTWO\n' }, 'second');
    await writeTree(cwd, { 'f.txt': 'scribbles\n' });
    git(cwd, 'add', 'f.txt');
    await writeTree(cwd, { 'f.txt': 'more scribbles\n' });

    const restored = await run(cwd, 'git_checkout_file', { path: 'f.txt' });
    const kept =
      /^Restored f\.txt from HEAD \(3 changed lines discarded; the discarded content is kept: git cat-file -p ([0-9a-f]{12})\)$/.exec(
        restored.output,
      );
    expect(kept).not.toBeNull();
    expect(await readFile(join(cwd, 'f.txt'), 'utf8')).toBe('one\nTWO\n');
    expect(git(cwd, 'status', '--porcelain')).toBe('');
    // Nothing is lost: the discarded working copy can be read back.
    expect(git(cwd, 'cat-file', '-p', kept?.[1] ?? 'missing')).toBe('more scribbles\n');

    expect((await run(cwd, 'git_checkout_file', { path: 'f.txt' })).output).toBe(
      'f.txt already matched HEAD; nothing changed',
    );

    const older = await run(cwd, 'git_checkout_file', { path: 'f.txt', ref: 'HEAD~1' });
    expect(older.output).toMatch(
      /^Restored f\.txt from HEAD~1 \(2 changed lines discarded; the discarded content is kept: /,
    );
    expect(await readFile(join(cwd, 'f.txt'), 'utf8')).toBe('one\ntwo\n');
  });

  it('refuses paths outside the workspace and unknown files', async () => {
    const cwd = await makeRepo();
    const outsideDir = await tempDir();
    const outside = await run(cwd, 'git_checkout_file', { path: join(outsideDir, 'x.txt') });
    expect(outside.output).toMatch(/^\[ERROR\] Path ".*x\.txt" is outside the workspace/);

    const unknown = await run(cwd, 'git_checkout_file', { path: 'nope.txt' });
    expect(unknown.output).toMatch(/^\[ERROR\] git checkout failed: pathspec 'nope\.txt' did not match/);
    expect(unknown.output).toContain('Hint: check the path');
  });
});
