/**
 * The static approval check against code that tries to do more than it declares: each
 * row is a tool declared `none` whose code spawns, loads, evaluates, writes or reaches
 * the network some other way. The check reads esbuild's bundle (analyse.ts), so
 * aliasing and constant-string tricks must not hide anything. Rows marked `refused`
 * are things no tool may do at all; `compile` rows are stopped by the compiler step.
 */
import { describe, expect, it } from 'vitest';
import { analyse } from '../../../src/tools/user/analyse.js';
import { checkTool } from '../../../src/tools/user/check.js';
import { CheckError, compileTool } from '../../../src/tools/user/compile.js';
import { toolSource } from './helpers.js';

type Expect =
  | { needs: 'write' | 'network' | 'exec'; evidence: string }
  | { refused: string }
  | { compile: string };

interface Row {
  label: string;
  head?: string;
  body: string;
  expect: Expect;
}

const ROWS: Row[] = [
  {
    label: 'a static import of node:child_process',
    head: "import { execSync } from 'node:child_process';",
    body: "return String(execSync('id'));",
    expect: { needs: 'exec', evidence: 'require("node:child_process")' },
  },
  {
    label: 'child_process without the node: prefix',
    head: "import * as cp from 'child_process';",
    body: "return String(cp.spawnSync('id').stdout);",
    expect: { needs: 'exec', evidence: 'require("node:child_process")' },
  },
  {
    label: 'require of a name built by concatenation',
    body: "const cp = require('node:' + 'child_' + 'process'); return String(cp.execSync('id'));",
    expect: { needs: 'exec', evidence: 'require("node:child_process")' },
  },
  {
    label: 'a side-effect import',
    head: "import 'node:child_process';",
    body: "return 'x';",
    expect: { needs: 'exec', evidence: 'require("node:child_process")' },
  },
  {
    label: 'require aliased to another name',
    body: "const r = require; return String(r('child_process').execSync('id'));",
    expect: { needs: 'exec', evidence: 'require (require used with a computed name or passed around)' },
  },
  {
    label: 'require of a name computed at run time',
    body: "const n = ['child', 'process'].join('_'); return String(require(n).execSync('id'));",
    expect: { needs: 'exec', evidence: 'require(n) (require used with a computed name' },
  },
  {
    label: 'createRequire from node:module',
    head: "import { createRequire } from 'node:module';",
    body: "const r = createRequire('/x.js'); return String(r('child_' + 'process').execSync('id'));",
    expect: { needs: 'exec', evidence: 'require("node:module")' },
  },
  {
    label: 'globalThis.process.binding',
    body: "return String((globalThis as any).process.binding('spawn_sync'));",
    expect: { needs: 'exec', evidence: 'process.binding' },
  },
  {
    label: 'computed keys on the global object, folded',
    body: "const g = globalThis as any; return String(g['pro' + 'cess']['bind' + 'ing']('fs'));",
    expect: { needs: 'exec', evidence: 'globalThis.process.binding' },
  },
  {
    label: 'the global object passed around',
    body: 'const keep = [globalThis]; return String((keep[0] as any).process);',
    expect: { needs: 'exec', evidence: 'globalThis (the global object used as a value' },
  },
  {
    label: 'process.getBuiltinModule',
    body: "return String((process as any).getBuiltinModule('child_process').execSync('id'));",
    expect: { needs: 'exec', evidence: 'process.getBuiltinModule' },
  },
  {
    label: 'process.mainModule.require',
    body: "return String((process as any).mainModule.require('child_process').execSync('id'));",
    expect: { needs: 'exec', evidence: 'process.mainModule' },
  },
  {
    label: 'process with a computed key',
    body: "const k = ['bind', 'ing'].join(''); return String((process as any)[k]('fs'));",
    expect: { needs: 'exec', evidence: 'process used as a value or with a computed property' },
  },
  {
    label: 'process.dlopen (a native addon)',
    body: "(process as any).dlopen({}, '/tmp/x.node'); return 'x';",
    expect: { needs: 'exec', evidence: 'process.dlopen' },
  },
  {
    label: 'worker_threads',
    head: "import { Worker } from 'node:worker_threads';",
    body: "new Worker('/tmp/x.js'); return 'x';",
    expect: { needs: 'exec', evidence: 'require("node:worker_threads")' },
  },
  {
    label: 'Reflect.get on the global object',
    body: "return String(Reflect.get(globalThis, 'process'));",
    expect: { needs: 'exec', evidence: 'globalThis (the global object used as a value' },
  },
  {
    label: 'eval',
    body: "return String(eval('1 + 1'));",
    expect: { refused: 'eval' },
  },
  {
    label: 'indirect eval',
    body: "return String((0, eval)('process'));",
    expect: { refused: 'eval' },
  },
  {
    label: 'new Function',
    body: "return String(new Function('return process')());",
    expect: { refused: 'Function' },
  },
  {
    label: 'the Function constructor through .constructor',
    body: "return String((() => 0).constructor('return process')());",
    expect: { refused: '.constructor' },
  },
  {
    label: 'the AsyncFunction constructor by a folded computed key',
    body: "const F = Object.getPrototypeOf(async () => 0)['constr' + 'uctor']; return String(await F('return 1')());",
    expect: { refused: '.constructor' },
  },
  {
    label: 'WebAssembly',
    body: 'await WebAssembly.compile(new Uint8Array(8)); return "x";',
    expect: { refused: 'WebAssembly' },
  },
  {
    label: 'dynamic import of a computed name',
    body: "const n = 'node:' + ['child', 'process'].join('_'); return String(await import(n));",
    expect: { refused: 'import()' },
  },
  {
    label: "dynamic import of 'node:' + 'child_process'",
    body: "const cp = await import('node:' + 'child_process'); return String(cp);",
    expect: { compile: 'import("node:child_process") is not allowed in a tool' },
  },
  {
    label: 'node:vm',
    head: "import vm from 'node:vm';",
    body: "return String(vm.runInThisContext('process'));",
    expect: { compile: 'node:vm is not allowed in a tool' },
  },
  {
    label: 'a package from node_modules',
    head: "import { build } from 'esbuild';",
    body: 'return String(build);',
    expect: { compile: 'cannot import "esbuild": a tool may import only zod' },
  },
  {
    label: 'a relative import',
    head: "import helper from './helper';",
    body: 'return String(helper);',
    expect: { compile: 'cannot import "./helper"' },
  },
  {
    label: 'fetch',
    body: "return (await fetch('https://example.com')).text();",
    expect: { needs: 'network', evidence: 'fetch' },
  },
  {
    label: "globalThis['fe' + 'tch']",
    body: "return String(await (globalThis as any)['fe' + 'tch']('https://example.com'));",
    expect: { needs: 'network', evidence: 'fetch' },
  },
  {
    label: 'node:https',
    head: "import https from 'node:https';",
    body: "https.get('https://example.com'); return 'x';",
    expect: { needs: 'network', evidence: 'require("node:https")' },
  },
  {
    label: 'net (a raw socket)',
    head: "import * as net from 'net';",
    body: "net.connect(80, 'example.com'); return 'x';",
    expect: { needs: 'network', evidence: 'require("node:net")' },
  },
  {
    label: 'WebSocket',
    body: "new WebSocket('wss://example.com'); return 'x';",
    expect: { needs: 'network', evidence: 'WebSocket' },
  },
  {
    label: 'fs.writeFileSync by a named import',
    head: "import { writeFileSync } from 'node:fs';",
    body: "writeFileSync('/tmp/x', args.text); return 'x';",
    expect: { needs: 'write', evidence: 'fs writeFileSync' },
  },
  {
    label: 'an fs write by a folded computed key',
    head: "import * as fs from 'node:fs';",
    body: "(fs as any)['write' + 'FileSync']('/tmp/x', 'y'); return 'x';",
    expect: { needs: 'write', evidence: 'fs writeFileSync' },
  },
  {
    label: 'fs/promises rm',
    head: "import { promises } from 'fs';",
    body: "await promises.rm('/tmp/x'); return 'x';",
    expect: { needs: 'write', evidence: 'fs rm' },
  },
  {
    label: 'writing files and reaching the network (neither write nor network covers both)',
    head: "import { writeFileSync } from 'node:fs';",
    body: "writeFileSync('/tmp/x', await (await fetch('https://example.com')).text()); return 'x';",
    expect: { needs: 'exec', evidence: 'fetch' },
  },
];

