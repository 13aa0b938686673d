/**
 * The pieces of self_modify that need no gate: own-repo detection (both ways, with
 * decoys), reading patches (git and plain unified diffs, renames, modes), the path
 * boundaries as a table of break-in attempts, and the gates' small parsers.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { detectOwnRepo, isTeaRepo } from '../../../src/evolve/self/detect.js';
import { drift } from '../../../src/evolve/self/finish.js';
import { type Finding, newFindings, typecheckProjects } from '../../../src/evolve/self/gates.js';
import { snapshotTree } from '../../../src/evolve/self/git.js';
import { namedPaths, PatchRefused, readPatch } from '../../../src/evolve/self/patch.js';
import { checkName, planChanges } from '../../../src/evolve/self/plan.js';
import { gateEnv } from '../../../src/evolve/self/proc.js';
import { useFixture } from './cases.js';
import { copyRepo, diffOf, FILES, git } from './fixture.js';

const fx = useFixture();
const MATH = 'src/tools/math.ts';

/** A directory with just these files (no fixture), removed after the file's tests. */
const scratch: string[] = [];
afterAll(() => {
  for (const d of scratch) rmSync(d, { recursive: true, force: true });
});
function dirWith(files: Record<string, string>, gitInit = true): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'tea-decoy-'));
  scratch.push(root);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    writeFileSync(path.join(root, rel), text);
  }
  if (gitInit) git(root, ['init', '-q']);
  return root;
}

const LAYOUT = {
  'src/agent/agent.ts': '',
  'src/tools/registry.ts': '',
  'src/runtime/runtime.ts': '',
};

describe("detecting Tea's own repository", () => {
  it('finds the fixture from its root and from a folder inside it', () => {
    const root = copyRepo(fx.template, fx.dir);
    expect(detectOwnRepo(root)).toEqual({ root });
    expect(detectOwnRepo(path.join(root, 'src', 'tools'))).toEqual({ root });
  });

  it('finds this checkout (a linked worktree: .git is a file) and a worktree of the fixture', () => {
    const here = path.resolve(import.meta.dirname, '..', '..', '..');
    expect(detectOwnRepo(path.join(here, 'src'))?.root).toBe(here);
    const root = copyRepo(fx.template, fx.dir);
    const linked = path.join(fx.dir, `linked-${Math.random().toString(36).slice(2)}`);
    git(root, ['worktree', 'add', '-q', linked]);
    expect(detectOwnRepo(linked)).toEqual({ root: linked });
  });

  it.each([
    ['a repository that only names its package tea-agent', { 'package.json': '{"name":"tea-agent"}' }],
    ["Tea's layout under another package name", { 'package.json': '{"name":"tea-agent-fork"}', ...LAYOUT }],
    ["Tea's layout with no package.json", LAYOUT],
    ['a broken package.json', { 'package.json': '{"name":"tea-agent",', ...LAYOUT }],
    ['a package.json that is not an object', { 'package.json': '"tea-agent"', ...LAYOUT }],
    [
      'layout markers that are directories',
      {
        'package.json': '{"name":"tea-agent"}',
        'src/agent/agent.ts/x': '',
        'src/tools/registry.ts/x': '',
        'src/runtime/runtime.ts/x': '',
      },
    ],
  ])('does not take %s for it', (_what, files) => {
    const root = dirWith(files);
    expect(detectOwnRepo(root)).toBeUndefined();
  });

  it('needs the git root: a Tea tree without git, or inside another repository, is not it', () => {
    const files = { 'package.json': '{"name":"tea-agent"}', ...LAYOUT };
    expect(isTeaRepo(dirWith(files, false))).toBe(true);
    expect(detectOwnRepo(dirWith(files, false))).toBeUndefined();
    const outer = dirWith({ 'README.md': '' });
    for (const [rel, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(outer, 'tea', rel)), { recursive: true });
      writeFileSync(path.join(outer, 'tea', rel), text);
    }
    expect(detectOwnRepo(path.join(outer, 'tea'))).toBeUndefined();
  });
});

describe('path boundaries (break-in attempts)', () => {
  it.each([
    ['', /an empty path/],
    ['../x.ts', /climbs out/],
    ['src/../../x.ts', /climbs out/],
    ['src/..', /climbs out/],
    ['/etc/passwd', /absolute path/],
    ['C:/Windows/x', /absolute path/],
    ['src\\..\\x.ts', /backslash/],
    ['src/x\u0000.ts', /control character/],
    ['src/x\n.ts', /control character/],
    ['./src/x.ts', /empty or "\." segment/],
    ['src//x.ts', /empty or "\." segment/],
    ['.git/config', /inside \.git/],
    ['.Git/hooks/pre-commit', /inside \.git/],
    ['src/.git/x', /inside \.git/],
    ['package.json', /configures the gates/],
    ['web/package.json', /configures the gates/],
    ['package-lock.json', /configures the gates/],
    ['tsconfig.json', /configures the gates/],
    ['web/tsconfig.json', /configures the gates/],
    ['tsconfig.lib.json', /configures the gates/],
    ['biome.json', /configures the gates/],
    ['BIOME.JSONC', /configures the gates/],
    ['vitest.config.ts', /configures the gates/],
    ['vitest.workspace.mjs', /configures the gates/],
    ['vite.config.ts', /configures the gates/],
    ['.gitignore', /configures the gates/],
    ['src/.gitignore', /configures the gates/],
    ['.gitattributes', /configures the gates/],
    ['.gitmodules', /configures the gates/],
    ['.npmrc', /configures the gates/],
  ])('refuses %j', (name, why) => {
    expect(() => checkName(name)).toThrow(why);
  });

  it.each([
    'src/agent/loop.ts',
    'test/x.test.ts',
    'README.md',
    'src/.github-like/x.ts',
    'src/tsconfig-notes.md',
  ])('accepts %j', (name) => {
    expect(checkName(name)).toBe(name);
  });
});

