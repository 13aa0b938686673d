/**
 * Workflow `agent` nodes run as roles: each node a session of its own (stored with its
 * role, titled by its run and node), under the runtime's permission mode and rules at
 * most, with the sub-agents' time limit and budgets, and its structured answer checked
 * when the node or its role declares an output schema.
 */
import type { Agent } from '../agent/agent.js';
import { Interactions } from '../agent/interactions.js';
import type { Session } from '../agent/session.js';
import type { PermissionMode, PermissionRule } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import { ToolError } from '../tools/types.js';
import type { DelegationLimits } from './delegate.js';
import { GENERAL_ROLE, type RoleLike, type RoleSource } from './role-like.js';
import { budgetOf, type OutputChecking, roleProfile, runRole } from './role-run.js';
import type { AgentNodeResult, AgentNodeRunner } from './workflow/types.js';

export interface NodeRunnerDeps {
  agentFor(profile?: string): Agent;
  hasProfile(name: string): boolean;
  roles: RoleSource;
  limits: DelegationLimits;
  cwd: string;
  tools: ToolRegistry;
  permissions: { mode: PermissionMode; rules: readonly PermissionRule[] };
  roots: readonly string[];
  output?: OutputChecking;
}

export interface RoleNodeRunner extends AgentNodeRunner {
  /** The roles nodes may name (`general` and the runtime's). */
  roleNames(): string[];
  /** Waits up to `graceMs` for the node sessions' background jobs (summaries), then stops them. */
  settle(graceMs: number): Promise<void>;
}

/** An agent-node runner over the runtime's roles (nobody answers approvals in a workflow: asks are refused). */
export function roleNodeRunner(deps: NodeRunnerDeps): RoleNodeRunner {
  const sessions = new Set<Session>();
  return {
    roleNames: () => [GENERAL_ROLE.name, ...deps.roles.list().map((r) => r.name)],
    async run(req): Promise<AgentNodeResult> {
      const found = req.role === GENERAL_ROLE.name ? GENERAL_ROLE : deps.roles.get(req.role);
      if (!found) {
        const names = [GENERAL_ROLE.name, ...deps.roles.list().map((r) => r.name)];
        throw new ToolError(`no role named "${req.role}"`, `use one of: ${names.join(', ')}`);
      }
      const role: RoleLike = req.outputSchema ? { ...found, outputSchema: req.outputSchema } : found;
      const budget = budgetOf(deps.limits.maxTokens, deps.limits.maxCostUsd);
      const r = await runRole({
        agent: deps.agentFor(roleProfile(role, deps.hasProfile)),
        role,
        label: `${role.name} · ${req.nodeId}`,
        title: `workflow ${req.runId.slice(0, 8)} · ${req.nodeId} (${role.name})`,
        cwd: deps.cwd,
        tools: deps.tools,
        mayDelegate: true,
        permissions: deps.permissions,
        roots: deps.roots,
        interactions: new Interactions('deny'),
        ...(budget ? { budget } : {}),
        timeoutMs: deps.limits.timeoutMs,
        signal: req.signal,
        text: req.prompt,
        onEvent: (e) => req.onEvent?.(e),
        ...(req.traceParent ? { traceParent: req.traceParent } : {}),
        track: (session) => sessions.add(session),
        ...(deps.output ? { output: deps.output } : {}),
      });
      // A turn limit is a budget to the workflow: the node used what it was given.
      const status = r.status === 'max_iterations' ? 'budget' : r.status;
      const text =
        status === 'completed' || !r.message ? r.text : [r.text, r.message].filter(Boolean).join('\n');
      return {
        status,
        text,
        ...(r.output === undefined ? {} : { output: r.output }),
        sessionId: r.sessionId,
        usage: r.usage,
        costUsd: r.costUsd,
      };
    },
    async settle(graceMs) {
      await Promise.all([...sessions].map((s) => s.settle(graceMs)));
      sessions.clear();
    },
  };
}
