import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliEnv, cliEnv, TEA_BIN } from '../support/cli.js';

/**
 * `tea memory search` and `tea memory add` start fast partly by not loading what
 * they never use: node:http (model calls), node:child_process (commander's
 * executable subcommands) and, for a search, node:crypto (hashing).
 */
let ctx: CliEnv;
beforeEach(() => {
  ctx = cliEnv();
});
afterEach(() => ctx.cleanup());

/** The Node built-in modules a `tea` run loaded, and its result. */
function builtinsLoadedBy(args: string[]): { code: number | null; builtins: Set<string> } {
  const out = path.join(ctx.work, 'builtins.json');
  const hook = path.join(ctx.work, 'hook.mjs');
  writeFileSync(
    hook,
    `import { writeFileSync } from 'node:fs';
process.on('exit', () => writeFileSync(${JSON.stringify(out)}, JSON.stringify(process.moduleLoadList)));
`,
  );
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(hook).href, TEA_BIN, ...args], {
    env: ctx.env,
    cwd: ctx.work,
  });
  const list = JSON.parse(readFileSync(out, 'utf8')) as string[];
  const builtins = new Set(
    list.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice('NativeModule '.length)),
  );
  return { code: r.status, builtins };
}

describe('tea memory start-up', () => {
  it('search and add load neither node:http nor node:child_process; search not node:crypto', () => {
    const add = builtinsLoadedBy(['memory', 'add', '--offline', 'The build of Heron takes four minutes']);
    expect(add.code).toBe(0);
    expect(add.builtins.has('http')).toBe(false);
    expect(add.builtins.has('child_process')).toBe(false);

    const search = builtinsLoadedBy(['memory', 'search', 'Heron build']);
    expect(search.code).toBe(0);
    expect(search.builtins.has('http')).toBe(false);
    expect(search.builtins.has('child_process')).toBe(false);
    expect(search.builtins.has('crypto')).toBe(false);
  });
});
