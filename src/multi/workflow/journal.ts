/**
 * The durable record one run's execution writes and replays: a node's start, then
 * its result, each committed before the run goes on. On resume the engine runs the
 * definition again from the start; a node whose completed result is in the journal
 * is not run, its recorded result is applied instead, so the state is rebuilt exactly.
 *
 * This is the seam a PostgreSQL runner (DBOS) replaces: there each node is a DBOS
 * step, whose result DBOS records in its own tables and returns on recovery; the
 * engine (engine.ts) is the same.
 */
import type { CheckpointRow, RunPatch, WorkflowRepo } from '../../store/index.js';
import type { WorkflowNode } from './types.js';

/** A node's result as recorded. */
export interface Recorded {
  status: 'completed' | 'failed';
  /** The node's result (its `result` in `set`, and what `output` writes). */
  value: unknown;
  /** For a condition: the label it routed on; a rejected approval: `rejected`. */
  route?: string;
  /** Anything else worth keeping (session id, usage, the error). */
  meta?: Record<string, unknown>;
  /** A failure the node's `on_error: continue` let through: reused like a completed one. */
  continued?: boolean;
}

export interface Journal {
  /** The recorded result of `nodeKey` that a resume reuses (completed, or a failure let through). */
  result(nodeKey: string): Recorded | undefined;
  /** The data of `nodeKey`'s last start (a timer's end, a sub-run's id), when it has one. */
  started(nodeKey: string): Record<string, unknown> | undefined;
  /** Records a start (once per key for control nodes: `once`); returns its seq, or undefined when skipped. */
  start(
    nodeKey: string,
    node: WorkflowNode,
    data: Record<string, unknown>,
    once?: boolean,
  ): number | undefined;
  /** Records a result with the scope's state after it; `run` patches the run in the same transaction. */
  finish(
    nodeKey: string,
    node: WorkflowNode,
    rec: Recorded,
    state: unknown,
    run?: RunPatch,
  ): number | undefined;
}

/** The journal of one run in SQLite (store/workflow-checkpoints.ts). */
export class SqliteJournal implements Journal {
  private readonly results = new Map<string, Recorded>();
  private readonly starts = new Map<string, Record<string, unknown>>();

  constructor(
    private readonly repo: WorkflowRepo,
    private readonly runId: string,
    existing: readonly CheckpointRow[],
    private readonly onCheckpoint: (seq: number, nodeKey: string, event: 'start' | 'result') => void,
  ) {
    for (const cp of existing) {
      if (cp.event === 'start') this.starts.set(cp.nodeKey, (cp.data ?? {}) as Record<string, unknown>);
      else {
        const rec = cp.data as Recorded;
        if (rec.status === 'completed' || rec.continued) this.results.set(cp.nodeKey, rec);
      }
    }
  }

  result(nodeKey: string): Recorded | undefined {
    return this.results.get(nodeKey);
  }

  started(nodeKey: string): Record<string, unknown> | undefined {
    return this.starts.get(nodeKey);
  }

  start(
    nodeKey: string,
    node: WorkflowNode,
    data: Record<string, unknown>,
    once = false,
  ): number | undefined {
    if (once && this.starts.has(nodeKey)) return undefined;
    const seq = this.repo.checkpoint(this.runId, {
      nodeKey,
      nodeId: node.id,
      kind: node.kind,
      event: 'start',
      data,
    });
    this.starts.set(nodeKey, data);
    this.onCheckpoint(seq, nodeKey, 'start');
    return seq;
  }

  finish(
    nodeKey: string,
    node: WorkflowNode,
    rec: Recorded,
    state: unknown,
    run?: RunPatch,
  ): number | undefined {
    // Replayed: already recorded (the run's row gets its state when the run next writes or ends).
    if (this.results.has(nodeKey)) return undefined;
    const seq = this.repo.checkpoint(
      this.runId,
      { nodeKey, nodeId: node.id, kind: node.kind, event: 'result', status: rec.status, data: rec, state },
      run,
    );
    if (rec.status === 'completed' || rec.continued) this.results.set(nodeKey, rec);
    this.onCheckpoint(seq, nodeKey, 'result');
    return seq;
  }
}
