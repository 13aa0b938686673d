/**
 * Good self-patches: one lands as exactly one commit holding only its files, with the
 * reason and the test summary, while the user's own uncommitted and staged changes
 * elsewhere stay as they were; a check-only run passes every gate and leaves the tree,
 * index, HEAD and stash byte-identical; the apply_patch envelope (with a move) works too.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { successText } from '../../../src/evolve/self/result.js';
import { errorText, runCase, useFixture } from './cases.js';
import { diffOf, FILES, GIT_USER, git } from './fixture.js';

const fx = useFixture();
const MATH = 'src/tools/math.ts';
const SUB = '\nexport function sub(a: number, b: number): number {\n  return a - b;\n}\n';
const SUB_TEST =
  "import { expect, it } from 'vitest';\nimport { sub } from '../src/tools/math.js';\n\nit('subtracts', () => {\n  expect(sub(5, 3)).toBe(2);\n});\n";

describe('a good self-patch', { timeout: 120_000 }, () => {
  it.concurrent('lands as exactly one commit with the reason and the test summary', async () => {
    const patch = diffOf(fx.template, fx.dir, { [MATH]: FILES[MATH] + SUB, 'test/sub.test.ts': SUB_TEST });
    let head = '';
    const run = await runCase(fx, patch, {
      reason: 'Add sub() beside add() and mul()',
      setup: (root) => {
        head = git(root, ['rev-parse', 'HEAD']).trim();
        // The user's own work in progress, which the commit must not take.
        writeFileSync(path.join(root, 'README.md'), '# tea-agent fixture\n\nwork in progress\n');
        writeFileSync(
          path.join(root, 'src/tools/registry.ts'),
          "export const TOOL_NAMES: readonly string[] = ['add'];\n",
        );
        git(root, ['add', 'src/tools/registry.ts']);
      },
    });
    if (!run.result.ok) throw new Error(JSON.stringify(run.result));
    const { root, result } = run;
    expect(result.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(git(root, ['rev-parse', 'HEAD']).trim()).toBe(result.commit);
    expect(git(root, ['rev-parse', 'HEAD~1']).trim()).toBe(head);
    expect(git(root, ['show', '--name-status', '--format=', 'HEAD']).trim().split('\n')).toEqual([
      `M\t${MATH}`,
      'A\ttest/sub.test.ts',
    ]);
    expect(git(root, ['log', '-1', '--format=%B'])).toBe(
      'Add sub() beside add() and mul()\n\nTests: 4 files, 6 passed\nSelf-modified by Tea Agent: typecheck, lint (0 → 0 findings) and tests passed.\n\n',
    );
    expect(git(root, ['log', '-1', '--format=%an <%ae>']).trim()).toBe('Fixture <fixture@example.com>');
    // The user's staged and unstaged changes are still theirs, as they were.
    expect(git(root, ['diff', '--cached', '--name-only']).trim()).toBe('src/tools/registry.ts');
    expect(git(root, ['diff', '--name-only']).trim()).toBe('README.md');
    expect(git(root, ['status', '--porcelain']).split('\n').filter(Boolean).sort()).toEqual([
      ' M README.md',
      'M  src/tools/registry.ts',
    ]);
    expect(readFileSync(path.join(root, MATH), 'utf8')).toBe(FILES[MATH] + SUB);
    expect(run.after.git.stash).toBe(run.before.git.stash);
    expect(git(root, ['reflog', '-1', '--format=%gs']).trim()).toBe(
      'self_modify: Add sub() beside add() and mul()',
    );
    const text = successText(result);
    expect(text).toMatch(/^self_modify: committed [0-9a-f]{40} on main\.\nTests: 4 files, 6 passed\n/);
    expect(text).toContain('Files: M src/tools/math.ts, A test/sub.test.ts');
    // The backup holds the file as it was, and a record of the new one.
    const manifest = JSON.parse(readFileSync(path.join(result.backupDir, 'manifest.json'), 'utf8'));
    expect(manifest.files).toEqual([
      expect.objectContaining({ path: MATH, existed: true, size: FILES[MATH]!.length }),
      { path: 'test/sub.test.ts', existed: false, afterSha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    ]);
    expect(readFileSync(path.join(result.backupDir, 'state'), 'utf8')).toBe('committed\n');
    expect(readFileSync(path.join(result.backupDir, 'files', MATH), 'utf8')).toBe(FILES[MATH]);
    expect(result.backupDir.startsWith(run.home)).toBe(true);
  });

  it.concurrent('is not committed when HEAD moved while the gates ran; the tree is restored', async () => {
    const patch = diffOf(fx.template, fx.dir, { [MATH]: FILES[MATH] + SUB });
    let root = '';
    const run = await runCase(fx, patch, {
      setup: (r) => {
        root = r;
      },
      onGate: (n) => {
        // Someone commits while the tests run.
        if (n === 4) git(root, [...GIT_USER, 'commit', '-q', '--allow-empty', '-m', 'meanwhile']);
      },
    });
    const text = errorText(run.result);
    expect(text).toMatch(/^\[ERROR\] self_modify: every gate passed, but the commit failed\ngit update-ref/);
    expect(text).toContain('The tree was restored byte for byte');
    expect(text).toMatch(/Hint: the tree was restored; if HEAD moved meanwhile/);
    expect(run.after.files).toEqual(run.before.files);
    expect(git(root, ['log', '-1', '--format=%s']).trim()).toBe('meanwhile');
  });

  it.concurrent('check_only runs every gate, commits nothing and restores the tree exactly', async () => {
    // The apply_patch envelope, with a move: text.ts becomes words.ts and its importers follow.
    const patch = [
      '*** Begin Patch',
      '*** Update File: src/util/text.ts',
      '*** Move to: src/util/words.ts',
      '*** Update File: src/runtime/runtime.ts',
      '@@',
      "-import { shout } from '../util/text.js';",
      "+import { shout } from '../util/words.js';",
      '*** Update File: test/text.test.ts',
      '@@',
      "-import { shout } from '../src/util/text.js';",
      "+import { shout } from '../src/util/words.js';",
      '*** End Patch',
    ].join('\n');
    const run = await runCase(fx, patch, { checkOnly: true });
    if (!run.result.ok) throw new Error(JSON.stringify(run.result));
    expect(run.result.commit).toBeUndefined();
    expect(run.result.files).toEqual([
      { path: 'src/util/words.ts', kind: 'add' },
      { path: 'src/util/text.ts', kind: 'delete' },
      { path: 'src/runtime/runtime.ts', kind: 'modify' },
      { path: 'test/text.test.ts', kind: 'modify' },
    ]);
    expect(run.result.restore?.verified).toBe(true);
    expect(run.after).toEqual(run.before);
    const text = successText(run.result);
    expect(text).toMatch(
      /^self_modify \(check only\): every gate passed; nothing was committed\.\nTests: 3 files, 5 passed\n/,
    );
    expect(text).toContain('The tree was restored byte for byte');
  });
});
