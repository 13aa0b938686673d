/**
 * Seeded bad self-patches that never reach a program: each is refused (or stopped at
 * gate 0) before anything is written, and the tree, the index, HEAD, the refs and the
 * stash are byte-identical afterwards. The boundaries of paths are attacked here.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../../src/evolve/self/lock.js';
import { selfModify } from '../../../src/evolve/self/pipeline.js';
import { errorText, expectRolledBack, runCase, useFixture } from './cases.js';
import { copyRepo, diffOf, FILES, git } from './fixture.js';

const fx = useFixture();
const MATH = 'src/tools/math.ts';

/** A new file `rel` holding `text`, as a hand-written git diff (paths git would refuse to print). */
function newFilePatch(rel: string, text = 'owned\n'): string {
  const lines = text.trimEnd().split('\n');
  return `diff --git a/${rel} b/${rel}\nnew file mode 100644\n--- /dev/null\n+++ b/${rel}\n@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}`).join('\n')}\n`;
}

const changeAdd = (): string =>
  diffOf(fx.template, fx.dir, { [MATH]: FILES[MATH]!.replace('return a + b;', 'return b + a;') });

describe('self_modify refuses, touching nothing', { timeout: 60_000 }, () => {
  it.concurrent('a patch that does not apply (its context is not in the file)', async () => {
    const patch = changeAdd().replace(' export function add', ' export function plus');
    const run = await runCase(fx, patch);
    expectRolledBack(run, 'refused', /does not apply: src\/tools\/math\.ts: a hunk does not match/);
  });

  it.concurrent('a patch escaping the repository with ../', async () => {
    const run = await runCase(fx, newFilePatch('../outside.txt'));
    expectRolledBack(run, 'refused', /"\.\.\/outside\.txt", which climbs out with "\.\."/);
    expect(existsSync(path.join(run.root, '..', 'outside.txt'))).toBe(false);
  });

  it.concurrent('a path hidden behind src/../../', async () => {
    const run = await runCase(fx, newFilePatch('src/../../x.ts'));
    expectRolledBack(run, 'refused', /climbs out/);
  });

  it.concurrent('an absolute path', async () => {
    const patch = '--- /dev/null\n+++ /tmp/tea-selfmod-absolute.txt\n@@ -0,0 +1 @@\n+owned\n';
    const run = await runCase(fx, patch);
    expectRolledBack(run, 'refused', /an absolute path/);
    expect(existsSync('/tmp/tea-selfmod-absolute.txt')).toBe(false);
  });

  it.concurrent('a patch touching .git/ (a hook), in any case', async () => {
    const run = await runCase(fx, newFilePatch('.git/hooks/pre-commit', '#!/bin/sh\nexit 0\n'));
    expectRolledBack(run, 'refused', /inside \.git/);
    const upper = await runCase(fx, newFilePatch('src/.GIT/config'));
    expectRolledBack(upper, 'refused', /inside \.git/);
  });

  it.concurrent('a patch to a symlink that points outside the repository', async () => {
    const outside = path.join(fx.dir, `outside-${Math.random().toString(36).slice(2)}.ts`);
    writeFileSync(outside, 'export const secret = 1;\n');
    const run = await runCase(
      fx,
      '--- a/src/outside.ts\n+++ b/src/outside.ts\n@@ -1 +1 @@\n-export const secret = 1;\n+export const secret = 2;\n',
      {
        setup: (root) => {
          symlinkSync(outside, path.join(root, 'src/outside.ts'));
          git(root, ['add', 'src/outside.ts']);
          git(root, ['commit', '-q', '-m', 'link']);
        },
      },
    );
    expectRolledBack(run, 'refused', /src\/outside\.ts is a symbolic link/);
    expect(readFileSync(outside, 'utf8')).toBe('export const secret = 1;\n');
  });

  it.concurrent('a new file under a symlinked directory', async () => {
    const outsideDir = path.join(fx.dir, `outdir-${Math.random().toString(36).slice(2)}`);
    mkdirSync(outsideDir);
    const run = await runCase(fx, newFilePatch('src/linked/evil.ts'), {
      setup: (root) => symlinkSync(outsideDir, path.join(root, 'src/linked')),
    });
    expectRolledBack(run, 'refused', /src\/linked is a symbolic link/);
    expect(existsSync(path.join(outsideDir, 'evil.ts'))).toBe(false);
  });

  it.concurrent('a binary blob (GIT binary patch)', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 0, 255]).toString('latin1');
    const patch = diffOf(fx.template, fx.dir, { 'src/logo.png': png });
    expect(patch).toContain('GIT binary patch');
    const run = await runCase(fx, patch);
    expectRolledBack(run, 'refused', /binary change/);
  });

  it.concurrent('a patch deleting a test file (tests that are gone cannot fail)', async () => {
    const run = await runCase(fx, diffOf(fx.template, fx.dir, { 'test/text.test.ts': null }));
    expectRolledBack(run, 'refused', /deletes the test file test\/text\.test\.ts/);
  });

  it.concurrent('a patch to package.json scripts that would skip the tests', async () => {
    const pkg = FILES['package.json']!.replace('"test": "vitest run"', '"test": "echo skipped"');
    const run = await runCase(fx, diffOf(fx.template, fx.dir, { 'package.json': pkg }));
    expectRolledBack(run, 'refused', /changes package\.json, which configures the gates/);
  });

  it.concurrent('a patch loosening tsconfig.json, biome.json or the vitest config', async () => {
    const tsconfig = FILES['tsconfig.json']!.replace('"strict": true', '"strict": false');
    const biome = FILES['biome.json']!.replace('"enabled": true', '"enabled": false');
    for (const [file, text] of [
      ['tsconfig.json', tsconfig],
      ['biome.json', biome],
      ['vitest.config.mjs', "export default { test: { include: ['none/**'] } };\n"],
      ['.gitignore', 'node_modules\nsrc/\n'],
    ] as const) {
      const run = await runCase(fx, diffOf(fx.template, fx.dir, { [file]: text }));
      expectRolledBack(
        run,
        'refused',
        new RegExp(`changes ${file.replace('.', '\\.')}, which configures the gates`),
      );
    }
  });

  it.concurrent('a patch creating an ignored file (coverage/)', async () => {
    const run = await runCase(fx, newFilePatch('coverage/notes.ts', 'export const n = 1;\n'));
    expectRolledBack(run, 'refused', /ignored paths: coverage\/notes\.ts/);
  });

  it.concurrent('not a diff at all, an empty reason, an empty patch', async () => {
    expectRolledBack(await runCase(fx, 'please make add faster'), 'refused', /not a unified diff/);
    expectRolledBack(await runCase(fx, changeAdd(), { reason: '  ' }), 'refused', /the reason is empty/);
    expectRolledBack(await runCase(fx, ' \n'), 'refused', /the patch is empty/);
  });

  it.concurrent('a patch touching a file with uncommitted changes (gate 0)', async () => {
    const run = await runCase(fx, changeAdd(), {
      setup: (root) => writeFileSync(path.join(root, MATH), `${FILES[MATH]}// a local edit\n`),
    });
    const text = expectRolledBack(run, 0, /uncommitted changes: src\/tools\/math\.ts/);
    expect(text).toContain('Nothing had been changed yet.');
  });

  it.concurrent('a patch touching a file with a staged change (gate 0)', async () => {
    const run = await runCase(fx, changeAdd(), {
      setup: (root) => {
        writeFileSync(path.join(root, MATH), `${FILES[MATH]}// staged\n`);
        git(root, ['add', MATH]);
        writeFileSync(path.join(root, MATH), FILES[MATH]!);
      },
    });
    expectRolledBack(run, 0, /uncommitted changes: src\/tools\/math\.ts/);
  });

  it.concurrent('a second self_modify while another process holds the lock under TEA_HOME', async () => {
    const holder = process.ppid;
    const run = await runCase(fx, changeAdd(), {
      prepareHome: (home) => {
        mkdirSync(path.join(home, 'self-modify'));
        writeFileSync(
          path.join(home, 'self-modify', 'lock'),
          JSON.stringify({ pid: holder, repo: '/elsewhere', startedAt: '2026-01-01T00:00:00.000Z' }),
        );
      },
    });
    expectRolledBack(
      run,
      'refused',
      new RegExp(`another self_modify is running \\(pid ${holder} in /elsewhere`),
    );
  });
});

