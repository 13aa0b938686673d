import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolError } from '../../src/tools/types.js';
import { displayPath, expandHome, resolvePath } from '../../src/tools/workspace.js';
import { tempDir } from './helpers.js';

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
      new RegExp(`use a path inside the workspace ${cwd}`),
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
