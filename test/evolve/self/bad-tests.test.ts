/**
 * Seeded bad self-patches that only gate 4 (tests) can catch: failing tests, a suite
 * that runs no test, hangs (the gate's time limit, shortened here), files the tests
 * leave behind, and a cancel in the middle of a gate. Every one is rolled back with
 * the tree byte-identical, and no process of the gate is left running.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expectRolledBack, runCase, useFixture } from './cases.js';
import { diffOf, FILES } from './fixture.js';

const fx = useFixture();
const MATH = 'src/tools/math.ts';
const TEXT = 'src/util/text.ts';
const patch = (edits: Record<string, string | null>): string => diffOf(fx.template, fx.dir, edits);
/** Hangs end at this limit (the normal runs need far less than the default limits). */
const HANG = { relatedMs: 4_000 };

/** Processes whose working directory is inside `root` (Linux /proc; none expected). */
function processesIn(root: string): number[] {
  const found: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readlinkSync(`/proc/${pid}/cwd`).startsWith(root)) found.push(Number(pid));
    } catch {
      // Gone, or not ours to read.
    }
  }
  return found;
}

describe('gate 4 (tests) catches', { timeout: 120_000 }, () => {
  it.concurrent('a failing test (related tests run first)', async () => {
    const run = await runCase(fx, patch({ [MATH]: FILES[MATH]!.replace('return a + b;', 'return a - b;') }));
    const text = expectRolledBack(
      run,
      4,
      /vitest related: 3 files, 2 passed, 3 failed\nFAIL test\/\w+\.test\.ts > \w+\nAssertionError: expected -?\d+ to be \d+/,
    );
    expect(text).toMatch(/ {4}at test\/math\.test\.ts:5:\d+/);
    expect(text).not.toContain('node_modules');
  });

  it.concurrent('a patch that leaves the suite with no passing test (all skipped)', async () => {
    const skip = (rel: string): string => FILES[rel]!.replaceAll("\nit('", "\nit.skip('");
    const run = await runCase(
      fx,
      patch({
        'test/math.test.ts': skip('test/math.test.ts'),
        'test/agent.test.ts': skip('test/agent.test.ts'),
        'test/text.test.ts': skip('test/text.test.ts'),
      }),
    );
    expectRolledBack(run, 4, /vitest run: 3 files, 0 passed, 5 skipped: the suite ran no passing test/);
  });

  it.concurrent('a test that hangs (the gate time limit stops it)', async () => {
    const hang = `${FILES['test/math.test.ts']}\nit('never ends', async () => {\n  await new Promise(() => {});\n}, 1_000_000);\n`;
    const run = await runCase(fx, patch({ 'test/math.test.ts': hang }), { timeouts: HANG });
    expectRolledBack(run, 4, /vitest related timed out after 4 s and was stopped/);
    expect(processesIn(run.root)).toEqual([]);
  });

  it.concurrent('an endless loop when a module is imported', async () => {
    const loop = `let spins = 0;\nwhile (spins >= 0) {\n  spins++;\n}\n\n${FILES[TEXT]}`;
    const run = await runCase(fx, patch({ [TEXT]: loop }), { timeouts: HANG });
    expectRolledBack(run, 4, /vitest related timed out after 4 s/);
    expect(processesIn(run.root)).toEqual([]);
  });

  it.concurrent('a failing test that leaves files behind (tracked dirs, new dirs, ignored dirs)', async () => {
    const litter =
      "import { mkdirSync, writeFileSync } from 'node:fs';\n" +
      FILES['test/text.test.ts']! +
      "\nit('litters', () => {\n" +
      "  mkdirSync(new URL('../coverage/', import.meta.url), { recursive: true });\n" +
      "  writeFileSync(new URL('../coverage/out.json', import.meta.url), '{}');\n" +
      "  writeFileSync(new URL('../src/stray.txt', import.meta.url), 'stray');\n" +
      "  mkdirSync(new URL('../src/gen/deep/', import.meta.url), { recursive: true });\n" +
      "  writeFileSync(new URL('../src/gen/deep/x.ts', import.meta.url), 'export {};');\n" +
      "  writeFileSync(new URL('../debug.log', import.meta.url), 'log');\n" +
      "  writeFileSync(new URL('../README.md', import.meta.url), 'overwritten');\n" +
      '  expect(1).toBe(2);\n});\n';
    const run = await runCase(fx, patch({ 'test/text.test.ts': litter }));
    expectRolledBack(run, 4, /FAIL test\/text\.test\.ts > litters/);
    if (run.result.ok || run.result.refused) throw new Error('expected a gate failure');
    expect(run.result.restore?.removed.sort()).toEqual(
      ['coverage/', 'debug.log', 'src/gen/', 'src/gen/deep/', 'src/gen/deep/x.ts', 'src/stray.txt'].sort(),
    );
    expect(run.result.restore?.rewritten).toEqual(['README.md']);
  });
});

describe('a cancel during a gate', { timeout: 120_000 }, () => {
  it('kills the gate, restores the tree and says so', async () => {
    // A module that blocks its thread for good when imported (without burning a core).
    const block = `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);\n\n${FILES[TEXT]}`;
    const stop = new AbortController();
    const gates: string[] = [];
    const run = await runCase(fx, patch({ [TEXT]: block }), {
      signal: stop.signal,
      onGate: (n, name) => {
        gates.push(`${n} ${name}`);
        if (n === 4) stop.abort();
      },
    });
    expect(gates).toEqual(['0 snapshot', '1 backup', '2 typecheck', '3 lint', '4 tests']);
    expectRolledBack(run, 4, /cancelled during gate 4/);
    expect(processesIn(run.root)).toEqual([]);
  });
});
