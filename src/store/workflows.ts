/**
 * Workflow runs (migration 10): one row per run with its input, its state after the
 * last checkpoint, its status and the process running it now; the checkpoints
 * themselves are in workflow-checkpoints.ts. A run is held by at most one process at
 * a time, like a session lease (leases.ts): a dead holder's run is taken over.
 */
import type Database from 'better-sqlite3';
import { randomUUID } from '../util/random-id.js';
import type { Clock } from './clock.js';
import { StoreError } from './errors.js';
import { type Lease, type LeaseOwner, leaseIsLive } from './leases.js';
import { requireText } from './validate.js';
import { CheckpointRepo, fromJson, type NewCheckpoint, toJson } from './workflow-checkpoints.js';

/** `pending`: made (a fork) and not started yet. */
export type RunStatus = 'pending' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';

export interface NewRun {
  id?: string;
  workflow: string;
  /** Where the definition came from: a file path, or `builtin:<name>`. */
  source: string;
  /** The definition's text (YAML) when it can be kept; null: read again from `source`. */
  definition: string | null;
  defHash: string;
  cwd: string;
  input: unknown;
  state: unknown;
  parentRunId?: string;
  parentNode?: string;
  forkedFrom?: string;
  forkedSeq?: number;
  /** Default `running`. */
  status?: RunStatus;
}

export interface RunRow {
  id: string;
  workflow: string;
  source: string;
  definition: string | null;
  defHash: string;
  cwd: string;
  input: unknown;
  state: unknown;
  output: unknown;
  status: RunStatus;
  error: string | null;
  parentRunId: string | null;
  parentNode: string | null;
  forkedFrom: string | null;
  forkedSeq: number | null;
  cancelRequested: boolean;
  /** The process running it now, when one took it (it may since have died: see `holderLive`). */
  holder: { owner: string; pid: number; host: string; heartbeatAt: number } | null;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

export interface RunPatch {
  status?: RunStatus;
  error?: string | null;
  output?: unknown;
  state?: unknown;
}

interface RunRecord {
  id: string;
  workflow: string;
  source: string;
  definition: string | null;
  def_hash: string;
  cwd: string;
  input: string;
  state: string;
  output: string | null;
  status: RunStatus;
  error: string | null;
  parent_run_id: string | null;
  parent_node: string | null;
  forked_from: string | null;
  forked_seq: number | null;
  cancel_requested: number;
  owner: string | null;
  pid: number | null;
  host: string | null;
  proc_start: string | null;
  heartbeat_at: number | null;
  expires_at: number | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
}

const FINISHED: readonly RunStatus[] = ['completed', 'failed', 'cancelled'];

export type RunAcquire = { ok: true } | { ok: false; holder: { pid: number; host: string } };

export class WorkflowRepo {
  readonly checkpoints: CheckpointRepo;
  private readonly getStmt;
  private readonly prefixStmt;
  private readonly listStmt;
  private readonly childStmt;
  private readonly renewStmt;
  private readonly releaseStmt;
  private readonly cancelStmt;
  private readonly deleteStmt;
  private readonly takeStmt;
  /** UPDATE statements of `patch`, by the columns they set. */
  private readonly patchStmts = new Map<string, Database.Statement>();
  private readonly acquireTx;
  private readonly appendTx;