describe('reading a patch', () => {
  const plan = async (patch: string, root = copyRepo(fx.template, fx.dir)) =>
    planChanges(root, readPatch(patch));
  const refusedWith = async (p: Promise<unknown>, why: RegExp) => {
    await expect(p).rejects.toThrow(PatchRefused);
    await expect(p).rejects.toThrow(why);
  };

  it('takes a git diff with a rename (rename from/to) and keeps the moved file', async () => {
    const patch = diffOf(fx.template, fx.dir, { [MATH]: null, 'src/tools/arith.ts': FILES[MATH]! });
    expect(patch).toContain('rename from src/tools/math.ts');
    const changes = await plan(patch);
    expect(changes.map((c) => [c.kind, c.path])).toEqual([
      ['add', 'src/tools/arith.ts'],
      ['delete', MATH],
    ]);
    expect(changes[0]?.after?.toString()).toBe(FILES[MATH]);
  });

  it('takes a plain unified diff (no a/ b/ prefixes, timestamps in the headers)', async () => {
    const patch =
      '--- src/tools/math.ts\t2026-01-01 00:00:00\n+++ src/tools/math.ts\t2026-01-02 00:00:00\n@@ -1,3 +1,3 @@\n export function add(a: number, b: number): number {\n-  return a + b;\n+  return b + a;\n }\n';
    const [change] = await plan(patch);
    expect(change).toMatchObject({ kind: 'modify', path: MATH });
    expect(change?.after?.toString()).toBe(FILES[MATH]!.replace('a + b', 'b + a'));
  });

  it('creates an executable file from "new file mode 100755", and deletes files', async () => {
    const added = await plan(
      'diff --git a/scripts/run.sh b/scripts/run.sh\nnew file mode 100755\n--- /dev/null\n+++ b/scripts/run.sh\n@@ -0,0 +1 @@\n+echo hi\n',
    );
    expect(added).toEqual([
      { kind: 'add', path: 'scripts/run.sh', after: Buffer.from('echo hi\n'), mode: 0o755 },
    ]);
    const gone = await plan(diffOf(fx.template, fx.dir, { 'src/tools/registry.ts': null }));
    expect(gone).toEqual([{ kind: 'delete', path: 'src/tools/registry.ts' }]);
  });

  it('refuses what it cannot do faithfully', async () => {
    const base = 'diff --git a/src/tools/math.ts b/src/tools/math.ts\n';
    await refusedWith(plan(`${base}old mode 100644\nnew mode 100755\n`), /changes the file mode/);
    await refusedWith(
      plan('diff --git a/l b/l\nnew file mode 120000\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+/etc/passwd\n'),
      /makes a symbolic link/,
    );
    await refusedWith(plan(`${base}index 1..2 100644\nBinary files a/x and b/x differ\n`), /binary/);
    await refusedWith(
      plan('--- a/src/nope.ts\n+++ b/src/nope.ts\n@@ -1 +1 @@\n-a\n+b\n'),
      /src\/nope\.ts, which does not exist/,
    );
    await refusedWith(
      plan('--- /dev/null\n+++ b/src/tools/math.ts\n@@ -0,0 +1 @@\n+x\n'),
      /creates src\/tools\/math\.ts, which already exists/,
    );
    await refusedWith(
      plan('--- /dev/null\n+++ b/src/tools/math.ts/inner.ts\n@@ -0,0 +1 @@\n+x\n'),
      /src\/tools\/math\.ts is not a directory/,
    );
    const twice = diffOf(fx.template, fx.dir, { [MATH]: `${FILES[MATH]}// x\n` });
    await refusedWith(plan(`${twice}${twice}`), /changes src\/tools\/math\.ts twice/);
    await refusedWith(plan('x'.repeat(1_000_001)), /at most 1000000/);
  });

  it('checks both sides of a rename, and the envelope’s paths too', async () => {
    await refusedWith(
      plan(
        'diff --git a/../x.ts b/src/x.ts\nsimilarity index 100%\nrename from ../x.ts\nrename to src/x.ts\n',
      ),
      /"\.\.\/x\.ts", which climbs out/,
    );
    await refusedWith(
      plan(
        'diff --git a/src/tools/math.ts b/.git/x\nsimilarity index 100%\nrename from src/tools/math.ts\nrename to .git/x\n',
      ),
      /inside \.git/,
    );
    await refusedWith(plan('*** Begin Patch\n*** Add File: ../evil.ts\n+x\n*** End Patch'), /climbs out/);
    await refusedWith(
      plan('*** Begin Patch\n*** Update File: src/tools/math.ts\n*** Move to: package.json\n*** End Patch'),
      /configures the gates/,
    );
    await refusedWith(
      plan('*** Begin Patch\n*** Delete File: test/math.test.ts\n*** End Patch'),
      /deletes the test file/,
    );
  });

  it('refuses to patch a file that is not UTF-8 text', async () => {
    const root = copyRepo(fx.template, fx.dir);
    writeFileSync(path.join(root, 'src/blob.ts'), Buffer.from([0x61, 0xff, 0xfe, 0x0a]));
    await refusedWith(
      plan('--- a/src/blob.ts\n+++ b/src/blob.ts\n@@ -1 +1 @@\n-a\n+b\n', root),
      /not UTF-8 text/,
    );
    symlinkSync('/etc/hostname', path.join(root, 'src/host.ts'));
    await refusedWith(
      plan('--- a/src/host.ts\n+++ b/src/host.ts\n@@ -1 +1 @@\n-a\n+b\n', root),
      /symbolic link/,
    );
  });

  it('names the paths of a patch for approvals', () => {
    expect(
      namedPaths(diffOf(fx.template, fx.dir, { [MATH]: `${FILES[MATH]}// x\n`, 'src/n.ts': 'x\n' })),
    ).toEqual(['src/n.ts', MATH]);
    expect(namedPaths('*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n*** End Patch')).toEqual([
      'a.ts',
      'b.ts',
    ]);
  });
});

