/** The shapes of the workflow routes (`/v1/workflows`, `/v1/workflow-runs`) and of a run's event stream. */
import type { StreamEvent } from './types.js';

export interface WorkflowInput {
  name: string;
  /** string, number, integer, boolean, array, object, or null (anything). */
  type: string | null;
  required: boolean;
  default?: unknown;
  description?: string;
  enum?: unknown[];
}

export interface WorkflowDef {
  name: string;
  description: string | null;
  source: 'project' | 'user' | 'builtin';
  file: string;
  inputs: WorkflowInput[];
  /** The file does not load: why. */
  error: string | null;
  /** A file of the same name comes first: starting by name runs that one. */
  shadowed: boolean;
}

export type RunStatus =
  | 'pending'
  | 'running'
  | 'waiting'
  | 'completed'
  | 'failed'
  | 'cancelled'
  | 'interrupted';

export interface RunSummary {
  id: string;
  workflow: string;
  status: RunStatus;
  error: string | null;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  duration_ms: number;
  forked_from: string | null;
  forked_seq: number | null;
}

export type NodeStatus = 'running' | 'completed' | 'failed' | 'waiting' | 'interrupted';

export interface NodeRun {
  key: string;
  node_id: string;
  kind: string;
  status: NodeStatus;
  attempts: number;
  started_at: number | null;
  finished_at: number | null;
  value?: unknown;
  error: string | null;
  role?: string;
  session_id?: string | null;
  tool?: string;
  question?: string;
  child_run_id?: string;
}

export interface WaitingApproval {
  run_id: string;
  node_key: string;
  question: string;
}

export interface RunDetails extends RunSummary {
  input: unknown;
  state: unknown;
  output: unknown;
  nodes: NodeRun[];
  waiting: WaitingApproval[];
  graph: string;
  changed: boolean;
}

export interface Checkpoint {
  seq: number;
  node_key: string;
  kind: string;
  event: 'start' | 'result';
  status: string | null;
  created_at: number;
}

/** An event of `/v1/workflow-runs/{id}/events` (camelCase, as the runtime emits them). */
export type RunEvent =
  | { type: 'status'; runId: string; status: RunStatus }
  | { type: 'run_start'; runId: string; workflow: string; resumed: boolean; parentRunId?: string }
  | { type: 'node_start'; runId: string; nodeKey: string; nodeId: string; kind: string }
  | {
      type: 'node_end';
      runId: string;
      nodeKey: string;
      nodeId: string;
      kind: string;
      status: 'completed' | 'failed';
      reused: boolean;
      error?: string;
    }
  | { type: 'checkpoint'; runId: string; seq: number; nodeKey: string; event: 'start' | 'result' }
  | { type: 'agent'; runId: string; nodeKey: string; event: StreamEvent }
  | { type: 'approval_request'; runId: string; nodeKey: string; question: string }
  | { type: 'timer'; runId: string; nodeKey: string; until: number }
  | { type: 'run_end'; runId: string; status: RunStatus; output?: unknown; error?: string };

/** A run that no process moves on its own: resume can take it further. */
export function resumable(status: RunStatus): boolean {
  return ['pending', 'waiting', 'failed', 'cancelled', 'interrupted'].includes(status);
}

/** A run that cancel can stop. */
export function cancellable(status: RunStatus): boolean {
  return ['running', 'waiting', 'pending', 'interrupted'].includes(status);
}
