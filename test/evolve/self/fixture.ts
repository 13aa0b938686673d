/**
 * A tiny Tea-like repository for self_modify tests: it passes own-repo detection
 * (package.json `tea-agent` and Tea's layout), has its own tsconfig, biome.json,
 * vitest config, sources and tests, and node_modules linked to this checkout's, so
 * the gates run the real tsc, biome and vitest. A template is made once per test file
 * and copied for each case; `treeState` hashes every file (tracked, untracked and
 * ignored, symlinks by target) and the git state (index bytes, HEAD, refs, stash).
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const NODE_MODULES = realpathSync(path.resolve(import.meta.dirname, '..', '..', '..', 'node_modules'));

/** JSON as biome formats it: two-space indents, arrays of strings on one line. */
function json(value: unknown): string {
  const text = JSON.stringify(value, null, 2).replace(
    /\[\n\s+("[^"\n]*"(?:,\n\s+"[^"\n]*")*)\n\s+\]/g,
    (_m, items: string) => `[${items.split(/,\n\s+/).join(', ')}]`,
  );
  return `${text}\n`;
}

/** Source text with `#{` for a template literal's `${` (which a plain string may not hold here). */
export const tpl = (text: string): string => text.replaceAll('#{', '$' + '{');

export const FILES: Record<string, string> = {
  'package.json': json({
    name: 'tea-agent',
    private: true,
    type: 'module',
    scripts: {
      typecheck: 'tsc -p tsconfig.json --noEmit',
      lint: 'biome check .',
      test: 'vitest run',
    },
  }),
  'tsconfig.json': json({
    compilerOptions: {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      types: ['node'],
      skipLibCheck: true,
      noEmit: true,
      verbatimModuleSyntax: true,
    },
    include: ['src', 'test'],
  }),
  'biome.json': json({
    vcs: { enabled: true, clientKind: 'git', useIgnoreFile: true },
    files: { includes: ['**', '!node_modules', '!**/*.md'] },
    linter: { enabled: true, rules: { preset: 'recommended' } },
    formatter: { enabled: true, indentStyle: 'space', lineWidth: 100 },
    javascript: { formatter: { quoteStyle: 'single' } },
  }),
  '.gitignore': 'node_modules\ncoverage/\n*.log\n',
  'vitest.config.mjs':
    "import { defineConfig } from 'vitest/config';\n\nexport default defineConfig({ test: { include: ['test/**/*.test.ts'], pool: 'threads' } });\n",
  'README.md': '# tea-agent fixture\n',
  'src/tools/math.ts':
    'export function add(a: number, b: number): number {\n  return a + b;\n}\n\nexport function mul(a: number, b: number): number {\n  return a * b;\n}\n',
  'src/tools/registry.ts': "export const TOOL_NAMES: readonly string[] = ['add', 'mul'];\n",
  'src/agent/agent.ts':
    "import { add } from '../tools/math.js';\n\nexport function total(xs: number[]): number {\n  return xs.reduce((sum, x) => add(sum, x), 0);\n}\n",
  'src/util/text.ts': tpl(
    'export function shout(text: string): string {\n  return `#{text.toUpperCase()}!`;\n}\n',
  ),
  'src/runtime/runtime.ts': tpl(
    "import { total } from '../agent/agent.js';\nimport { mul } from '../tools/math.js';\nimport { shout } from '../util/text.js';\n\nexport function report(xs: number[]): string {\n  return shout(`total #{total(xs)} twice #{mul(total(xs), 2)}`);\n}\n",
  ),
  'test/math.test.ts':
    "import { expect, it } from 'vitest';\nimport { add, mul } from '../src/tools/math.js';\n\nit('adds', () => {\n  expect(add(2, 3)).toBe(5);\n});\n\nit('multiplies', () => {\n  expect(mul(2, 3)).toBe(6);\n});\n",
  'test/agent.test.ts':
    "import { expect, it } from 'vitest';\nimport { total } from '../src/agent/agent.js';\n\nit('totals', () => {\n  expect(total([1, 2, 3])).toBe(6);\n});\n",
  'test/text.test.ts':
    "import { expect, it } from 'vitest';\nimport { report } from '../src/runtime/runtime.js';\nimport { shout } from '../src/util/text.js';\n\nit('shouts', () => {\n  expect(shout('hi')).toBe('HI!');\n});\n\nit('reports', () => {\n  expect(report([1, 2])).toBe('TOTAL 3 TWICE 6!');\n});\n",
};

