/**
 * One run of a role in a session of its own: its tools narrowed to the role's, its mode
 * capped by the role, its budget and time limit, its structured answer checked (one
 * repair round). Delegation (a child under a parent's tool call) and workflow agent
 * nodes (a session under a workflow run) both run roles through here.
 */
import type { Agent } from '../agent/agent.js';
import type { AgentEvent, SubagentInfo } from '../agent/events.js';
import type { Interactions } from '../agent/interactions.js';
import type { Session } from '../agent/session.js';
import { TurnStopped } from '../agent/stop.js';
import type { TraceParent } from '../agent/trace.js';
import type { Usage } from '../llm/types.js';
import { type PermissionMode, PermissionPolicy, type PermissionRule } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { ClientFs, ClientShell } from '../tools/types.js';
import { duration } from '../util/duration.js';
import { childPrompt, DELEGATION_TOOLS, type RoleLike } from './role-like.js';

export type RunStatus = 'completed' | 'budget' | 'timeout' | 'max_iterations' | 'error' | 'cancelled';

export type OutputCheck = (text: string) => { ok: true; value: unknown } | { ok: false; error: string };

/** Checking structured answers: a checker per schema, and the repair round's message. */
export interface OutputChecking {
  checker(schema: Record<string, unknown>): Promise<OutputCheck>;
  repairPrompt(error: string, schema: Record<string, unknown>): string;
}

export interface RoleRunRequest {
  agent: Agent;
  role: RoleLike;
  /** The parent session's tool call that starts it; absent: a top-level session (a workflow node). */
  parent?: { id: string; callId: string; depth: number };
  /** How faces name it, e.g. `reviewer #2`. */
  label: string;
  title: string;
  cwd: string;
  /** The tools of whoever starts it; the role's list narrows them. */
  tools: ToolRegistry;
  /** Whether the new session may start sub-agents of its own. */
  mayDelegate: boolean;
  /** The starter's mode and rules: the session gets at most these (and at most the role's mode). */
  permissions: { mode: PermissionMode; rules: readonly PermissionRule[] };
  roots: readonly string[];
  /** Where its approvals and questions wait (a parent's: answered on the parent session). */
  interactions: Interactions;
  fs?: ClientFs;
  shell?: ClientShell;
  budget?: { maxTokens?: number; maxCostUsd?: number };
  timeoutMs: number;
  signal: AbortSignal;
  /** The first message. */
  text: string;
  /** Every event of the session, as it happens. */
  onEvent(event: AgentEvent, info: SubagentInfo): void;
  /** Told the session once it exists (before it runs). */
  onSession?(info: SubagentInfo): void;
  /** Given the session object (a runner that settles background jobs later keeps it). */
  track?(session: Session): void;
  output?: OutputChecking;
  /** Where the session's `invoke_agent` spans attach (a parent's `execute_tool`, a workflow's span). */
  traceParent?: TraceParent;
}

export interface RoleRunResult {
  status: RunStatus;
  /** The final answer (what it has, when it stopped early). */
  text: string;
  /** The validated structured output (a role with an output schema). */
  output?: unknown;
  /** Why it stopped, when not `completed`. */
  message?: string;
  sessionId: string;
  usage: Usage;
  costUsd: number;
}

/** A budget from limits that may be unset (undefined: no budget at all). */
export function budgetOf(
  maxTokens: number | undefined,
  maxCostUsd: number | undefined,
): RoleRunRequest['budget'] {
  if (maxTokens === undefined && maxCostUsd === undefined) return undefined;
  return {
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
  };
}

/** The profile a role names, when there is one of that name (anything else: the starter's model). */
export function roleProfile(role: RoleLike, hasProfile: (name: string) => boolean): string | undefined {
  return role.model && hasProfile(role.model) ? role.model : undefined;
}

const RANK: Record<PermissionMode, number> = { 'read-only': 0, ask: 1, 'auto-edit': 2, yolo: 3 };

/** The narrower of two modes (a role's mode is a ceiling, never a raise). */
export function narrower(a: PermissionMode, b: PermissionMode | undefined): PermissionMode {
  return b !== undefined && RANK[b] < RANK[a] ? b : a;
}

/** A role session's time limit: its turn ends as stopped by Tea (not by the user), saying why. */
class TimedOut extends TurnStopped {
  constructor(ms: number) {
    super('time_limit', `The sub-agent ran past its time limit of ${duration(ms)}`);
  }
}

type Drive = Omit<RoleRunResult, 'sessionId' | 'output'>;

