import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/tools/types.js';
import { containsRoot, displayPath, expandHome, resolvePath, rootOf } from '../../src/tools/workspace.js';
import { runFile, snapshot } from './files-helpers.js';
import { tempDir, writeTree } from './helpers.js';

function expectToolError(fn: () => unknown, message: RegExp, hint: RegExp): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolError);
    expect((error as ToolError).message).toMatch(message);
    expect((error as ToolError).hint).toMatch(hint);
    return;
  }
  throw new Error('expected a ToolError');
}

describe('resolvePath', () => {
  it('resolves relative paths against cwd, also for paths that do not exist yet', async () => {
    const cwd = await tempDir();
    await mkdir(join(cwd, 'src'));
    expect(resolvePath({ cwd }, 'src')).toBe(join(cwd, 'src'));
    expect(resolvePath({ cwd }, 'src/new/deep.txt')).toBe(join(cwd, 'src/new/deep.txt'));
    expect(resolvePath({ cwd }, './src/../src')).toBe(join(cwd, 'src'));
    expect(resolvePath({ cwd }, join(cwd, 'src'))).toBe(join(cwd, 'src'));
    expect(resolvePath({ cwd }, '.')).toBe(cwd);
  });

  it('refuses .. escapes and absolute paths outside the workspace with a hint', async () => {
    const cwd = await tempDir();
    expectToolError(
      () => resolvePath({ cwd }, '../outside.txt'),
      /^Path "\.\.\/outside\.txt" is outside the workspace/,
      new RegExp(
        `use a path inside the workspace ${cwd}; the user can allow another folder with --add-dir <dir>`,
      ),
    );
    expectToolError(
      () => resolvePath({ cwd }, '/etc/passwd'),
      /outside the workspace/,
      /inside the workspace/,
    );
  });

  it('refuses symlinks that point outside, even dangling ones and through parents', async () => {
    const cwd = await tempDir();
    const outside = await tempDir();
    await writeFile(join(outside, 'secret.txt'), 'secret');
    await symlink(outside, join(cwd, 'linkdir'));
    await symlink(join(outside, 'secret.txt'), join(cwd, 'link.txt'));
    await symlink(join(outside, 'not-yet.txt'), join(cwd, 'dangling.txt'));
    expectToolError(
      () => resolvePath({ cwd }, 'linkdir/secret.txt'),
      /outside the workspace.*->/,
      /workspace/,
    );
    expectToolError(() => resolvePath({ cwd }, 'linkdir/new.txt'), /outside the workspace/, /workspace/);
    expectToolError(() => resolvePath({ cwd }, 'link.txt'), /outside the workspace/, /workspace/);
    expectToolError(() => resolvePath({ cwd }, 'dangling.txt'), /outside the workspace/, /workspace/);
    // A symlink that stays inside is fine and resolves to its target.
    await writeFile(join(cwd, 'real.txt'), 'x');
    await symlink(join(cwd, 'real.txt'), join(cwd, 'inner-link.txt'));
    expect(resolvePath({ cwd }, 'inner-link.txt')).toBe(join(cwd, 'real.txt'));
  });

  it('allows extra roots, relative or absolute, and names them in the hint', async () => {
    const cwd = await tempDir();
    const extra = await tempDir();
    await writeFile(join(extra, 'shared.txt'), 'x');
    expect(resolvePath({ cwd, allowedRoots: [extra] }, join(extra, 'shared.txt'))).toBe(
      join(extra, 'shared.txt'),
    );
    await symlink(extra, join(cwd, 'to-extra'));
    expect(resolvePath({ cwd, allowedRoots: [extra] }, 'to-extra/shared.txt')).toBe(
      join(extra, 'shared.txt'),
    );
    expectToolError(
      () => resolvePath({ cwd, allowedRoots: [extra] }, '/etc/hosts'),
      /outside the workspace/,
      new RegExp(`allowed roots: ${extra}`),
    );
  });

  it('checks existence when asked', async () => {
    const cwd = await tempDir();
    expectToolError(
      () => resolvePath({ cwd }, 'missing.txt', { mustExist: true }),
      /^No such file or directory: missing\.txt$/,
      /path does not exist; list the directory or use glob/,
    );
    expectToolError(() => resolvePath({ cwd }, '  '), /path is empty/, /pass a file/);
  });

  it('expands ~ and shows paths relative to the workspace', async () => {
    const cwd = await tempDir();
    expect(expandHome('~')).toBe(homedir());
    expect(expandHome('~/x')).toBe(join(homedir(), 'x'));
    expect(expandHome('a/~')).toBe('a/~');
    expect(displayPath({ cwd }, join(cwd, 'a/b.txt'))).toBe('a/b.txt');
    expect(displayPath({ cwd }, cwd)).toBe('.');
    expect(displayPath({ cwd }, '/elsewhere/x')).toBe('/elsewhere/x');
    expectToolError(() => resolvePath({ cwd }, '~/x'), /outside the workspace/, /workspace/);
    expect(resolvePath({ cwd, allowedRoots: ['~'] }, '~/x')).toBe(join(homedir(), 'x'));
  });
});

