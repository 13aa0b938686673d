/**
 * Running one self-patch case: a fresh copy of the fixture, its tree hashed before
 * and after, a Tea home of its own (the lock is per home, so cases may run at once).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { type GateTimeouts, type SelfModifyOptions, selfModify } from '../../../src/evolve/self/pipeline.js';
import { failureText, type SelfModifyResult } from '../../../src/evolve/self/result.js';
import { copyRepo, makeTemplate, treeState } from './fixture.js';

export interface Fixture {
  readonly template: string;
  readonly dir: string;
}

/** A fixture template for this test file, removed after it. */
export function useFixture(): Fixture {
  let made: { dir: string; root: string } | undefined;
  beforeAll(() => {
    made = makeTemplate();
  });
  afterAll(() => {
    if (made) rmSync(made.dir, { recursive: true, force: true });
  });
  return {
    get template() {
      return made!.root;
    },
    get dir() {
      return made!.dir;
    },
  };
}

export interface CaseOptions {
  /** Changes the case's copy before the patch (committed or not, as the case needs). */
  setup?: (root: string) => void;
  timeouts?: Partial<GateTimeouts>;
  checkOnly?: boolean;
  signal?: AbortSignal;
  onGate?: SelfModifyOptions['onGate'];
  reason?: string;
  /** Prepares the case's Tea home before the run (a lock held by another process). */
  prepareHome?: (home: string) => void;
}

export interface CaseRun {
  root: string;
  home: string;
  result: SelfModifyResult;
  before: ReturnType<typeof treeState>;
  after: ReturnType<typeof treeState>;
}

export async function runCase(fx: Fixture, patch: string, opts: CaseOptions = {}): Promise<CaseRun> {
  const root = copyRepo(fx.template, fx.dir);
  opts.setup?.(root);
  const home = mkdtempSync(path.join(fx.dir, 'home-'));
  opts.prepareHome?.(home);
  const before = treeState(root);
  const result = await selfModify({
    root,
    home,
    reason: opts.reason ?? 'a seeded self-patch',
    patch,
    signal: opts.signal ?? new AbortController().signal,
    ...(opts.timeouts ? { timeouts: opts.timeouts } : {}),
    ...(opts.checkOnly ? { checkOnly: true } : {}),
    ...(opts.onGate ? { onGate: opts.onGate } : {}),
  });
  return { root, home, result, before, after: treeState(root) };
}

/** The model's `[ERROR]` text of a failed run (fails the test when the run succeeded). */
export function errorText(result: SelfModifyResult): string {
  if (result.ok) throw new Error(`expected a failure, got: ${JSON.stringify(result)}`);
  const { message, hint } = failureText(result);
  return `[ERROR] ${message}\nHint: ${hint}`;
}

/** The case failed at `gate` (or was refused when `gate` is 'refused') and left the tree exactly as it was. */
export function expectRolledBack(run: CaseRun, gate: number | 'refused', output: RegExp): string {
  const text = errorText(run.result);
  if (gate === 'refused')
    expect(text).toMatch(/^\[ERROR\] self_modify: the patch was refused, nothing was changed: /);
  else expect(text).toMatch(new RegExp(`^\\[ERROR\\] self_modify: gate ${gate} \\(\\w+\\) failed\\n`));
  expect(text).toMatch(output);
  expect(text).toMatch(/\nHint: \S/);
  expect(run.after).toEqual(run.before);
  if (!run.result.ok && run.result.refused !== true && run.result.restore) {
    expect(run.result.restore.problems).toEqual([]);
    expect(run.result.restore.verified).toBe(true);
    expect(text).toContain('The tree was restored byte for byte');
  }
  return text;
}
