/**
 * Delegation to sub-agents: each sub-task runs in a child session of its own, with
 * at most its parent's permissions (narrowed further by its role), its own budget
 * and time limit, and its events nested under the parent's tool call. A parent
 * session runs at most `maxParallel` children at once; the rest wait their turn.
 */
import type { Agent } from '../agent/agent.js';
import type { ParentSeat } from '../agent/seat.js';
import { ToolError } from '../tools/types.js';
import { Semaphore } from '../util/semaphore.js';
import { type ChildContext, childBrief } from './brief.js';
import { GENERAL_ROLE, type RoleLike, type RoleSource } from './role-like.js';
import {
  budgetOf,
  type OutputChecking,
  type RoleRunResult,
  type RunStatus,
  roleProfile,
  runRole,
} from './role-run.js';

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

export interface DelegatorDeps {
  /** The agent of a profile (undefined: the active one), answering approvals on its face. */
  agentFor(profile?: string): Agent;
  hasProfile(name: string): boolean;
  roles: RoleSource;
  limits: DelegationLimits;
  /** Checks final answers against roles' output schemas (roles with a schema need it). */
  output?: OutputChecking;
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

export type ChildStatus = RunStatus;

/** A child's result: its run's, with how the parent named it. */
export interface ChildResult extends RoleRunResult {
  label: string;
  role: string;
  description: string;
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
    // Numbered and queued in the order the tasks were given (before anything is awaited).
    const label = `${role.name} #${this.nextNumber(seat.sessionId, role.name)}`;
    const slot = this.slot(seat.sessionId);
    try {
      const acquiring = slot.acquire(signal);
      let brief: string;
      try {
        brief = await childBrief({
          prompt: spec.prompt,
          context: spec.context ?? 'isolated',
          ...(spec.files ? { files: spec.files } : {}),
          seat,
        });
      } catch (e) {
        void acquiring.then(
          (release) => release(),
          () => undefined,
        );
        throw e;
      }
      const release = await acquiring;
      try {
        return await this.runChild(seat, spec, role, label, brief, signal);
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
    signal: AbortSignal,
  ): Promise<ChildResult> {
    const { limits } = this.deps;
    const budget = budgetOf(spec.maxTokens ?? limits.maxTokens, spec.maxCostUsd ?? limits.maxCostUsd);
    const r = await runRole({
      agent: this.deps.agentFor(roleProfile(role, this.deps.hasProfile)),
      role,
      parent: { id: seat.sessionId, callId: seat.callId, depth: seat.depth },
      label,
      title: `${label}: ${spec.description}`,
      cwd: seat.cwd,
      tools: seat.tools,
      mayDelegate: this.mayDelegate(seat.depth + 1),
      permissions: { mode: seat.policy.mode, rules: seat.policy.allRules },
      roots: seat.roots,
      interactions: seat.interactions,
      ...(seat.fs ? { fs: seat.fs } : {}),
      ...(seat.shell ? { shell: seat.shell } : {}),
      ...(seat.trace ? { traceParent: seat.trace } : {}),
      ...(budget ? { budget } : {}),
      timeoutMs: spec.timeoutMs ?? limits.timeoutMs,
      signal,
      text: brief,
      onEvent: (e, info) => {
        // Asks come unwrapped (with the asking child): the parent's face answers them as its own.
        if (e.type === 'approval_request' || e.type === 'question')
          seat.emit({ ...e, agent: e.agent ?? info });
        else if (e.type === 'approval_result') seat.emit(e);
        else seat.emit({ type: 'subagent', callId: seat.callId, agent: info, event: e });
      },
      ...(this.deps.output ? { output: this.deps.output } : {}),
    });
    seat.addUsage(r.usage, r.costUsd);
    return { label, role: role.name, description: spec.description, ...r };
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