describe('resolvePath for writing', () => {
  it('refuses .git and anything below it, in every root, also through a symlink', async () => {
    const cwd = await tempDir();
    const extra = await tempDir();
    await mkdir(join(cwd, '.git/hooks'), { recursive: true });
    await mkdir(join(cwd, 'vendor/lib/.git'), { recursive: true });
    await mkdir(join(extra, '.git'));
    await symlink(join(cwd, '.git'), join(cwd, 'gitlink'));
    const ctx = { cwd, allowedRoots: [extra] };
    for (const p of [
      '.git',
      '.git/',
      '.git/config',
      '.git/hooks/pre-commit',
      'vendor/lib/.git/HEAD',
      'gitlink/config',
      join(extra, '.git/x'),
    ]) {
      expectToolError(
        () => resolvePath(ctx, p, { write: true }),
        /^Refusing to write ".*": it is inside a \.git directory$/,
        /git internals are off limits/,
      );
      // Reading is still allowed.
      expect(() => resolvePath(ctx, p)).not.toThrow();
    }
    expectToolError(() => resolvePath(ctx, 'gitlink', { write: true }), /inside a \.git directory/, /git/);
    expect(resolvePath(ctx, '.gitignore', { write: true })).toBe(join(cwd, '.gitignore'));
    expect(resolvePath(ctx, '.github/workflows/ci.yml', { write: true })).toBe(
      join(cwd, '.github/workflows/ci.yml'),
    );
    expect(resolvePath(ctx, 'src/my.git/x', { write: true })).toBe(join(cwd, 'src/my.git/x'));
  });

  it('with keepLink addresses the link itself, still checking where it lives', async () => {
    const cwd = await tempDir();
    const outside = await tempDir();
    await writeFile(join(cwd, 'real.txt'), 'x');
    await symlink(join(cwd, 'real.txt'), join(cwd, 'inner-link'));
    await symlink(join(outside, 'x'), join(cwd, 'out-link'));
    await symlink(outside, join(cwd, 'out-dir'));
    expect(resolvePath({ cwd }, 'inner-link', { keepLink: true })).toBe(join(cwd, 'inner-link'));
    expect(resolvePath({ cwd }, 'out-link', { keepLink: true, mustExist: true })).toBe(join(cwd, 'out-link'));
    expectToolError(
      () => resolvePath({ cwd }, 'out-dir/x', { keepLink: true }),
      /outside the workspace/,
      /workspace/,
    );
    expectToolError(
      () => resolvePath({ cwd }, 'gone', { keepLink: true, mustExist: true }),
      /No such file/,
      /glob/,
    );
  });

  it('knows which root holds a path and whether a path contains a root', async () => {
    const cwd = await tempDir();
    await mkdir(join(cwd, 'nested'));
    const ctx = { cwd, allowedRoots: [join(cwd, 'nested')] };
    expect(rootOf(ctx, join(cwd, 'nested/a.txt'))).toBe(join(cwd, 'nested'));
    expect(rootOf(ctx, join(cwd, 'b.txt'))).toBe(cwd);
    expect(rootOf(ctx, '/elsewhere')).toBeUndefined();
    expect(containsRoot(ctx, cwd)).toBe(true);
    expect(containsRoot(ctx, join(cwd, 'nested'))).toBe(true);
    expect(containsRoot(ctx, join(cwd, 'other'))).toBe(false);
  });
});

