/**
 * Seeded bad self-patches that the gates catch, run against the fixture with the real
 * tsc, biome and vitest: each is applied, fails its gate, and is rolled back with
 * the tree, index, HEAD, refs and stash byte-identical afterwards.
 */
import { describe, expect, it } from 'vitest';
import { expectRolledBack, runCase, useFixture } from './cases.js';
import { diffOf, FILES } from './fixture.js';

const fx = useFixture();
const MATH = 'src/tools/math.ts';
const TEXT = 'src/util/text.ts';
const math = (from: string, to: string): string => FILES[MATH]!.replace(from, to);
const patch = (edits: Record<string, string | null>): string => diffOf(fx.template, fx.dir, edits);

describe('gate 2 (typecheck) catches', { timeout: 120_000 }, () => {
  it.concurrent('a syntax error', async () => {
    const run = await runCase(fx, patch({ [MATH]: math('  return a + b;\n}\n', '  return a + b;\n') }));
    expectRolledBack(run, 2, /src\/tools\/math\.ts\(\d+,\d+\): error TS1005/);
  });

  it.concurrent('a type error', async () => {
    const run = await runCase(fx, patch({ [MATH]: math('return a + b;', 'return String(a + b);') }));
    expectRolledBack(run, 2, /src\/tools\/math\.ts\(2,3\): error TS2322: Type 'string' is not assignable/);
  });

  it.concurrent('a broken import', async () => {
    const agent = FILES['src/agent/agent.ts']!.replace('../tools/math.js', '../tools/maths.js');
    const run = await runCase(fx, patch({ 'src/agent/agent.ts': agent }));
    expectRolledBack(
      run,
      2,
      /src\/agent\/agent\.ts\(1,21\): error TS2307: Cannot find module '\.\.\/tools\/maths\.js'/,
    );
  });

  it.concurrent('a deleted export that is still used', async () => {
    const run = await runCase(
      fx,
      patch({
        [MATH]: math('\nexport function mul(a: number, b: number): number {\n  return a * b;\n}\n', ''),
      }),
    );
    const text = expectRolledBack(
      run,
      2,
      /src\/runtime\/runtime\.ts\(2,10\): error TS2305: Module '"\.\.\/tools\/math\.js"' has no exported member 'mul'/,
    );
    expect(text).toContain('test/math.test.ts(2,15)');
  });

  it.concurrent('a renamed function that is still called', async () => {
    const run = await runCase(fx, patch({ [TEXT]: FILES[TEXT]!.replace('function shout', 'function yell') }));
    expectRolledBack(
      run,
      2,
      /src\/runtime\/runtime\.ts\(3,10\): error TS2305: Module '"\.\.\/util\/text\.js"' has no exported member 'shout'/,
    );
  });

  it.concurrent('a patch that creates files in a new directory, then fails', async () => {
    const run = await runCase(
      fx,
      patch({
        'src/extra/deep/helper.ts': "export const answer: number = 'forty-two';\n",
        [MATH]: math('return a + b;', 'return b + a;'),
      }),
    );
    expectRolledBack(run, 2, /src\/extra\/deep\/helper\.ts\(1,14\): error TS2322/);
    // The created file and both new directories are gone (treeState lists directories too).
    expect(Object.keys(run.after.files).filter((f) => f.startsWith('src/extra'))).toEqual([]);
  });
});

describe('gate 3 (lint) catches', { timeout: 120_000 }, () => {
  it.concurrent('a new lint finding', async () => {
    const run = await runCase(
      fx,
      patch({ [MATH]: math('  return a + b;', '  const unused = 1;\n  return a + b;') }),
    );
    expectRolledBack(
      run,
      3,
      /biome check: 0 findings before, 1 after; new:\n {2}src\/tools\/math\.ts:2 lint\/correctness\/noUnusedVariables: This variable unused is unused\./,
    );
  });

  it.concurrent('lint growth in another file than the first one touched', async () => {
    const run = await runCase(
      fx,
      patch({
        [MATH]: math('export function add', '/** Adds two numbers. */\nexport function add'),
        [TEXT]: FILES[TEXT]!.replace('  return', '  const quiet = text.toLowerCase();\n  return'),
      }),
    );
    const text = expectRolledBack(
      run,
      3,
      /new:\n {2}src\/util\/text\.ts:2 lint\/correctness\/noUnusedVariables/,
    );
    expect(text).not.toMatch(/src\/tools\/math\.ts:\d+ lint/);
  });

  it.concurrent('badly formatted code (a formatter finding counts too)', async () => {
    const run = await runCase(fx, patch({ [MATH]: math('return a + b;', 'return    a+b;') }));
    expectRolledBack(run, 3, /src\/tools\/math\.ts format: Formatter would have printed/);
  });
});
