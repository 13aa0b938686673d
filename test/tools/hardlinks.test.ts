/**
 * Hard links inside the workspace to files outside it: file tools refuse to read or
 * write them, multi-file tools leave them out; links whose every name is inside the
 * workspace stay usable. The sandbox cannot make such links (another mount).
 */
import { existsSync, linkSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { Sandbox } from '../../src/tools/sandbox/index.js';
import { runBuiltin, tempDir } from './helpers.js';
import { ON_LINUX, outsideTmp, requireBwrap } from './sandbox-helpers.js';

const SECRET = 'outside secret: do not read\n';
const REFUSAL =
  '[ERROR] Refusing to use "link.txt": it is a hard link, and 1 of its 2 links is outside the workspace\n' +
  'Hint: a hard link is the same file as its other links, so using it would read or change a file outside the workspace (pnpm stores and `git clone --local` make such links); if it is meant to be used, ask the user to replace it with a plain copy';

let ws: string;
let secretFile: string;

beforeEach(async () => {
  ws = await tempDir('tea-ws-');
  const outside = await tempDir('tea-outside-');
  secretFile = path.join(outside, 'secret.txt');
  writeFileSync(secretFile, SECRET);
  linkSync(secretFile, path.join(ws, 'link.txt'));
  writeFileSync(path.join(ws, 'plain.txt'), 'outside secret: a plain workspace file\n');
});

describe('a hard link to a file outside the workspace', () => {
  it('is refused by read_file, write_file, append_file and edit_file; the outside file is untouched', async () => {
    expect((await runBuiltin(ws, 'read_file', { path: 'link.txt' })).output).toBe(REFUSAL);
    const write = await runBuiltin(ws, 'write_file', { path: 'link.txt', content: 'overwritten' });
    expect(write.output).toBe(REFUSAL);
    expect((await runBuiltin(ws, 'append_file', { path: 'link.txt', content: 'more' })).output).toBe(REFUSAL);
    const edit = await runBuiltin(ws, 'edit_file', {
      path: 'link.txt',
      old_string: 'outside',
      new_string: 'x',
    });
    expect(edit.output).toBe(REFUSAL);
    expect(readFileSync(secretFile, 'utf8')).toBe(SECRET);
    // The same content in a file of its own is read normally.
    expect((await runBuiltin(ws, 'read_file', { path: 'plain.txt' })).output).toContain(
      'a plain workspace file',
    );
  });

  it('is refused by read_many_files, file_info and diff_files', async () => {
    const many = await runBuiltin(ws, 'read_many_files', { paths: ['plain.txt', 'link.txt'] });
    expect(many.output).toContain('a plain workspace file');
    expect(many.output).toContain('==> link.txt <==\n[error] Refusing to use "link.txt": it is a hard link');
    expect(many.output).not.toContain('do not read');
    expect((await runBuiltin(ws, 'file_info', { path: 'link.txt' })).output).toBe(REFUSAL);
    const diff = await runBuiltin(ws, 'diff_files', { a: 'plain.txt', b: 'link.txt' });
    expect(diff.output).toBe(REFUSAL);
  });

  it('is left out of grep, replace_in_files and copy_path, which say so', async () => {
    const grep = await runBuiltin(
      ws,
      'grep',
      { pattern: 'outside secret' },
      { tools: { grepBackend: 'js' } },
    );
    expect(grep.output).toBe(
      'plain.txt:1: outside secret: a plain workspace file\n' +
        '(left out 1 file that is a hard link to files outside the workspace: link.txt)',
    );
    const rg = await runBuiltin(ws, 'grep', { pattern: 'do not read' });
    expect(rg.output).toMatch(
      /^No matches for \/do not read\/ in \.; searched \d+ files?\n\(left out 1 file/,
    );
    const replace = await runBuiltin(ws, 'replace_in_files', {
      pattern: 'outside',
      replacement: 'inside',
      dry_run: false,
    });
    expect(replace.output).toContain('Replaced: 1 replacement in 1 file');
    expect(replace.output).toContain(
      '(left out 1 file that is a hard link to files outside the workspace: link.txt)',
    );
    expect(readFileSync(secretFile, 'utf8')).toBe(SECRET);
    mkdirSync(path.join(ws, 'dir'));
    linkSync(secretFile, path.join(ws, 'dir', 'inner.txt'));
    writeFileSync(path.join(ws, 'dir', 'ok.txt'), 'ok');
    const copy = await runBuiltin(ws, 'copy_path', { from: 'dir', to: 'copy' });
    expect(copy.output).toContain('left out a hard link to files outside the workspace: dir/inner.txt');
    expect(existsSync(path.join(ws, 'copy', 'inner.txt'))).toBe(false);
    expect(readFileSync(path.join(ws, 'copy', 'ok.txt'), 'utf8')).toBe('ok');
  });

  it('can still be deleted (that removes the link, not the outside file)', async () => {
    const r = await runBuiltin(ws, 'delete_path', { path: 'link.txt' });
    expect(r.isError).toBe(false);
    expect(existsSync(path.join(ws, 'link.txt'))).toBe(false);
    expect(readFileSync(secretFile, 'utf8')).toBe(SECRET);
  });
});

describe('hard links whose every name is inside the workspace', () => {
  it('are read and written like any file (cp -al copies, git objects of the workspace)', async () => {
    mkdirSync(path.join(ws, 'sub'));
    writeFileSync(path.join(ws, 'a.txt'), 'shared\n');
    linkSync(path.join(ws, 'a.txt'), path.join(ws, 'sub', 'b.txt'));
    expect((await runBuiltin(ws, 'read_file', { path: 'sub/b.txt' })).output).toContain('shared');
    const grep = await runBuiltin(ws, 'grep', { pattern: 'shared' }, { tools: { grepBackend: 'js' } });
    expect(grep.output).toBe('a.txt:1: shared\nsub/b.txt:1: shared');
    const edit = await runBuiltin(ws, 'edit_file', {
      path: 'a.txt',
      old_string: 'shared',
      new_string: 'edited',
    });
    expect(edit.isError).toBe(false);
  });

  it('count links in an added root as inside', async () => {
    const root = await tempDir('tea-root-');
    writeFileSync(path.join(root, 'r.txt'), 'in a root\n');
    linkSync(path.join(root, 'r.txt'), path.join(ws, 'r-link.txt'));
    const refused = await runBuiltin(ws, 'read_file', { path: 'r-link.txt' });
    expect(refused.isError).toBe(true);
    const allowed = await runBuiltin(
      ws,
      'read_file',
      { path: 'r-link.txt' },
      { ctx: { allowedRoots: [root] } },
    );
    expect(allowed.output).toContain('in a root');
  });
});

describe.runIf(ON_LINUX)('inside the sandbox', () => {
  it('a command cannot make a hard link from outside into the workspace (another mount); unsandboxed it can', async () => {
    requireBwrap();
    // Outside /tmp, so the sandbox can see it (its /tmp is private).
    const fx = outsideTmp('tea-link-');
    const visible = path.join(fx.dir, 'secret.txt');
    writeFileSync(visible, SECRET);
    const command = `ln ${visible} made-link.txt`;
    const boxed = await runBuiltin(
      ws,
      'bash',
      { command },
      { tools: { sandbox: new Sandbox({ mode: 'on' }) } },
    );
    expect(boxed.output).toMatch(
      /^exit code: 1\nln: failed to create hard link 'made-link.txt' => .*Invalid cross-device link$/,
    );
    expect(existsSync(path.join(ws, 'made-link.txt'))).toBe(false);
    // Unsandboxed the link works, when /var/tmp and /tmp are one file system (a tmpfs /tmp is not).
    const sameDevice = statSync(fx.dir).dev === statSync(ws).dev;
    const plain = await runBuiltin(ws, 'bash', { command });
    fx.cleanup();
    if (sameDevice) expect(plain.output).toBe('exit code: 0\n(no output)');
  });
});