  constructor(
    private readonly db: Database.Database,
    private readonly now: Clock,
  ) {
    this.checkpoints = new CheckpointRepo(db, now);
    this.getStmt = db.prepare<[string], RunRecord>('SELECT * FROM workflow_runs WHERE id = ?');
    this.prefixStmt = db.prepare<[string, string], RunRecord>(
      'SELECT * FROM workflow_runs WHERE substr(id, 1, length(?)) = ? ORDER BY id LIMIT 6',
    );
    this.listStmt = db.prepare<[number], RunRecord>(
      `SELECT * FROM workflow_runs WHERE parent_run_id IS NULL
       ORDER BY updated_at DESC, rowid DESC LIMIT ?`,
    );
    this.childStmt = db.prepare<[string], RunRecord>(
      'SELECT * FROM workflow_runs WHERE parent_run_id = ? ORDER BY created_at, rowid',
    );
    this.renewStmt = db.prepare<[number, number, string, string], void>(
      'UPDATE workflow_runs SET heartbeat_at = ?, expires_at = ? WHERE id = ? AND owner = ?',
    );
    this.releaseStmt = db.prepare<[string, string], void>(
      `UPDATE workflow_runs SET owner = NULL, pid = NULL, host = NULL, proc_start = NULL,
         heartbeat_at = NULL, expires_at = NULL WHERE id = ? AND owner = ?`,
    );
    this.cancelStmt = db.prepare<[number, string], void>(
      'UPDATE workflow_runs SET cancel_requested = 1, updated_at = ? WHERE id = ?',
    );
    this.deleteStmt = db.prepare<[string], void>('DELETE FROM workflow_runs WHERE id = ?');
    this.takeStmt = db.prepare<[string, number, string, string | null, number, number, number, string], void>(
      `UPDATE workflow_runs SET owner = ?, pid = ?, host = ?, proc_start = ?, heartbeat_at = ?,
         expires_at = ?, cancel_requested = 0, updated_at = ? WHERE id = ?`,
    );
    // IMMEDIATE: two processes cannot both find the run free and both take it.
    this.acquireTx = db.transaction((id: string, owner: LeaseOwner, ttlMs: number): RunAcquire => {
      const now = this.now();
      const r = this.record(id);
      if (r.owner !== null && r.owner !== owner.id && leaseIsLive(leaseOf(r), now)) {
        return { ok: false, holder: { pid: r.pid ?? 0, host: r.host ?? '?' } };
      }
      this.takeStmt.run(owner.id, owner.pid, owner.host, owner.procStart, now, now + ttlMs, now, id);
      return { ok: true };
    }).immediate;
    this.appendTx = db.transaction((id: string, cp: NewCheckpoint, patch: RunPatch | undefined): number => {
      const seq = this.checkpoints.append(id, cp);
      this.patch(id, patch ?? {});
      return seq;
    });
  }

