/**
 * self_modify's pipeline: a change to Tea's own source lands only through five gates,
 * and any failure puts the tree back byte for byte.
 *
 *   the patch read and planned in memory (paths checked, hunks applied; nothing written)
 *   (0) snapshot: the working tree as a git tree object (temporary index; the user's
 *       index, HEAD and stash untouched); touched files must have no uncommitted
 *       changes, so the commit holds only this change
 *   lint baseline: biome's findings on the original tree (gate 3 compares with them)
 *   (1) backup: every touched file's bytes under TEA_HOME, then the patch is applied
 *   (2) typecheck  (3) lint: the finding count may not grow
 *   (4) tests: the tests related to the touched files, then the whole suite
 *   commit: the touched files only, with the reason and the test summary
 *
 * A failure, a timeout or a cancel after the backup restores the backups, removes
 * what the gates left, and checks the tree against the snapshot. One pipeline runs at
 * a time per Tea home (lock.ts).
 */
import { realpathSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { applyChanges, type Backup, makeBackup, restoreBackup, setState } from './backup.js';
import { COMMIT_HINT, commitMessage, drift, syncIndex } from './finish.js';
import {
  type Finding,
  GateCancelled,
  type GateRun,
  lintFindings,
  newFindings,
  tests,
  typecheck,
} from './gates.js';
import {
  commitPaths,
  headBranch,
  headCommit,
  missingIdentity,
  operationInProgress,
  uncommitted,
} from './git.js';
import { acquireLock } from './lock.js';
import { readPatch } from './patch.js';
import { type PlannedChange, planChanges } from './plan.js';
import { gateEnv } from './proc.js';
import { recoverInterrupted } from './recover.js';
import {
  GATE_HINTS,
  GATE_NAMES,
  type GateNumber,
  refusal,
  refusalFrom,
  type SelfModifyResult,
  type Stage,
} from './result.js';
import { captureState, type RestoreReport, restoreToSnapshot, type TreeState } from './rollback.js';

/** Time limits of the gates, in milliseconds. */
export interface GateTimeouts {
  typecheckMs: number;
  lintMs: number;
  relatedMs: number;
  suiteMs: number;
}

export const DEFAULT_TIMEOUTS: Readonly<GateTimeouts> = Object.freeze({
  typecheckMs: 10 * 60_000,
  lintMs: 5 * 60_000,
  relatedMs: 15 * 60_000,
  suiteMs: 45 * 60_000,
});

export interface SelfModifyOptions {
  /** Tea's repository (its git root). */
  root: string;
  /** Tea's data home: backups, the lock and reports go under `<home>/self-modify/`. */
  home: string;
  reason: string;
  patch: string;
  /** Run every gate, then restore the tree and commit nothing. */
  checkOnly?: boolean;
  signal: AbortSignal;
  timeouts?: Partial<GateTimeouts>;
  now?: () => Date;
  /** Told as each gate starts (progress for a face; tests wait on it). */
  onGate?: (gate: GateNumber, name: string) => void;
}

const MAX_REASON = 2_000;

/** The real path of `p`, or of its nearest existing ancestor joined with the rest. */
function real(p: string): string {
  const abs = path.resolve(p);
  try {
    return realpathSync.native(abs);
  } catch {
    const parent = path.dirname(abs);
    return parent === abs ? abs : path.join(real(parent), path.basename(abs));
  }
}

function inside(root: string, p: string): boolean {
  const rel = path.relative(real(root), real(p));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Runs the pipeline; never throws for a bad patch or a failing gate (see `SelfModifyResult`). */
export async function selfModify(o: SelfModifyOptions): Promise<SelfModifyResult> {
  const now = o.now ?? (() => new Date());
  const reason = o.reason.trim();
  if (reason === '' || reason.length > MAX_REASON)
    return refusal(
      reason === ''
        ? 'the reason is empty'
        : `the reason has ${reason.length} characters (at most ${MAX_REASON})`,
      'say in a sentence or two what the change does and why; it becomes the commit message',
    );
  let edits: ReturnType<typeof readPatch>;
  try {
    edits = readPatch(o.patch);
  } catch (error) {
    return refusalFrom(error);
  }
  const work = path.join(path.resolve(o.home), 'self-modify');
  if (inside(o.root, work))
    return refusal(
      `Tea's home (${o.home}) is inside the repository, where backups must not go`,
      'set TEA_HOME to a directory outside the repository',
    );
  const lock = await acquireLock(work, o.root, now());
  if (!('release' in lock))
    return refusal(
      `another self_modify is running (pid ${lock.pid || '?'}${lock.repo ? ` in ${lock.repo}` : ''}, since ${lock.startedAt || '?'})`,
      'one self-change at a time: wait for it to finish, then send this one again',
    );
  const tmp = await mkdtemp(path.join(work, 'tmp-'));
  try {
    // A run killed after applying its patch is put back first (where nobody edited since).
    const recovery = await recoverInterrupted(o.root, path.join(work, 'backups'));
    if (recovery.conflicts.length > 0)
      return refusal(
        recovery.conflicts.join('\n'),
        'tell the user: the backup holds the files as they were before that run; they decide what to keep',
      );
    let result: SelfModifyResult;
    try {
      result = await new Run(o, reason, now, tmp).go(edits);
    } catch (error) {
      // Only the steps before the patch is applied may throw (the gated part answers every failure).
      result = {
        ok: false,
        gate: 0,
        output: `self_modify could not start: ${(error as Error).message}`,
        hint: GATE_HINTS[0],
      };
    }
    const notes = recovery.recovered.map(
      (dir) => `an interrupted self_modify was rolled back from its backup (${dir}) before this one`,
    );
    return notes.length > 0 ? { ...result, notes } : result;
  } finally {
    await lock.release();
    await rm(tmp, { recursive: true, force: true });
  }
}

class Run {
  private readonly timeouts: GateTimeouts;
  private readonly env = gateEnv();
  private indexes = 0;

  constructor(
    private readonly o: SelfModifyOptions,
    private readonly reason: string,
    private readonly now: () => Date,
    private readonly tmp: string,
  ) {
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...o.timeouts };
  }

  /** A fresh temporary index file (outside the repository). */
  private index(): string {
    return path.join(this.tmp, `index-${this.indexes++}`);
  }

  private gate(timeoutMs: number): GateRun {
    return { root: this.o.root, env: this.env, signal: this.o.signal, timeoutMs, tmpDir: this.tmp };
  }

  private enter(gate: GateNumber): GateNumber {
    this.o.onGate?.(gate, GATE_NAMES[gate]);
    return gate;
  }

  private checkCancel(): void {
    if (this.o.signal.aborted) throw new GateCancelled();
  }

  async go(edits: ReturnType<typeof readPatch>): Promise<SelfModifyResult> {
    const { root } = this.o;
    let changes: PlannedChange[];
    try {
      changes = await planChanges(root, edits);
    } catch (error) {
      return refusalFrom(error);
    }
    const paths = changes.map((c) => c.path);
    // Gate 0: the snapshot, and whether this change can be committed on its own.
    this.enter(0);
    const head = await headCommit(root);
    if (head === undefined) return this.early(0, 'the repository has no commit yet', GATE_HINTS[0]);
    const op = await operationInProgress(root);
    if (op !== undefined)
      return this.early(
        0,
        `a git operation is in progress (${op})`,
        'ask the user to finish or abort it first',
      );
    if (!this.o.checkOnly) {
      const who = await missingIdentity(root);
      if (who !== undefined)
        return this.early(
          0,
          `git has no identity to commit with: ${who}`,
          'ask the user to set git config user.name and user.email',
        );
    }
    const before = await captureState(root, this.index());
    const dirty = await uncommitted(root, head, before.tree, paths);
    if (dirty.length > 0)
      return this.early(
        0,
        `these files have uncommitted changes: ${dirty.join(', ')}`,
        'the commit must hold only this change: leave those files out, or ask the user to commit or stash their changes first',
      );
    if (this.o.signal.aborted) return this.early(0, 'cancelled before any change', 'nothing was changed');
    // Gate 3's baseline, on the original tree.
    let lintBefore: Awaited<ReturnType<typeof lintFindings>>;
    try {
      lintBefore = await lintFindings(this.gate(this.timeouts.lintMs));
    } catch (error) {
      if (error instanceof GateCancelled)
        return this.early(3, 'cancelled before any change', 'nothing was changed');
      throw error;
    }
    if ('error' in lintBefore)
      return this.early(3, `biome could not check the original tree:\n${lintBefore.error}`, GATE_HINTS[3]);
    // Gate 1: the backup.
    this.enter(1);
    let backup: Backup;
    try {
      backup = await makeBackup(
        root,
        path.join(path.dirname(this.tmp), 'backups'),
        changes,
        { repo: root, reason: this.reason, head, snapshotTree: before.tree },
        this.now(),
      );
    } catch (error) {
      return this.early(1, `the backup could not be made: ${(error as Error).message}`, GATE_HINTS[1]);
    }
    return this.gated({ changes, paths, head, before, backup, lintBefore });
  }

  /** A failure before anything was written. */
  private early(gate: GateNumber, output: string, hint: string): SelfModifyResult {
    return { ok: false, gate, output, hint };
  }

  private async gated(s: {
    changes: PlannedChange[];
    paths: string[];
    head: string;
    before: TreeState;
    backup: Backup;
    lintBefore: Finding[];
  }): Promise<SelfModifyResult> {
    const { root } = this.o;
    let gate: GateNumber = 1;
    const fail = async (
      n: Stage,
      output: string,
      hint = GATE_HINTS[n === 'commit' ? 0 : n],
    ): Promise<SelfModifyResult> => {
      const restore = await this.restore(s.backup, s.before);
      return { ok: false, gate: n, output, hint, restore, backupDir: s.backup.dir };
    };
    try {
      await setState(s.backup.dir, 'applying');
      await applyChanges(root, s.changes, s.backup);
      this.checkCancel();
      gate = this.enter(2);
      const tc = await typecheck(this.gate(this.timeouts.typecheckMs));
      if (!tc.ok) return await fail(2, tc.output);
      gate = this.enter(3);
      const lintAfter = await lintFindings(this.gate(this.timeouts.lintMs));
      if ('error' in lintAfter) return await fail(3, lintAfter.error);
      if (lintAfter.length > s.lintBefore.length) {
        const fresh = newFindings(s.lintBefore, lintAfter);
        const shown = fresh.slice(0, 15).map((f) => `  ${f.shown}`);
        if (fresh.length > shown.length) shown.push(`  … ${fresh.length - shown.length} more`);
        return await fail(
          3,
          `biome check: ${s.lintBefore.length} findings before, ${lintAfter.length} after; new:\n${shown.join('\n')}`,
        );
      }
      gate = this.enter(4);
      const present = s.changes.filter((c) => c.kind !== 'delete').map((c) => c.path);
      let related = '';
      if (present.length > 0) {
        const r = await tests(this.gate(this.timeouts.relatedMs), present);
        if (!r.ok) return await fail(4, r.output);
        related = r.summary;
      }
      const suite = await tests(this.gate(this.timeouts.suiteMs));
      if (!suite.ok) return await fail(4, suite.output);
      this.checkCancel();
      const gates = {
        typecheck: tc.summary,
        lint: { before: s.lintBefore.length, after: lintAfter.length },
        related,
        suite: suite.summary,
      };
      const files = s.changes.map((c) => ({ path: c.path, kind: c.kind }));
      if (this.o.checkOnly) {
        const restore = await this.restore(s.backup, s.before, 'checked');
        return { ok: true, files, gates, backupDir: s.backup.dir, restore };
      }
      // What is committed is what the patch wrote: a gate that rewrote a touched file stops it.
      const drifted = await drift(root, s.changes, s.before.tree, this.index());
      if (drifted.touched.length > 0)
        return await fail(
          'commit',
          `the gates changed ${drifted.touched.join(', ')} after the patch was applied; nothing was committed`,
          'a test or tool rewrote files of the patch: find out which (read the tests) before sending it again',
        );
      const message = commitMessage(this.reason, gates);
      let commit: string;
      try {
        commit = await commitPaths(root, s.head, s.paths, message, this.index());
      } catch (error) {
        return await fail('commit', (error as Error).message, COMMIT_HINT);
      }
      await setState(s.backup.dir, 'committed');
      const warnings = [await syncIndex(root, s.paths)];
      if (drifted.others.length > 0)
        warnings.push(
          `the gates left changes outside the patch (neither committed nor removed): ${drifted.others.join(', ')}`,
        );
      const warning = warnings.filter((w) => w !== undefined).join('; ');
      const branch = await headBranch(root).catch(() => '');
      return {
        ok: true,
        commit,
        branch,
        files,
        gates,
        backupDir: s.backup.dir,
        ...(warning ? { warning } : {}),
      };
    } catch (error) {
      if (error instanceof GateCancelled)
        return await fail(
          gate,
          `cancelled during gate ${gate}`,
          'the change was cancelled; the tree is as it was',
        );
      return await fail(gate, `self_modify broke down: ${(error as Error).message}`, GATE_HINTS[gate]);
    }
  }

  private async restore(
    backup: Backup,
    before: TreeState,
    state: 'restored' | 'checked' = 'restored',
  ): Promise<RestoreReport> {
    const problems = await restoreBackup(this.o.root, backup);
    const report = await restoreToSnapshot(this.o.root, before, this.index());
    // A backup left `applying` is looked at again by the next run (recover.ts).
    if (problems.length === 0 && report.verified) await setState(backup.dir, state).catch(() => undefined);
    return { ...report, problems: [...problems, ...report.problems], verified: report.verified };
  }
}
