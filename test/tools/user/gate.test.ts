/**
 * The gates enforce a tool's declared class again while it runs, for what the static
 * check cannot see: here bundles are handed to the loader directly (as if the check
 * had been fooled), and each capability above the declared class throws, naming the
 * class it needs.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalClass } from '../../../src/tools/types.js';
import { gatesFor } from '../../../src/tools/user/gate.js';
import { evaluate } from '../../../src/tools/user/load.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'tea-gate-'));
  dirs.push(d);
  return d;
}

/** Runs `body` (code as esbuild emits it: marks for the gated names) under `declared`; its value or the error message. */
function run(declared: ApprovalClass, body: string): unknown {
  const code = `module.exports = { default: (() => { ${body} })() };`;
  try {
    return evaluate('gated', '1.0.0', code, gatesFor('gated', declared, { zod: true }));
  } catch (e) {
    return `threw: ${(e as Error).message}`;
  }
}

describe('the runtime gates of a user tool', () => {
  it('require: a built-in above the declared class throws, naming the class it needs', () => {
    expect(run('none', 'return require("__tea_mod:node:child_process").execSync')).toMatch(
      /^threw: require\("node:child_process"\) needs approval "exec", and the tool gated is declared "none"/,
    );
    expect(run('network', 'return typeof require("__tea_mod:node:https").get')).toBe('function');
    expect(run('none', 'return typeof require("__tea_mod:node:https").get')).toMatch(
      /needs approval "network"/,
    );
    expect(run('exec', 'return typeof require("__tea_mod:node:child_process").execSync')).toBe('function');
  });

  it('require: only marked names resolve; zod is the one given; node:vm never', () => {
    expect(run('exec', 'return require("child_process")')).toMatch(
      /may require only zod and node: built-ins/,
    );
    expect(run('none', 'return require("__tea_mod:zod")')).toEqual({ zod: true });
    expect(run('exec', 'return require("__tea_mod:node:vm")')).toMatch(
      /node:vm runs code built from strings/,
    );
    expect(run('exec', 'return require("__tea_mod:left-pad")')).toMatch(
      /may import only zod and node: built-ins/,
    );
  });

  it('fs below write: reads work, every way of writing throws (computed keys and open flags too)', () => {
    const dir = tempDir();
    const file = path.join(dir, 'f.txt');
    writeFileSync(file, 'hello');
    const fs = 'const fs = require("__tea_mod:node:fs");';
    expect(run('none', `${fs} return fs.readFileSync(${JSON.stringify(file)}, "utf8")`)).toBe('hello');
    const key = "['write', 'FileSync'].join('')";
    expect(run('none', `${fs} fs[${key}](${JSON.stringify(file)}, "x")`)).toMatch(
      /fs writeFileSync needs approval "write"/,
    );
    expect(run('network', `${fs} return fs.openSync(${JSON.stringify(file)}, "w")`)).toMatch(
      /fs openSync with flags w needs approval "write"/,
    );
    expect(run('none', `${fs} return fs.promises.writeFile`)).toBeTypeOf('function');
    expect(run('none', `${fs} fs.promises.writeFile("x", "y")`)).toMatch(
      /fs writeFile needs approval "write"/,
    );
    expect(run('none', `const p = require("__tea_mod:node:fs/promises"); p.rm("x")`)).toMatch(/fs rm needs/);
    expect(readFileSync(file, 'utf8')).toBe('hello');
    // Declared write: the real module.
    const out = path.join(dir, 'new.txt');
    expect(run('write', `${fs} fs.writeFileSync(${JSON.stringify(out)}, "made"); return 1`)).toBe(1);
    expect(existsSync(out)).toBe(true);
  });

  it('process below exec: facts readable, control and loaders throw, even by a computed key', () => {
    expect(run('none', 'return __tea_g_process.env.PATH')).toBe(process.env.PATH);
    expect(run('none', 'return __tea_g_process.platform')).toBe(process.platform);
    expect(run('none', 'return typeof __tea_g_process.hrtime.bigint()')).toBe('bigint');
    expect(run('none', 'return __tea_g_process.cwd()')).toBe(process.cwd());
    expect(run('none', "return __tea_g_process[['bind', 'ing'].join('')]")).toMatch(
      /process.binding needs approval "exec"/,
    );
    expect(run('write', 'return __tea_g_process.getBuiltinModule')).toMatch(
      /process.getBuiltinModule needs approval "exec"/,
    );
    expect(run('none', '__tea_g_process.exitCode = 3')).toMatch(
      /setting process.exitCode needs approval "exec"/,
    );
    expect(run('exec', 'return __tea_g_process === process')).toBe(true);
  });

  it('network globals below network throw; the global object hands out the same gates', () => {
    expect(run('none', '__tea_g_fetch("https://example.com")')).toMatch(
      /fetch needs approval "network", and the tool gated is declared "none"/,
    );
    expect(run('write', '__tea_g_global.fetch("x")')).toMatch(/fetch needs approval "network"/);
    expect(run('none', "__tea_g_global[['fe', 'tch'].join('')]('x')")).toMatch(
      /fetch needs approval "network"/,
    );
    expect(run('none', 'return __tea_g_global.globalThis.process.binding')).toMatch(
      /process.binding needs approval "exec"/,
    );
    expect(run('network', 'return __tea_g_fetch === globalThis.fetch')).toBe(true);
    expect(run('none', 'return __tea_g_global.Math.max(1, 2)')).toBe(2);
  });

  it('code from strings throws whatever the class', () => {
    expect(run('exec', '__tea_g_eval("1")')).toMatch(/eval is not allowed in a tool/);
    expect(run('exec', 'new __tea_g_Function("return 1")')).toMatch(/Function is not allowed in a tool/);
  });

  it('runs in strict mode: a plain function call does not reach the global object through this', () => {
    expect(run('none', 'return (function () { return this; })()')).toBeUndefined();
  });
});