async function outcome(row: Row): Promise<{ needs: string; text: string; refused: string; compile: string }> {
  const source = toolSource({ head: row.head ?? '', body: row.body });
  let bundle: string;
  try {
    bundle = await compileTool('echo_words', source);
  } catch (e) {
    if (!(e instanceof CheckError)) throw e;
    return { needs: '', text: '', refused: '', compile: e.message };
  }
  const a = analyse(bundle);
  const show = (list: typeof a.evidence) => list.map((e) => `${e.what} (${e.why})`).join('; ');
  return { needs: a.needs, text: show(a.evidence), refused: show(a.refused), compile: '' };
}

describe('the static approval check: evasion attempts', () => {
  it('has at least 15 rows', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(15);
  });

  it.each(ROWS)('$label', async (row) => {
    const got = await outcome(row);
    const e = row.expect;
    if ('compile' in e) expect(got.compile).toContain(e.compile);
    else if ('refused' in e) expect(got.refused).toContain(e.refused);
    else {
      expect(got.compile).toBe('');
      expect(got.needs).toBe(e.needs);
      expect(got.text).toContain(e.evidence);
    }
  });

  it('refuses to save a tool that declares less than its code needs, naming the evidence', async () => {
    const source = toolSource({
      head: "import { spawnSync } from 'node:child_process';",
      body: "return String(spawnSync('ls').stdout);",
    });
    await expect(checkTool('echo_words', source)).rejects.toThrow(
      /declares approval 'none', but its code needs 'exec': require\("node:child_process"\)/,
    );
    // Declaring exec, the same code passes.
    const ok = await checkTool('echo_words', source.replace('approval: "none"', 'approval: "exec"'));
    expect(ok).toMatchObject({ approval: 'exec', needs: 'exec' });
  });
});

