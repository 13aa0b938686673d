/**
 * Workflows in the API's snake_case shapes (definitions with their inputs, runs,
 * nodes, checkpoints), and the errors of workflows as OpenAI-style 4xx answers.
 */
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import type { CatalogEntry, NodeView, RunView, WorkflowDefinition } from '../multi/workflow/index.js';
import type { CheckpointRow, RunDetails, RunRow } from '../runtime/workflows.js';
import { apiError } from './errors.js';

export interface InputView {
  name: string;
  /** string, number, integer, boolean, array, object, or null when the schema says nothing. */
  type: string | null;
  required: boolean;
  default?: unknown;
  description?: string;
  enum?: unknown[];
}

export interface DefinitionView {
  name: string;
  description: string | null;
  /** Where the file is: the project's `.tea/workflows/`, the user's `~/.tea/workflows/`, or built in. */
  source: CatalogEntry['where'];
  file: string;
  inputs: InputView[];
  /** The input as a JSON schema. */
  input_schema: Record<string, unknown> | null;
  /** The file does not load: why (it cannot be started). */
  error: string | null;
}

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  description?: string;
  enum?: unknown[];
};

function inputSchema(def: WorkflowDefinition): JsonSchema | null {
  try {
    const { $schema: _drop, ...rest } = z.toJSONSchema(def.input, {
      io: 'input',
      unrepresentable: 'any',
    }) as JsonSchema & { $schema?: string };
    return rest;
  } catch {
    return null;
  }
}

/**
 * What a YAML file says of its inputs beyond their types (a description, the allowed
 * values), which the input's zod schema does not carry.
 */
function yamlInputNotes(def: WorkflowDefinition): Map<string, Pick<InputView, 'description' | 'enum'>> {
  const out = new Map<string, Pick<InputView, 'description' | 'enum'>>();
  if (!def.source.text) return out;
  let doc: unknown;
  try {
    doc = parseYaml(def.source.text);
  } catch {
    return out;
  }
  const input = (doc as { input?: unknown } | null)?.input;
  if (!input || typeof input !== 'object') return out;
  for (const [name, spec] of Object.entries(input as Record<string, unknown>)) {
    if (!spec || typeof spec !== 'object') continue;
    const { description, enum: allowed } = spec as { description?: unknown; enum?: unknown };
    out.set(name, {
      ...(typeof description === 'string' ? { description } : {}),
      ...(Array.isArray(allowed) ? { enum: allowed } : {}),
    });
  }
  return out;
}

export function definitionView(entry: CatalogEntry, def: WorkflowDefinition | undefined): DefinitionView {
  const schema = def ? inputSchema(def) : null;
  const notes = def ? yamlInputNotes(def) : new Map();
  const required = new Set(schema?.required ?? []);
  const inputs: InputView[] = Object.entries(schema?.properties ?? {}).map(([name, p]) => {
    // A field with a default is optional to the caller even when the schema lists it.
    const type = Array.isArray(p.type) ? (p.type.find((t) => t !== 'null') ?? null) : (p.type ?? null);
    return {
      name,
      type,
      required: required.has(name) && p.default === undefined,
      ...(p.default === undefined ? {} : { default: p.default }),
      ...(p.description ? { description: p.description } : {}),
      ...(p.enum ? { enum: p.enum } : {}),
      ...notes.get(name),
    };
  });
  if (def && !schema) {
    for (const name of Object.keys(def.input.shape)) inputs.push({ name, type: null, required: false });
  }
  return {
    name: entry.name,
    description: def?.description ?? entry.description ?? null,
    source: entry.where,
    file: entry.file,
    inputs,
    input_schema: schema as Record<string, unknown> | null,
    error: entry.error ?? null,
  };
}

export interface RunSummaryView {
  id: string;
  workflow: string;
  /** pending, running, waiting, completed, failed, cancelled; `interrupted`: no process runs it (resume it). */
  status: RunView;
  error: string | null;
  source: string;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  /** Until it finished (a running run: until now; a stopped one: until it last changed). */
  duration_ms: number;
  parent_run_id: string | null;
  forked_from: string | null;
  forked_seq: number | null;
}

export function runSummaryView(row: RunRow, status: RunView, now = Date.now()): RunSummaryView {
  const end = row.finishedAt ?? (status === 'running' ? now : row.updatedAt);
  return {
    id: row.id,
    workflow: row.workflow,
    status,
    error: row.error,
    source: row.source,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    finished_at: row.finishedAt,
    duration_ms: Math.max(0, end - row.createdAt),
    parent_run_id: row.parentRunId,
    forked_from: row.forkedFrom,
    forked_seq: row.forkedSeq,
  };
}

export interface NodeRunView {
  /** One execution of a node (`checks[1]/lint`, `fix#2/verify`). */
  key: string;
  node_id: string;
  kind: string;
  status: NodeView['status'];
  attempts: number;
  started_at: number | null;
  finished_at: number | null;
  value?: unknown;
  error: string | null;
  /** An agent node: its role and its session (open it with /v1/sessions/{id}). */
  role?: string;
  session_id?: string | null;
  /** A tool node: the tool. */
  tool?: string;
  /** A wait node asking for approval: the question. */
  question?: string;
  /** A workflow node: its sub-run. */
  child_run_id?: string;
}

