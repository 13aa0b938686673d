/**
 * The nodes that do work: `agent`, `tool`, `wait` and `workflow`. Each records its
 * start (with what a re-run needs: a timer's end, the rendered prompt) and returns
 * its result for the engine to record; none writes state itself.
 */

import { createHash } from 'node:crypto';
import type { TraceParent } from '../../agent/trace.js';
import type { PermissionMode } from '../../tools/permissions.js';
import { loadZod } from '../roles/zod-full.js';
import type { Scope } from './expr-eval.js';
import { Parked, RunCancelled } from './frame.js';
import type { Journal, Recorded } from './journal.js';
import { fitValue } from './schema.js';
import { render, renderDeep, renderText } from './template.js';
import type {
  AgentNode,
  AgentNodeRunner,
  ApprovalPort,
  ToolNode,
  ToolNodeRunner,
  WaitNode,
  WorkflowCallNode,
  WorkflowEvent,
} from './types.js';

/** Runs a sub-workflow as a run of its own (the runner implements it). */
export type SubWorkflowPort = (req: {
  workflow: string;
  /** The calling workflow's file (a relative path is resolved against it). */
  from: string;
  input: Record<string, unknown>;
  parentRunId: string;
  parentNode: string;
  /** The sub-run's id: the same for the same parent and node, so a resume finds it. */
  runId: string;
  decisions?: Record<string, boolean>;
  traceParent?: TraceParent;
  signal: AbortSignal;
}) => Promise<{ status: 'completed' | 'failed' | 'cancelled' | 'waiting'; output?: unknown; error?: string }>;

export interface EngineDeps {
  agents: AgentNodeRunner;
  tools: ToolNodeRunner;
  /** Asks the user about a `wait` approval; absent: the run waits for a decision given to resume. */
  approvals?: ApprovalPort;
  /** Decisions on approvals, by node key or node id (`resume --approve`). */
  decisions?: Record<string, boolean>;
  subWorkflow: SubWorkflowPort;
  /** Epoch ms (injectable: timers in tests). */
  now: () => number;
  /** Resolves after `ms`, rejects when `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  emit: (event: WorkflowEvent) => void;
  /** The run's invoke_workflow span: agent nodes and sub-workflows trace under it. */
  traceParent?: TraceParent;
}

export interface StepContext {
  runId: string;
  file: string;
  mode: PermissionMode | undefined;
  deps: EngineDeps;
  journal: Journal;
  signal: AbortSignal;
}

const short = (text: string, max = 300): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

function failed(error: string, value: unknown = null, meta: Record<string, unknown> = {}): Recorded {
  return { status: 'failed', value, meta: { ...meta, error } };
}

export async function agentStep(
  ctx: StepContext,
  node: AgentNode,
  key: string,
  scope: Scope,
): Promise<Recorded> {
  const prompt = renderText(node.prompt, scope);
  ctx.journal.start(key, node, { role: node.role, prompt });
  const r = await ctx.deps.agents.run({
    role: node.role,
    prompt,
    runId: ctx.runId,
    nodeId: key,
    signal: ctx.signal,
    ...(node.outputSchema ? { outputSchema: node.outputSchema } : {}),
    onEvent: (event) => ctx.deps.emit({ type: 'agent', runId: ctx.runId, nodeKey: key, event }),
    ...(ctx.deps.traceParent ? { traceParent: ctx.deps.traceParent } : {}),
  });
  const meta = { sessionId: r.sessionId ?? null, usage: r.usage, costUsd: r.costUsd, agentStatus: r.status };
  if (r.status !== 'completed') {
    return failed(`the agent stopped (${r.status})${r.text ? `: ${short(r.text)}` : ''}`, r.text, meta);
  }
  if (node.outputSchema && r.output === undefined) {
    const full = await loadZod();
    const fit = fitValue(
      full.fromJSONSchema(node.outputSchema as Parameters<typeof full.fromJSONSchema>[0]),
      r.text,
    );
    if (!fit.ok) return failed(`the answer does not fit output_schema: ${fit.error}`, r.text, meta);
    return { status: 'completed', value: fit.value, meta };
  }
  return { status: 'completed', value: r.output ?? r.text, meta };
}