export const GIT_USER = ['-c', 'user.name=Fixture', '-c', 'user.email=fixture@example.com'];

export function git(root: string, args: string[], input?: string): string {
  return execFileSync('git', args, {
    cwd: root,
    encoding: 'utf8',
    input,
    env: { PATH: process.env.PATH, HOME: root, GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C' },
  });
}

export function writeFiles(root: string, files: Record<string, string | null>): void {
  for (const [rel, text] of Object.entries(files)) {
    const abs = path.join(root, rel);
    if (text === null) {
      rmSync(abs, { force: true });
      continue;
    }
    mkdirSync(path.dirname(abs), { recursive: true });
    writeFileSync(abs, text);
  }
}

/** A fixture repository (committed, with one stash entry) under a new temp dir. */
export function makeTemplate(): { dir: string; root: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tea-selfmod-'));
  const root = path.join(dir, 'template');
  mkdirSync(root);
  writeFiles(root, FILES);
  symlinkSync(NODE_MODULES, path.join(root, 'node_modules'));
  git(root, ['init', '-q', '-b', 'main']);
  git(root, ['config', 'user.name', 'Fixture']);
  git(root, ['config', 'user.email', 'fixture@example.com']);
  git(root, ['config', 'core.hooksPath', '/dev/null']);
  git(root, ['add', '-A']);
  git(root, ['commit', '-q', '-m', 'fixture']);
  // A stash entry, which no self_modify may touch.
  writeFileSync(path.join(root, 'README.md'), '# tea-agent fixture\n\nstashed words\n');
  git(root, ['stash', '-q']);
  return { dir, root };
}

let copies = 0;

/** A copy of the template (its .git too) for one case. */
export function copyRepo(template: string, dir: string): string {
  const root = path.join(dir, `case-${process.pid}-${copies++}`);
  cpSync(template, root, { recursive: true, verbatimSymlinks: true });
  return root;
}

/** The unified diff (as `git diff` prints it) that turns `root`'s committed files into `edits`. */
export function diffOf(template: string, dir: string, edits: Record<string, string | null>): string {
  const scratch = copyRepo(template, dir);
  writeFiles(scratch, edits);
  git(scratch, ['add', '-A']);
  const patch = git(scratch, ['diff', '--cached', '--binary']);
  rmSync(scratch, { recursive: true, force: true });
  return patch;
}

/** Every entry under `root` but .git (node_modules as a link), hashed; and the git state. */
export function treeState(root: string): { files: Record<string, string>; git: Record<string, string> } {
  const files: Record<string, string> = {};
  const walk = (rel: string): void => {
    for (const name of readdirSync(path.join(root, rel)).sort()) {
      const sub = rel === '' ? name : `${rel}/${name}`;
      if (sub === '.git') continue;
      const abs = path.join(root, sub);
      const info = lstatSync(abs);
      if (info.isSymbolicLink()) files[sub] = `link ${readlinkSync(abs)}`;
      else if (info.isDirectory()) {
        files[`${sub}/`] = 'dir';
        walk(sub);
      } else
        files[sub] =
          `${(info.mode & 0o777).toString(8)} ${createHash('sha256').update(readFileSync(abs)).digest('hex')}`;
    }
  };
  walk('');
  const sha = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');
  return {
    files,
    git: {
      index: sha(path.join(root, '.git', 'index')),
      head: readFileSync(path.join(root, '.git', 'HEAD'), 'utf8'),
      refs: git(root, ['for-each-ref', '--format=%(refname) %(objectname)']),
      stash: git(root, ['stash', 'list', '--format=%H %s']),
    },
  };
}

/** Removes a file (for a case's own set-up). */
export function remove(root: string, rel: string): void {
  unlinkSync(path.join(root, rel));
}
