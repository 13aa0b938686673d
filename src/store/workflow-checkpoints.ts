/**
 * The checkpoints of workflow runs: every node's start and result, numbered per run
 * in the order they were committed. A result is written in the same transaction as
 * the run's state it produced, so a process killed at any moment leaves either both
 * or neither.
 */
import type Database from 'better-sqlite3';
import type { Clock } from './clock.js';
import { StoreError } from './errors.js';
import { requireText } from './validate.js';

export type CheckpointEvent = 'start' | 'result';

export interface NewCheckpoint {
  /** One execution of a node: its id under its branch and loop iteration (`checks[1]/lint`). */
  nodeKey: string;
  nodeId: string;
  kind: string;
  event: CheckpointEvent;
  /** For a result: `completed`, `failed`, … (the engine's words). */
  status?: string;
  /** What the engine needs to reuse or resume the node (JSON-able). */
  data: unknown;
  /** The state of the node's scope after a result (JSON-able). */
  state?: unknown;
}

export interface CheckpointRow {
  runId: string;
  seq: number;
  nodeKey: string;
  nodeId: string;
  kind: string;
  event: CheckpointEvent;
  status: string | null;
  data: unknown;
  state: unknown;
  createdAt: number;
}

interface CheckpointRecord {
  run_id: string;
  seq: number;
  node_key: string;
  node_id: string;
  kind: string;
  event: CheckpointEvent;
  status: string | null;
  data: string;
  state: string | null;
  created_at: number;
}

const COLUMNS = 'run_id, seq, node_key, node_id, kind, event, status, data, state, created_at';

export function toJson(value: unknown, field: string): string {
  try {
    const text = JSON.stringify(value ?? null);
    if (text === undefined) throw new Error('not representable as JSON');
    return text;
  } catch (err) {
    throw new StoreError(`${field} must be JSON-able: ${(err as Error).message}`, 'invalid', { cause: err });
  }
}

export function fromJson(text: string | null): unknown {
  return text === null ? undefined : JSON.parse(text);
}

export class CheckpointRepo {
  private readonly insertStmt;
  private readonly nextSeqStmt;
  private readonly listStmt;
  private readonly copyStmt;

  constructor(
    db: Database.Database,
    private readonly now: Clock,
  ) {
    this.insertStmt = db.prepare<[CheckpointRecord], void>(
      `INSERT INTO workflow_checkpoints (${COLUMNS})
       VALUES (@run_id, @seq, @node_key, @node_id, @kind, @event, @status, @data, @state, @created_at)`,
    );
    this.nextSeqStmt = db
      .prepare<[string], number>(
        'SELECT COALESCE(MAX(seq), 0) + 1 FROM workflow_checkpoints WHERE run_id = ?',
      )
      .pluck();
    this.listStmt = db.prepare<[string, number], CheckpointRecord>(
      `SELECT ${COLUMNS} FROM workflow_checkpoints WHERE run_id = ? AND seq <= ? ORDER BY seq`,
    );
    this.copyStmt = db.prepare<[string, string, number], void>(
      `INSERT INTO workflow_checkpoints (${COLUMNS})
       SELECT ?, seq, node_key, node_id, kind, event, status, data, state, created_at
       FROM workflow_checkpoints WHERE run_id = ? AND seq <= ?`,
    );
  }

  /** Appends a checkpoint (the caller holds a transaction when it writes more with it); returns its seq. */
  append(runId: string, cp: NewCheckpoint): number {
    const seq = this.nextSeqStmt.get(runId) ?? 1;
    this.insertStmt.run({
      run_id: runId,
      seq,
      node_key: requireText(cp.nodeKey, 'checkpoint node key'),
      node_id: requireText(cp.nodeId, 'checkpoint node id'),
      kind: requireText(cp.kind, 'checkpoint node kind'),
      event: cp.event,
      status: cp.status ?? null,
      data: toJson(cp.data, 'checkpoint data'),
      state: cp.state === undefined ? null : toJson(cp.state, 'checkpoint state'),
      created_at: this.now(),
    });
    return seq;
  }

  /** The run's checkpoints in order, up to `upTo` (default: all). */
  list(runId: string, upTo = Number.MAX_SAFE_INTEGER): CheckpointRow[] {
    return this.listStmt.all(runId, upTo).map(toRow);
  }

  /** Copies `from`'s checkpoints 1…`upTo` to `to` (a fork). */
  copy(from: string, to: string, upTo: number): void {
    this.copyStmt.run(to, from, upTo);
  }
}

function toRow(r: CheckpointRecord): CheckpointRow {
  return {
    runId: r.run_id,
    seq: r.seq,
    nodeKey: r.node_key,
    nodeId: r.node_id,
    kind: r.kind,
    event: r.event,
    status: r.status,
    data: fromJson(r.data),
    state: fromJson(r.state),
    createdAt: r.created_at,
  };
}