describe('before the commit', () => {
  it('finds touched files the gates rewrote, and what they left elsewhere', async () => {
    const root = copyRepo(fx.template, fx.dir);
    const tmp = mkdtempSync(path.join(fx.dir, 'idx-'));
    const tree = await snapshotTree(root, path.join(tmp, 'a'));
    const changes = await planChanges(
      root,
      readPatch(
        diffOf(fx.template, fx.dir, { [MATH]: `${FILES[MATH]}// x\n`, 'src/tools/registry.ts': null }),
      ),
    );
    writeFileSync(path.join(root, MATH), `${FILES[MATH]}// x\n`);
    rmSync(path.join(root, 'src/tools/registry.ts'));
    expect(await drift(root, changes, tree, path.join(tmp, 'b'))).toEqual({ touched: [], others: [] });
    writeFileSync(path.join(root, 'src/stray.txt'), 'left by a test');
    writeFileSync(path.join(root, MATH), `${FILES[MATH]}// rewritten by a test\n`);
    writeFileSync(path.join(root, 'src/tools/registry.ts'), 'back again');
    expect(await drift(root, changes, tree, path.join(tmp, 'c'))).toEqual({
      touched: [MATH, 'src/tools/registry.ts'],
      others: ['src/stray.txt'],
    });
  });
});

describe('the gates, in small', () => {
  it('takes the tsconfig files from scripts.typecheck', () => {
    const root = dirWith({
      'package.json': JSON.stringify({
        scripts: {
          typecheck: 'tsc -p tsconfig.json --noEmit && npx tsc --project=web/tsconfig.json --noEmit',
        },
      }),
      'tsconfig.json': '{}',
      'web/tsconfig.json': '{}',
    });
    expect(typecheckProjects(root)).toEqual(['tsconfig.json', 'web/tsconfig.json']);
    const bare = dirWith({ 'package.json': '{}', 'tsconfig.json': '{}' });
    expect(typecheckProjects(bare)).toEqual(['tsconfig.json']);
    const escaping = dirWith({
      'package.json': JSON.stringify({ scripts: { typecheck: 'tsc -p ../elsewhere.json' } }),
      'tsconfig.json': '{}',
    });
    expect(typecheckProjects(escaping)).toEqual(['tsconfig.json']);
  });

  it('counts new lint findings as a multiset (moved lines are not new)', () => {
    const f = (key: string): Finding => ({ key, shown: key });
    expect(newFindings([f('a'), f('b')], [f('b'), f('a')])).toEqual([]);
    expect(newFindings([f('a')], [f('a'), f('a'), f('c')])).toEqual([f('a'), f('c')]);
  });

  it('runs the gates without the caller’s git or vitest variables', () => {
    const env = gateEnv({
      PATH: '/usr/bin',
      GIT_DIR: '/x',
      GIT_INDEX_FILE: '/y',
      VITEST: 'true',
      VITEST_POOL_ID: '1',
      HOME: '/h',
    });
    expect(env).toMatchObject({ HOME: '/h', NO_COLOR: '1', CI: '1' });
    expect(Object.keys(env).filter((k) => k.startsWith('GIT_') || k.startsWith('VITEST'))).toEqual([]);
    expect(env.PATH?.split(path.delimiter)[0]).toBe(path.dirname(process.execPath));
  });
});