export async function runRole(req: RoleRunRequest): Promise<RoleRunResult> {
  const { role } = req;
  const depth = req.parent ? req.parent.depth + 1 : 0;
  const tools = req.tools.subset(
    (t) =>
      (role.tools === undefined || role.tools.includes(t.name)) &&
      !role.disallowedTools?.includes(t.name) &&
      (req.mayDelegate || !(DELEGATION_TOOLS.has(t.name) || t.name.startsWith('agent_'))),
  );
  const mode = narrower(req.permissions.mode, role.permissionMode);
  const session = req.agent.childSession({
    ...(req.parent ? { parent: req.parent } : {}),
    role: role.name,
    title: req.title,
    cwd: req.cwd,
    tools,
    settings: {
      systemPrompt: childPrompt(role, req.cwd, depth),
      permissionMode: mode,
      ...(role.maxTurns ? { maxIterations: role.maxTurns } : {}),
      allowedRoots: req.roots,
      // A role's own short tool list goes to the model whole: it has no tool_search to load more.
      ...(role.tools ? { toolLoading: 'all' as const } : {}),
      titles: false,
      recall: false,
      memoryJobs: { extract: false, tune: false },
      ...(req.budget ? { budget: req.budget } : {}),
    },
    policy: new PermissionPolicy(mode, req.permissions.rules),
    interactions: req.interactions,
    ...(req.fs ? { fs: req.fs } : {}),
    ...(req.shell ? { shell: req.shell } : {}),
  });
  const info: SubagentInfo = { sessionId: session.id, label: req.label, role: role.name, depth };
  req.onSession?.(info);
  req.track?.(session);
  // A signal of its own: the starter's signal gets no listener per run (there may be 50).
  const own = new AbortController();
  const signal = AbortSignal.any([req.signal, own.signal]);
  const timer = setTimeout(() => own.abort(new TimedOut(req.timeoutMs)), req.timeoutMs);
  const total = { usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 };
  const drive = async (text: string): Promise<Drive> => {
    const r = await driveOnce(session, text, { signal, traceParent: req.traceParent }, (e) =>
      req.onEvent(e, info),
    );
    total.usage.inputTokens += r.usage.inputTokens;
    total.usage.outputTokens += r.usage.outputTokens;
    total.costUsd += r.costUsd;
    return r;
  };
  try {
    let run = await drive(req.text);
    let output: unknown;
    if (role.outputSchema && run.status === 'completed') {
      ({ run, output } = await checkOutput(role.outputSchema, run, drive, req.output));
    }
    return {
      ...run,
      ...(output === undefined ? {} : { output }),
      sessionId: session.id,
      usage: total.usage,
      costUsd: total.costUsd,
    };
  } finally {
    clearTimeout(timer);
  }
}

/** One prompt of the session, to its end. */
async function driveOnce(
  session: Session,
  text: string,
  { signal, traceParent }: { signal: AbortSignal; traceParent: TraceParent | undefined },
  onEvent: (e: AgentEvent) => void,
): Promise<Drive> {
  let done: Extract<AgentEvent, { type: 'done' }> | undefined;
  for await (const e of session.prompt(text, { signal, ...(traceParent ? { traceParent } : {}) })) {
    onEvent(e);
    if (e.type === 'done') done = e;
  }
  const usage = done?.usage ?? { inputTokens: 0, outputTokens: 0 };
  const costUsd = done?.costUsd ?? 0;
  const answer = done?.text ?? '';
  if (signal.reason instanceof TimedOut)
    return { status: 'timeout', text: answer, message: `${signal.reason.message}.`, usage, costUsd };
  const reason = done?.reason ?? 'error';
  const status: RunStatus = reason === 'doom_loop' || reason === 'client_tools' ? 'error' : reason;
  return { status, text: answer, ...(done?.message ? { message: done.message } : {}), usage, costUsd };
}

/** Validates a structured answer; one repair round, then a clear failure. */
async function checkOutput(
  schema: Record<string, unknown>,
  first: Drive,
  drive: (text: string) => Promise<Drive>,
  checking: OutputChecking | undefined,
): Promise<{ run: Drive; output?: unknown }> {
  if (!checking) {
    return {
      run: {
        ...first,
        status: 'error',
        message: 'This role declares an output schema, but no checker is set up.',
      },
    };
  }
  const check = await checking.checker(schema);
  const once = check(first.text);
  if (once.ok) return { run: first, output: once.value };
  const again = await drive(checking.repairPrompt(once.error, schema));
  if (again.status !== 'completed') return { run: again };
  const twice = check(again.text);
  if (twice.ok) return { run: again, output: twice.value };
  return {
    run: {
      ...again,
      status: 'error',
      message: `The answer did not match the role's output schema after one repair round: ${twice.error}`,
    },
  };
}