/** What the last start and result checkpoints of each node key recorded. */
function recordedByKey(history: readonly CheckpointRow[]) {
  const starts = new Map<string, Record<string, unknown>>();
  const metas = new Map<string, Record<string, unknown>>();
  for (const cp of history) {
    const data = (cp.data ?? {}) as Record<string, unknown>;
    if (cp.event === 'start') starts.set(cp.nodeKey, data);
    else if (data.meta && typeof data.meta === 'object') metas.set(cp.nodeKey, data.meta as never);
  }
  return { starts, metas };
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function nodeViews(nodes: readonly NodeView[], history: readonly CheckpointRow[]): NodeRunView[] {
  const { starts, metas } = recordedByKey(history);
  return nodes.map((n) => {
    const start = starts.get(n.key) ?? {};
    const meta = metas.get(n.key) ?? {};
    const view: NodeRunView = {
      key: n.key,
      node_id: n.nodeId,
      kind: n.kind,
      status: n.status,
      attempts: n.attempts,
      started_at: n.startedAt ?? null,
      finished_at: n.finishedAt ?? null,
      ...(n.value === undefined ? {} : { value: n.value }),
      error: n.error ?? null,
    };
    if (n.kind === 'agent') {
      const role = text(start.role);
      if (role) view.role = role;
      view.session_id = n.sessionId ?? text(meta.sessionId) ?? null;
    } else if (n.kind === 'tool') {
      const tool = text(start.tool);
      if (tool) view.tool = tool;
    } else if (n.kind === 'wait') {
      const question = text(start.question);
      if (question !== undefined) view.question = question;
    } else if (n.kind === 'workflow') {
      const child = text(start.runId);
      if (child) view.child_run_id = child;
    }
    return view;
  });
}

export interface WaitingApproval {
  run_id: string;
  node_key: string;
  question: string;
}

export interface RunDetailsView extends RunSummaryView {
  input: unknown;
  state: unknown;
  output: unknown;
  nodes: NodeRunView[];
  /** The approvals the run (or one of its sub-runs) waits for: resume with a decision. */
  waiting: WaitingApproval[];
  children: Array<{ id: string; workflow: string; status: string; parent_node: string | null }>;
  /** The workflow's Mermaid flowchart, each node marked by its status in this run. */
  graph: string;
  /** The definition changed since the run started (a module edited since). */
  changed: boolean;
}

export function runDetailsView(
  d: RunDetails,
  history: readonly CheckpointRow[],
  waiting: WaitingApproval[],
): RunDetailsView {
  return {
    ...runSummaryView(d.run, d.status),
    input: d.run.input,
    state: d.run.state,
    output: d.run.output,
    nodes: nodeViews(d.nodes, history),
    waiting,
    children: d.children.map((c) => ({
      id: c.id,
      workflow: c.workflow,
      status: c.status,
      parent_node: c.parentNode,
    })),
    graph: d.graph,
    changed: d.changed,
  };
}

export function checkpointView(cp: CheckpointRow): Record<string, unknown> {
  return {
    seq: cp.seq,
    node_key: cp.nodeKey,
    node_id: cp.nodeId,
    kind: cp.kind,
    event: cp.event,
    status: cp.status,
    data: cp.data,
    state: cp.state,
    created_at: cp.createdAt,
  };
}

/**
 * A workflow error as a 4xx: an unknown run 404 `run_not_found`, an unknown workflow
 * 404 `workflow_not_found`, a run another process holds 409 `run_busy`, a finished
 * one 409 `run_finished`, a bad file 422 `invalid_workflow`, bad input 400 naming
 * `param`. Anything else is thrown as it is (a 500).
 */
export function workflowError(e: unknown, param: string | null = null): unknown {
  if (!(e instanceof Error)) return e;
  const code = (e as { code?: string }).code;
  if (e.name === 'StoreError') {
    if (code === 'not-found') return apiError(404, e.message, { param: 'id', code: 'run_not_found' });
    if (code === 'ambiguous') return apiError(400, e.message, { param: 'id', code: 'ambiguous_run_id' });
    if (code === 'invalid') return apiError(400, e.message, { param: 'id', code: 'invalid_value' });
    return e;
  }
  if (e.name === 'WorkflowDefinitionError')
    return apiError(422, `the workflow file is not valid:\n${e.message}`, { code: 'invalid_workflow' });
  if (e.name !== 'WorkflowRunError') return e;
  switch (code) {
    case 'not_found':
      return /^run /.test(e.message)
        ? apiError(409, e.message, { code: 'workflow_gone' })
        : apiError(404, e.message, { param: 'name', code: 'workflow_not_found' });
    case 'busy':
      return apiError(409, e.message, { code: 'run_busy' });
    case 'finished':
      return apiError(409, e.message, { code: 'run_finished' });
    case 'changed':
      return apiError(409, e.message, { code: 'definition_changed' });
    default:
      return apiError(400, e.message, { param, code: 'invalid_value' });
  }
}

/** Runs `fn`, turning workflow errors into API errors. */
export async function mapped<T>(fn: () => T | Promise<T>, param: string | null = null): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw workflowError(e, param);
  }
}
