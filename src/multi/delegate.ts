/**
 * Delegation to sub-agents: each sub-task runs in a child session of its own, with
 * at most its parent's permissions (narrowed further by its role), its own budget
 * and time limit, and its events nested under the parent's tool call. A parent
 * session runs at most `maxParallel` children at once; the rest wait their turn.
 */
import type { Agent } from '../agent/agent.js';
import type { AgentEvent, SubagentInfo } from '../agent/events.js';
import type { ParentSeat } from '../agent/seat.js';
import type { Usage } from '../llm/types.js';
import { type PermissionMode, PermissionPolicy } from '../tools/permissions.js';
import { ToolError } from '../tools/types.js';
import { duration } from '../util/duration.js';
import { Semaphore } from '../util/semaphore.js';
import { type ChildContext, childBrief } from './brief.js';
import { childPrompt, DELEGATION_TOOLS, GENERAL_ROLE, type RoleLike, type RoleSource } from './role-like.js';

export interface DelegationLimits {
  /** Children of one session running at once. */
  maxParallel: number;
  /** Sub-tasks one batch call may hold. */
  maxTasksPerCall: number;
  /** 1: children may not delegate; 2: they may, once. */
  maxDepth: number;
  /** One child's time limit. */
  timeoutMs: number;
  /** Default budgets of one child. */
  maxTokens?: number;
  maxCostUsd?: number;
}

export type OutputCheck = (text: string) => { ok: true; value: unknown } | { ok: false; error: string };

export interface DelegatorDeps {
  /** The agent of a profile (undefined: the active one), answering approvals on its face. */
  agentFor(profile?: string): Agent;
  hasProfile(name: string): boolean;
  roles: RoleSource;
  limits: DelegationLimits;
  /** Checks a final answer against a role's output schema (roles with a schema need it). */
  outputChecker?: (schema: Record<string, unknown>) => Promise<OutputCheck>;
  /** The message of the one repair round after an answer failed the check. */
  repairPrompt?: (error: string, schema: Record<string, unknown>) => string;
}

export interface TaskSpec {
  /** A short label for faces. */
  description: string;
  prompt: string;
  role?: string;
  context?: ChildContext;
  files?: readonly string[];
  maxTokens?: number;
  maxCostUsd?: number;
  timeoutMs?: number;
}

export type ChildStatus = 'completed' | 'budget' | 'timeout' | 'max_iterations' | 'error' | 'cancelled';

export interface ChildResult {
  label: string;
  role: string;
  description: string;
  status: ChildStatus;
  /** The child's final answer (what it has, when it stopped early). */
  text: string;
  /** The validated structured output (roles with an output schema). */
  output?: unknown;
  /** Why it stopped, when not `completed`. */
  message?: string;
  sessionId: string;
  usage: Usage;
  costUsd: number;
}

const RANK: Record<PermissionMode, number> = { 'read-only': 0, ask: 1, 'auto-edit': 2, yolo: 3 };

/** The narrower of two modes (a role's mode is a ceiling, never a raise). */
export function narrower(a: PermissionMode, b: PermissionMode | undefined): PermissionMode {
  return b !== undefined && RANK[b] < RANK[a] ? b : a;
}

class TimedOut extends Error {
  constructor(ms: number) {
    super(`the sub-agent ran past its time limit of ${duration(ms)}`);
  }
}

export class Delegator {
  private readonly slots = new Map<string, { sem: Semaphore; users: number }>();
  private readonly numbers = new Map<string, Map<string, number>>();

  constructor(private readonly deps: DelegatorDeps) {}

  get limits(): DelegationLimits {
    return this.deps.limits;
  }

  get roles(): RoleSource {
    return this.deps.roles;
  }

  /** Whether a session at `depth` may start children. */
  mayDelegate(depth: number): boolean {
    return depth + 1 <= this.deps.limits.maxDepth;
  }