describe('the static approval check: what it does not flag', () => {
  it.each([
    [
      'the words in a description',
      { description: 'Fetches and requires the constructor of child_process via eval' },
    ],
    [
      'a local variable called fetch',
      { body: 'const fetch = (s: string) => s.length; return String(fetch(args.text));' },
    ],
    [
      'process.env, cwd and platform',
      { body: "return [process.env.HOME, process.cwd(), process.platform].join(' ');" },
    ],
    ["process['env'] (a constant key)", { body: "return String(process['env'].HOME);" }],
    [
      'fs reads',
      {
        head: "import { readFileSync } from 'node:fs';",
        body: "return readFileSync('/etc/hostname', 'utf8');",
      },
    ],
    [
      'node:path and node:crypto',
      {
        head: "import path from 'node:path';\nimport { createHash } from 'node:crypto';",
        body: "return path.join('a', createHash('sha256').update('x').digest('hex'));",
      },
    ],
    [
      'a class with a constructor',
      { head: 'class Box { constructor(readonly v: string) {} }', body: 'return new Box(args.text).v;' },
    ],
  ])('%s', async (_label, opts) => {
    const a = analyse(await compileTool('echo_words', toolSource(opts)));
    expect(a.refused).toEqual([]);
    expect(a.needs).toBe('none');
  });
});