export async function toolStep(
  ctx: StepContext,
  node: ToolNode,
  key: string,
  scope: Scope,
): Promise<Recorded> {
  const args = renderDeep(node.args, scope) as Record<string, unknown>;
  ctx.journal.start(key, node, { tool: node.tool, args });
  const r = await ctx.deps.tools.run({
    tool: node.tool,
    args,
    runId: ctx.runId,
    nodeId: key,
    ...(ctx.mode ? { mode: ctx.mode } : {}),
    signal: ctx.signal,
  });
  if (r.status === 'completed') return { status: 'completed', value: r.output };
  const said = short(r.output.replace(/^\[ERROR\] /, ''));
  return failed(r.status === 'denied' ? said : `${node.tool} ${r.status}: ${said}`, r.output);
}

export async function waitStep(
  ctx: StepContext,
  node: WaitNode,
  key: string,
  scope: Scope,
): Promise<Recorded> {
  const { deps, journal } = ctx;
  if (node.seconds !== undefined) {
    const before = journal.started(key);
    const seconds = Number(typeof node.seconds === 'number' ? node.seconds : render(node.seconds, scope));
    if (!Number.isFinite(seconds) || seconds < 0)
      return failed(`seconds: expected a number ≥ 0, got ${String(seconds)}`);
    // After a crash the timer keeps its first end: a resume waits only what was left.
    const until = typeof before?.until === 'number' ? before.until : deps.now() + seconds * 1000;
    journal.start(key, node, { until });
    deps.emit({ type: 'timer', runId: ctx.runId, nodeKey: key, until });
    await deps.sleep(Math.max(0, until - deps.now()), ctx.signal);
    return { status: 'completed', value: until };
  }
  const question = renderText(node.approval ?? '', scope);
  journal.start(key, node, { question });
  let decision = deps.decisions?.[key] ?? deps.decisions?.[node.id];
  if (decision === undefined) {
    deps.emit({ type: 'approval_request', runId: ctx.runId, nodeKey: key, question });
    if (deps.approvals)
      decision = await deps.approvals({ runId: ctx.runId, nodeKey: key, question, signal: ctx.signal });
  }
  if (decision === undefined) throw new Parked(key, question);
  if (decision) return { status: 'completed', value: true };
  if (node.onReject) return { status: 'completed', value: false, route: 'rejected' };
  return failed(`rejected by the user: ${question}`, false);
}

/** The id of the sub-run a node starts: derived from the parent run and the node, so a resume finds it. */
export function childRunId(parentRunId: string, nodeKey: string): string {
  const h = createHash('sha256').update(`${parentRunId}\u0000${nodeKey}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export async function workflowStep(
  ctx: StepContext,
  node: WorkflowCallNode,
  key: string,
  scope: Scope,
): Promise<Recorded> {
  const input = renderDeep(node.input, scope) as Record<string, unknown>;
  const runId = childRunId(ctx.runId, key);
  ctx.journal.start(key, node, { workflow: node.workflow, runId });
  const r = await ctx.deps.subWorkflow({
    workflow: node.workflow,
    from: ctx.file,
    input,
    parentRunId: ctx.runId,
    parentNode: key,
    runId,
    ...(ctx.deps.decisions ? { decisions: ctx.deps.decisions } : {}),
    ...(ctx.deps.traceParent ? { traceParent: ctx.deps.traceParent } : {}),
    signal: ctx.signal,
  });
  if (r.status === 'completed') return { status: 'completed', value: r.output ?? null, meta: { runId } };
  if (r.status === 'waiting') throw new Parked(key, `the sub-workflow run ${runId} waits for an approval`);
  if (r.status === 'cancelled') throw new RunCancelled();
  return failed(
    `the sub-workflow "${node.workflow}" (run ${runId}) failed: ${r.error ?? 'no reason given'}`,
    null,
    {
      runId,
    },
  );
}
