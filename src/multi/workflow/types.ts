/**
 * Workflows: the shapes of a definition (as YAML and TypeScript both end up), the
 * ports the engine calls (agent and tool nodes, approvals), and the events a run
 * emits. See README "Workflows" for the file format.
 */

import type { z } from 'zod';
import type { AgentEvent } from '../../agent/events.js';
import type { TraceParent } from '../../agent/trace.js';
import type { PermissionMode } from '../../tools/permissions.js';
import type { Scope } from './expr-eval.js';
import type { Template } from './template.js';

export type { Scope } from './expr-eval.js';
export type { Template } from './template.js';

/** A condition or expression: text (expr-parse.ts), or (TypeScript) a function of the scope. */
export type Expr = string | ((scope: Scope) => unknown);

export const NODE_KINDS = [
  'agent',
  'tool',
  'condition',
  'parallel',
  'join',
  'loop',
  'wait',
  'workflow',
  'end',
] as const;
export type NodeKind = (typeof NODE_KINDS)[number];

interface NodeBase {
  id: string;
  /** A line for `show` and the graph (default: the id). */
  title?: string;
  /** The node after this one in its scope; none: the scope (branch, loop body, run) ends here. */
  next?: string;
  /** The state key the node's result is written to (checked against the state schema). */
  output?: string;
  /** More state writes after the node: key → template (`result` is the node's result). */
  set?: Record<string, Template>;
  /** `continue`: a failure is recorded as the node's result and the run goes on (default `fail`). */
  onError?: 'fail' | 'continue';
}

export interface AgentNode extends NodeBase {
  kind: 'agent';
  role: string;
  prompt: Template;
  /** A JSON schema the answer must fit (a JSON value); its parsed value is the result. */
  outputSchema?: Record<string, unknown>;
}

export interface ToolNode extends NodeBase {
  kind: 'tool';
  tool: string;
  /** Arguments; every string in them is a template. */
  args: Record<string, unknown>;
}

export interface ConditionNode extends NodeBase {
  kind: 'condition';
  /** Its value, as text, is the label routed on (`true`/`false` for a test). */
  when: Expr;
  routes: Record<string, string>;
  /** Where any other label goes (none: such a label fails the run). */
  default?: string;
}

export interface ParallelNode extends NodeBase {
  kind: 'parallel';
  /** The first node of each branch; a branch runs until it reaches `join` or has no next. */
  branches: string[];
  /** The join node where the branches meet. */
  join: string;
  /** How many branches run at once (default: all). */
  concurrency: number;
}

export interface JoinNode extends NodeBase {
  kind: 'join';
}

export interface LoopNode extends NodeBase {
  kind: 'loop';
  /** The first node of the body; the body runs until a node without next. */
  body: string;
  /** Checked before each iteration: the body runs while it holds. */
  while?: Expr;
  /** Checked after each iteration: the loop stops once it holds. */
  until?: Expr;
  /** The guard: at most this many iterations. */
  max: number;
  /** At the guard with the condition still unmet: fail the run (default) or go on. */
  onMax: 'fail' | 'continue';
}

export interface WaitNode extends NodeBase {
  kind: 'wait';
  /** A timer: seconds (a number or a template). */
  seconds?: number | Template;
  /** An approval: the question put to the user. */
  approval?: Template;
  /** Where a rejected approval goes (none: a rejection fails the run). */
  onReject?: string;
}

export interface WorkflowCallNode extends NodeBase {
  kind: 'workflow';
  /** A workflow name (the project's, then the built-in ones) or a path relative to this file. */
  workflow: string;
  /** The sub-workflow's input; every string is a template. */
  input: Record<string, unknown>;
}

export interface EndNode extends NodeBase {
  kind: 'end';
  /** The run's output (default: the final state). */
  result?: Template;
}

export type WorkflowNode =
  | AgentNode
  | ToolNode
  | ConditionNode
  | ParallelNode
  | JoinNode
  | LoopNode
  | WaitNode
  | WorkflowCallNode
  | EndNode;

/** Where a definition came from. */
export interface DefinitionSource {
  kind: 'yaml' | 'module' | 'builtin';
  /** The file (absolute), or `builtin:<name>`. */
  file: string;
  /** The YAML text (kept with a run so that resume does not depend on the file). */
  text?: string;
  /** A hash of the source, to tell a changed file on resume. */
  hash: string;
}

export interface WorkflowDefinition {
  name: string;
  description?: string;
  /** The permission mode tool nodes run in, at most the runtime's (default: the runtime's). */
  mode?: PermissionMode;
  input: z.ZodObject;
  state: z.ZodObject;
  /** The first node. */
  start: string;
  nodes: Record<string, WorkflowNode>;
  source: DefinitionSource;
}

/** The port an `agent` node calls (roleNodeRunner in src/multi/node-runner.ts implements it: each node a role in a session of its own). */
export interface AgentNodeRunner {
  run(req: {
    role: string;
    prompt: string;
    runId: string;
    nodeId: string;
    signal: AbortSignal;
    outputSchema?: Record<string, unknown>;
    /** Told the child session's events as they come (optional: a runner may not). */
    onEvent?: (event: AgentEvent) => void;
    /** The run's invoke_workflow span: the node's invoke_agent nests under it. */
    traceParent?: TraceParent;
  }): Promise<{
    status: 'completed' | 'budget' | 'timeout' | 'error' | 'cancelled';
    text: string;
    output?: unknown;
    sessionId?: string;
    usage: { inputTokens: number; outputTokens: number };
    costUsd: number;
  }>;
}

export type AgentNodeResult = Awaited<ReturnType<AgentNodeRunner['run']>>;

/** The port a `tool` node calls: the tool under the permission policy (nobody answers asks: refused). */
export interface ToolNodeRunner {
  run(req: {
    tool: string;
    args: Record<string, unknown>;
    runId: string;
    nodeId: string;
    /** The workflow's mode (it can only narrow the runtime's). */
    mode?: PermissionMode;
    signal: AbortSignal;
  }): Promise<{ status: 'completed' | 'error' | 'denied' | 'cancelled'; output: string }>;
}

/** Asks the user to approve a `wait` node; absent: the run waits (status `waiting`) for `resume --approve`. */
export type ApprovalPort = (req: {
  runId: string;
  nodeKey: string;
  question: string;
  signal: AbortSignal;
}) => Promise<boolean>;

export type NodeStatus = 'running' | 'completed' | 'failed' | 'waiting' | 'cancelled';

export type WorkflowEvent =
  | { type: 'run_start'; runId: string; workflow: string; resumed: boolean; parentRunId?: string }
  | { type: 'node_start'; runId: string; nodeKey: string; nodeId: string; kind: NodeKind }
  | {
      type: 'node_end';
      runId: string;
      nodeKey: string;
      nodeId: string;
      kind: NodeKind;
      status: 'completed' | 'failed';
      /** The result recorded before a crash was reused: the node did not run again. */
      reused: boolean;
      error?: string;
      /** A wait node's approval: given (true) or refused (false). */
      approved?: boolean;
    }
  | { type: 'checkpoint'; runId: string; seq: number; nodeKey: string; event: 'start' | 'result' }
  | { type: 'agent'; runId: string; nodeKey: string; event: AgentEvent }
  | { type: 'approval_request'; runId: string; nodeKey: string; question: string }
  | { type: 'timer'; runId: string; nodeKey: string; until: number }
  | {
      type: 'run_end';
      runId: string;
      status: 'completed' | 'failed' | 'cancelled' | 'waiting';
      output?: unknown;
      error?: string;
    };
