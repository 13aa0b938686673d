/** What a run's checkpoints say about each node execution: its status, attempts and times. */
import type { CheckpointRow, RunRow, RunStatus } from '../../store/index.js';

export type NodeRunStatus = 'running' | 'completed' | 'failed' | 'waiting' | 'interrupted';

export interface NodeView {
  /** One execution of a node (`checks[1]/lint`, `fix#2/verify`). */
  key: string;
  nodeId: string;
  kind: string;
  status: NodeRunStatus;
  /** How many times it started (more than one: it ran again after a crash, a failure or a wait). */
  attempts: number;
  startedAt?: number;
  finishedAt?: number;
  /** The recorded result (for a failure: its error). */
  value?: unknown;
  error?: string;
  /** An agent node's session (its transcript: `tea sessions show`). */
  sessionId?: string;
}

/** `interrupted`: its status says running, but no live process runs it (it crashed or was killed). */
export type RunView = RunStatus | 'interrupted';

export function runView(row: RunRow, live: boolean): RunView {
  return row.status === 'running' && !live ? 'interrupted' : row.status;
}

/** Every node execution in the order each first started (or finished, for control nodes). */
export function nodeViews(checkpoints: readonly CheckpointRow[], run: RunView): NodeView[] {
  const views = new Map<string, NodeView>();
  for (const cp of checkpoints) {
    let v = views.get(cp.nodeKey);
    if (!v) {
      v = { key: cp.nodeKey, nodeId: cp.nodeId, kind: cp.kind, status: 'running', attempts: 0 };
      views.set(cp.nodeKey, v);
    }
    if (cp.event === 'start') {
      v.attempts++;
      v.startedAt ??= cp.createdAt;
      v.status = 'running';
      delete v.finishedAt;
      delete v.error;
      continue;
    }
    const data = (cp.data ?? {}) as { value?: unknown; meta?: { error?: string; sessionId?: string | null } };
    if (data.meta?.sessionId) v.sessionId = data.meta.sessionId;
    v.status = cp.status === 'completed' ? 'completed' : 'failed';
    v.finishedAt = cp.createdAt;
    v.value = data.value;
    if (data.meta?.error) v.error = data.meta.error;
    else delete v.error;
  }
  const stillRunning: NodeRunStatus =
    run === 'waiting' ? 'waiting' : run === 'running' ? 'running' : 'interrupted';
  for (const v of views.values()) {
    // A control node (parallel, loop) is open while its inside runs; any other open node was cut short.
    if (v.status === 'running') v.status = stillRunning;
  }
  return [...views.values()];
}

/** The status of each node id (its latest execution wins), for the graph. */
export function statusById(views: readonly NodeView[]): Map<string, NodeRunStatus> {
  const out = new Map<string, NodeRunStatus>();
  for (const v of views) out.set(v.nodeId, v.status);
  return out;
}