describe('every file tool refuses every way out of the workspace', () => {
  type Case = { tool: string; args: (p: string) => Record<string, unknown>; linkItself?: boolean };
  const cases: Case[] = [
    { tool: 'read_file', args: (p) => ({ path: p }) },
    { tool: 'read_many_files', args: (p) => ({ paths: [p] }) },
    { tool: 'write_file', args: (p) => ({ path: p, content: 'pwned' }) },
    { tool: 'append_file', args: (p) => ({ path: p, content: 'pwned' }) },
    { tool: 'edit_file', args: (p) => ({ path: p, old_string: 'secret', new_string: 'pwned' }) },
    {
      tool: 'apply_patch',
      args: (p) => ({ patch: `*** Begin Patch\n*** Add File: ${p}\n+pwned\n*** End Patch` }),
    },
    {
      tool: 'apply_patch',
      args: (p) => ({ patch: `*** Begin Patch\n*** Update File: ${p}\n-secret\n+pwned\n*** End Patch` }),
    },
    {
      tool: 'apply_patch',
      args: (p) => ({ patch: `*** Begin Patch\n*** Delete File: ${p}\n*** End Patch` }),
      linkItself: true,
    },
    {
      tool: 'apply_patch',
      args: (p) => ({
        patch: `*** Begin Patch\n*** Update File: in.txt\n*** Move to: ${p}\n-inside\n+x\n*** End Patch`,
      }),
    },
    { tool: 'list_dir', args: (p) => ({ path: p }) },
    { tool: 'tree', args: (p) => ({ path: p }) },
    { tool: 'glob', args: (p) => ({ pattern: '*', path: p }) },
    { tool: 'file_info', args: (p) => ({ path: p }), linkItself: true },
    { tool: 'diff_files', args: (p) => ({ a: 'in.txt', b: p }) },
    { tool: 'diff_files', args: (p) => ({ a: p, b: 'in.txt' }) },
    { tool: 'delete_path', args: (p) => ({ path: p, recursive: true }), linkItself: true },
    { tool: 'move_path', args: (p) => ({ from: p, to: 'moved' }), linkItself: true },
    { tool: 'move_path', args: (p) => ({ from: 'in.txt', to: p, overwrite: true }) },
    { tool: 'copy_path', args: (p) => ({ from: p, to: 'copied' }) },
    { tool: 'copy_path', args: (p) => ({ from: 'in.txt', to: p, overwrite: true }) },
    { tool: 'make_dir', args: (p) => ({ path: p }) },
  ];

  it('.., absolute, ~, symlinked directories and files, dangling links', async () => {
    const outside = await writeTree(await tempDir('tea-outside-'), {
      'secret.txt': 'secret\n',
      'dir/x.txt': 'x',
    });
    const expected = await snapshot(outside);
    for (const c of cases) {
      const cwd = await writeTree(await tempDir(), { 'in.txt': 'inside\n' });
      await symlink(outside, join(cwd, 'linkdir'));
      await symlink(join(outside, 'secret.txt'), join(cwd, 'link.txt'));
      await symlink(join(outside, 'not-yet.txt'), join(cwd, 'dangling.txt'));
      const escapes: Array<[string, boolean]> = [
        [join(relative(cwd, outside), 'secret.txt'), false],
        [join(outside, 'secret.txt'), false],
        [join(outside, 'dir'), false],
        ['~/tea-escape-check/secret.txt', false],
        ['linkdir/secret.txt', false],
        ['linkdir/dir', false],
        ['link.txt', true],
        ['dangling.txt', true],
      ];
      for (const [p, isLink] of escapes) {
        const r = await runFile(cwd, c.tool, c.args(p));
        const label = `${c.tool} ${JSON.stringify(c.args(p))}`;
        if (isLink && c.linkItself) {
          // Acting on the link itself (inspect, delete, move it) never touches its target.
          continue;
        }
        expect(r.output, label).toMatch(/outside the workspace/);
        expect(r.isError, label).toBe(true);
      }
      expect(await snapshot(outside), c.tool).toEqual(expected);
    }
  });
});