  /**
   * Runs one sub-task to its end. Mistakes the parent can fix (an unknown role, a file
   * outside the workspace, the depth cap) throw `ToolError`; anything that happens to
   * the child is in its result.
   */
  async run(seat: ParentSeat, spec: TaskSpec, signal: AbortSignal): Promise<ChildResult> {
    if (!this.mayDelegate(seat.depth)) {
      throw new ToolError(
        `sub-agents may not delegate further (subagents.max_depth is ${this.deps.limits.maxDepth})`,
        'do this part of the work yourself with your own tools',
      );
    }
    const role = this.role(spec.role);
    const brief = await childBrief({
      prompt: spec.prompt,
      context: spec.context ?? 'isolated',
      ...(spec.files ? { files: spec.files } : {}),
      seat,
    });
    const label = `${role.name} #${this.nextNumber(seat.sessionId, role.name)}`;
    const slot = this.slot(seat.sessionId);
    try {
      // A signal of its own per child: the parent's signal gets no listener per child (there may be 50).
      const own = new AbortController();
      const childSignal = AbortSignal.any([signal, own.signal]);
      const release = await slot.acquire(childSignal);
      try {
        return await this.runChild(seat, spec, role, label, brief, { signal: childSignal, own });
      } finally {
        release();
      }
    } finally {
      this.leave(seat.sessionId);
    }
  }

  private role(name: string | undefined): RoleLike {
    if (name === undefined || name === GENERAL_ROLE.name) return GENERAL_ROLE;
    const role = this.deps.roles.get(name);
    if (role) return role;
    const names = [GENERAL_ROLE.name, ...this.deps.roles.list().map((r) => r.name)];
    throw new ToolError(`no sub-agent role named "${name}"`, `use one of: ${names.join(', ')}`);
  }

  private async runChild(
    seat: ParentSeat,
    spec: TaskSpec,
    role: RoleLike,
    label: string,
    brief: string,
    stop: { signal: AbortSignal; own: AbortController },
  ): Promise<ChildResult> {
    const { limits } = this.deps;
    const profile = role.model && this.deps.hasProfile(role.model) ? role.model : undefined;
    const agent = this.deps.agentFor(profile);
    const mode = narrower(seat.policy.mode, role.permissionMode);
    const canDelegate = this.mayDelegate(seat.depth + 1);
    const tools = seat.tools.subset(
      (t) =>
        (role.tools === undefined || role.tools.includes(t.name)) &&
        !role.disallowedTools?.includes(t.name) &&
        (canDelegate || !(DELEGATION_TOOLS.has(t.name) || t.name.startsWith('agent_'))),
    );
    const maxTokens = spec.maxTokens ?? limits.maxTokens;
    const maxCostUsd = spec.maxCostUsd ?? limits.maxCostUsd;
    const session = agent.childSession({
      parent: { id: seat.sessionId, callId: seat.callId, depth: seat.depth },
      role: role.name,
      title: `${label}: ${spec.description}`,
      cwd: seat.cwd,
      tools,
      settings: {
        systemPrompt: childPrompt(role, seat.cwd, seat.depth + 1),
        permissionMode: mode,
        ...(role.maxTurns ? { maxIterations: role.maxTurns } : {}),
        allowedRoots: seat.roots,
        titles: false,
        recall: false,
        memoryJobs: { extract: false, tune: false },
        ...(maxTokens !== undefined || maxCostUsd !== undefined
          ? {
              budget: {
                ...(maxTokens === undefined ? {} : { maxTokens }),
                ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
              },
            }
          : {}),
      },
      policy: new PermissionPolicy(mode, seat.policy.allRules),
      interactions: seat.interactions,
      ...(seat.fs ? { fs: seat.fs } : {}),
    });
    const info: SubagentInfo = { sessionId: session.id, label, role: role.name, depth: seat.depth + 1 };
    const timeoutMs = spec.timeoutMs ?? limits.timeoutMs;
    const timer = setTimeout(() => stop.own.abort(new TimedOut(timeoutMs)), timeoutMs);
    const total = { usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0 };
    try {
      const drive = async (text: string) => {
        const r = await this.drive(session, text, info, seat, stop.signal);
        total.usage.inputTokens += r.usage.inputTokens;
        total.usage.outputTokens += r.usage.outputTokens;
        total.costUsd += r.costUsd;
        return r;
      };
      let run = await drive(brief);
      let output: unknown;
      if (role.outputSchema && run.status === 'completed') {
        const checked = await this.checkOutput(role.outputSchema, run, drive);
        run = checked.run;
        output = checked.output;
      }
      return {
        label,
        role: role.name,
        description: spec.description,
        ...run,
        ...(output === undefined ? {} : { output }),
        sessionId: session.id,
        usage: total.usage,
        costUsd: total.costUsd,
      };
    } finally {
      clearTimeout(timer);
      seat.addUsage(total.usage, total.costUsd);
    }
  }