  create(input: NewRun): RunRow {
    const id = input.id ?? randomUUID();
    const now = this.now();
    this.db
      .prepare(
        `INSERT INTO workflow_runs (id, workflow, source, definition, def_hash, cwd, input, state, status,
           parent_run_id, parent_node, forked_from, forked_seq, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        requireText(input.workflow, 'workflow name'),
        requireText(input.source, 'workflow source'),
        input.definition,
        input.defHash,
        requireText(input.cwd, 'workflow cwd'),
        toJson(input.input, 'workflow input'),
        toJson(input.state, 'workflow state'),
        input.status ?? 'running',
        input.parentRunId ?? null,
        input.parentNode ?? null,
        input.forkedFrom ?? null,
        input.forkedSeq ?? null,
        now,
        now,
      );
    return this.get(id)!;
  }

  get(id: string): RunRow | undefined {
    const r = this.getStmt.get(id);
    return r === undefined ? undefined : toRow(r);
  }

  /** A run by exact id or a unique prefix of at least four characters. */
  resolve(idOrPrefix: string): RunRow {
    const wanted = requireText(idOrPrefix, 'run id').trim();
    const exact = this.getStmt.get(wanted);
    if (exact) return toRow(exact);
    const matches = wanted.length >= 4 ? this.prefixStmt.all(wanted, wanted) : [];
    if (matches.length === 0) {
      const short = wanted.length < 4 ? ' (a prefix needs at least 4 characters)' : '';
      throw new StoreError(`workflow run not found: '${wanted}'${short}`, 'not-found');
    }
    if (matches.length > 1) {
      const shown = matches.slice(0, 5).map((m) => m.id);
      throw new StoreError(
        `run id '${wanted}' is an ambiguous prefix: matches ${shown.join(', ')}${matches.length > 5 ? ', …' : ''}`,
        'ambiguous',
      );
    }
    return toRow(matches[0]!);
  }

  /** Top-level runs (not sub-workflow runs), most recently updated first. */
  list(limit = 20): RunRow[] {
    return this.listStmt.all(limit).map(toRow);
  }

  /** The sub-workflow runs a run started, oldest first. */
  children(parentId: string): RunRow[] {
    return this.childStmt.all(parentId).map(toRow);
  }

  /** Sets the given fields and bumps `updatedAt` (and `finishedAt` for a finished status). */
  patch(id: string, patch: RunPatch): void {
    const sets: string[] = ['updated_at = @now'];
    const values: Record<string, unknown> = { id, now: this.now() };
    if (patch.status !== undefined) {
      sets.push('status = @status', 'finished_at = @finished');
      values.status = patch.status;
      values.finished = FINISHED.includes(patch.status) ? values.now : null;
    }
    if (patch.error !== undefined) {
      sets.push('error = @error');
      values.error = patch.error;
    }
    if (patch.output !== undefined) {
      sets.push('output = @output');
      values.output = toJson(patch.output, 'workflow output');
    }
    if (patch.state !== undefined) {
      sets.push('state = @state');
      values.state = toJson(patch.state, 'workflow state');
    }
    const sql = `UPDATE workflow_runs SET ${sets.join(', ')} WHERE id = @id`;
    let stmt = this.patchStmts.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      this.patchStmts.set(sql, stmt);
    }
    const result = stmt.run(values);
    if (result.changes === 0) throw new StoreError(`workflow run not found: '${id}'`, 'not-found');
  }

  /** A new run (`pending`) that starts from `from`'s checkpoints 1…`seq` (copied), in one transaction. */
  fork(from: RunRow, seq: number, id?: string): RunRow {
    return this.db
      .transaction(() => {
        const row = this.create({
          ...(id ? { id } : {}),
          workflow: from.workflow,
          source: from.source,
          definition: from.definition,
          defHash: from.defHash,
          cwd: from.cwd,
          input: from.input,
          state: from.state,
          forkedFrom: from.id,
          forkedSeq: seq,
          status: 'pending',
        });
        this.checkpoints.copy(from.id, row.id, seq);
        return row;
      })
      .immediate();
  }

  /** Appends a checkpoint and applies `patch` to the run in one transaction; returns the checkpoint's seq. */
  checkpoint(runId: string, cp: NewCheckpoint, patch?: RunPatch): number {
    return this.appendTx.immediate(runId, cp, patch);
  }

  /** Takes the run for `owner` unless a live process holds it; clears a cancel request. */
  acquire(id: string, owner: LeaseOwner, ttlMs: number): RunAcquire {
    return this.acquireTx(id, owner, ttlMs);
  }

  /** Renews the hold; says whether it is still `ownerId`'s and whether a cancel was asked for. */
  renew(id: string, ownerId: string, ttlMs: number): { held: boolean; cancelRequested: boolean } {
    const now = this.now();
    this.renewStmt.run(now, now + ttlMs, id, ownerId);
    const r = this.getStmt.get(id);
    return { held: r?.owner === ownerId, cancelRequested: r?.cancel_requested === 1 };
  }

  release(id: string, ownerId: string): void {
    this.releaseStmt.run(id, ownerId);
  }

  /** Asks the process running the run to cancel it (it notices at its next heartbeat). */
  requestCancel(id: string): void {
    this.cancelStmt.run(this.now(), id);
  }

  /** Whether the process that holds the run still runs (false when none holds it). */
  holderLive(id: string): boolean {
    const r = this.record(id);
    return r.owner !== null && leaseIsLive(leaseOf(r), this.now());
  }

  /** Deletes a run with its checkpoints and sub-workflow runs. */
  delete(id: string): boolean {
    return this.deleteStmt.run(id).changes > 0;
  }

  private record(id: string): RunRecord {
    const r = this.getStmt.get(id);
    if (!r) throw new StoreError(`workflow run not found: '${id}'`, 'not-found');
    return r;
  }
}

function leaseOf(r: RunRecord): Lease {
  return {
    sessionId: r.id,
    owner: r.owner ?? '',
    pid: r.pid ?? 0,
    host: r.host ?? '',
    procStart: r.proc_start,
    acquiredAt: r.heartbeat_at ?? 0,
    heartbeatAt: r.heartbeat_at ?? 0,
    expiresAt: r.expires_at ?? 0,
  };
}

function toRow(r: RunRecord): RunRow {
  return {
    id: r.id,
    workflow: r.workflow,
    source: r.source,
    definition: r.definition,
    defHash: r.def_hash,
    cwd: r.cwd,
    input: fromJson(r.input),
    state: fromJson(r.state),
    output: fromJson(r.output),
    status: r.status,
    error: r.error,
    parentRunId: r.parent_run_id,
    parentNode: r.parent_node,
    forkedFrom: r.forked_from,
    forkedSeq: r.forked_seq,
    cancelRequested: r.cancel_requested === 1,
    holder:
      r.owner === null
        ? null
        : { owner: r.owner, pid: r.pid ?? 0, host: r.host ?? '', heartbeatAt: r.heartbeat_at ?? 0 },
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    finishedAt: r.finished_at,
  };
}