describe("Tea's home", () => {
  it('may not lie inside the repository (directly or through a link): backups go elsewhere', async () => {
    const root = copyRepo(fx.template, fx.dir);
    const base = { root, reason: 'r', patch: changeAdd(), signal: new AbortController().signal };
    const direct = await selfModify({ ...base, home: path.join(root, '.tea') });
    expect(errorText(direct)).toMatch(
      /refused, nothing was changed: Tea's home \(.+\) is inside the repository/,
    );
    const link = path.join(fx.dir, `home-link-${Math.random().toString(36).slice(2)}`);
    symlinkSync(path.join(root, 'src'), link);
    const linked = await selfModify({ ...base, home: link });
    expect(errorText(linked)).toMatch(/is inside the repository/);
    expect(existsSync(path.join(root, '.tea'))).toBe(false);
    expect(existsSync(path.join(root, 'src', 'self-modify'))).toBe(false);
  });
});

describe('the lock', () => {
  it('is taken once, refused while its live holder runs, taken over from a dead one', async () => {
    const dir = path.join(fx.dir, `lock-${Math.random().toString(36).slice(2)}`);
    const first = await acquireLock(dir, '/repo', new Date());
    expect('release' in first).toBe(true);
    expect(await acquireLock(dir, '/repo', new Date())).toMatchObject({ pid: process.pid, repo: '/repo' });
    if ('release' in first) await first.release();
    expect(existsSync(path.join(dir, 'lock'))).toBe(false);
    // A lock left by a process that is gone.
    writeFileSync(path.join(dir, 'lock'), JSON.stringify({ pid: 2 ** 22 + 7, repo: '/x', startedAt: '' }));
    const taken = await acquireLock(dir, '/repo', new Date());
    expect('release' in taken).toBe(true);
    if ('release' in taken) await taken.release();
    // An unreadable lock counts as held while fresh.
    writeFileSync(path.join(dir, 'lock'), '');
    expect(await acquireLock(dir, '/repo', new Date())).toMatchObject({ pid: 0 });
    const later = new Date(Date.now() + 120_000);
    const stale = await acquireLock(dir, '/repo', later);
    expect('release' in stale).toBe(true);
  });
});

describe('the error text', () => {
  it('is model-readable: [ERROR] self_modify: … and a hint', () => {
    const text = errorText({
      ok: false,
      gate: 2,
      output: 'tsc -p tsconfig.json: 1 error(s)',
      hint: 'fix it',
    });
    expect(text).toBe(
      '[ERROR] self_modify: gate 2 (typecheck) failed\ntsc -p tsconfig.json: 1 error(s)\nNothing had been changed yet.\nHint: fix it',
    );
  });
});