  /** One prompt of the child, its events passed on to the parent's stream. */
  private async drive(
    session: Awaited<ReturnType<Agent['childSession']>>,
    text: string,
    info: SubagentInfo,
    seat: ParentSeat,
    signal: AbortSignal,
  ): Promise<{ status: ChildStatus; text: string; message?: string; usage: Usage; costUsd: number }> {
    let done: Extract<AgentEvent, { type: 'done' }> | undefined;
    for await (const e of session.prompt(text, { signal })) {
      if (e.type === 'approval_request' || e.type === 'question') seat.emit({ ...e, agent: e.agent ?? info });
      else if (e.type === 'approval_result') seat.emit(e);
      else seat.emit({ type: 'subagent', callId: seat.callId, agent: info, event: e });
      if (e.type === 'done') done = e;
    }
    const timedOut = signal.reason instanceof TimedOut;
    const usage = done?.usage ?? { inputTokens: 0, outputTokens: 0 };
    const costUsd = done?.costUsd ?? 0;
    const answer = done?.text ?? '';
    if (timedOut)
      return {
        status: 'timeout',
        text: answer,
        message: `Stopped: ${signal.reason.message}.`,
        usage,
        costUsd,
      };
    const reason = done?.reason ?? 'error';
    const status: ChildStatus = reason === 'doom_loop' ? 'error' : reason;
    return { status, text: answer, ...(done?.message ? { message: done.message } : {}), usage, costUsd };
  }

  /** Validates a structured answer; one repair round, then a clear failure. */
  private async checkOutput(
    schema: Record<string, unknown>,
    first: Awaited<ReturnType<Delegator['drive']>>,
    drive: (text: string) => Promise<Awaited<ReturnType<Delegator['drive']>>>,
  ): Promise<{ run: Awaited<ReturnType<Delegator['drive']>>; output?: unknown }> {
    const { outputChecker, repairPrompt } = this.deps;
    if (!outputChecker || !repairPrompt) {
      return {
        run: {
          ...first,
          status: 'error',
          message: 'This role declares an output schema, but no checker is set up.',
        },
      };
    }
    const check = await outputChecker(schema);
    const once = check(first.text);
    if (once.ok) return { run: first, output: once.value };
    const again = await drive(repairPrompt(once.error, schema));
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

  private nextNumber(sessionId: string, role: string): number {
    const byRole = this.numbers.get(sessionId) ?? new Map<string, number>();
    this.numbers.set(sessionId, byRole);
    const n = (byRole.get(role) ?? 0) + 1;
    byRole.set(role, n);
    return n;
  }

  private slot(sessionId: string): Semaphore {
    const s = this.slots.get(sessionId) ?? { sem: new Semaphore(this.deps.limits.maxParallel), users: 0 };
    this.slots.set(sessionId, s);
    s.users++;
    return s.sem;
  }

  private leave(sessionId: string): void {
    const s = this.slots.get(sessionId);
    if (s && --s.users === 0) this.slots.delete(sessionId);
  }
}
