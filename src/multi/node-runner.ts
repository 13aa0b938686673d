/**
 * Workflow `agent` nodes run as roles: each node a session of its own (stored with its
 * role, titled by its run and node), under the runtime's permission mode and rules at
 * most, with the sub-agents' time limit and budgets, and its structured answer checked
 * when the node or its role declares an output schema.
 */
import type { Agent } from '../agent/agent.js';
import type { AgentEvent, SubagentInfo } from '../agent/events.js';
import { Interactions } from '../agent/interactions.js';
import type { Usage } from '../llm/types.js';
import type { PermissionMode, PermissionRule } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import { ToolError } from '../tools/types.js';
import type { DelegationLimits } from './delegate.js';
import { GENERAL_ROLE, type RoleLike, type RoleSource } from './role-like.js';
import { type OutputChecking, type RunStatus, runRole } from './role-run.js';

export interface NodeRunRequest {
  role: string;
  prompt: string;
  runId: string;
  nodeId: string;
  signal: AbortSignal;
  outputSchema?: Record<string, unknown>;
}

export interface NodeRunResult {
  status: RunStatus;
  text: string;
  output?: unknown;
  message?: string;
  sessionId?: string;
  usage: Usage;
  costUsd: number;
}

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
  /** Every event of a node's session (for a face following the run). */
  onEvent?(event: AgentEvent, info: SubagentInfo, node: { runId: string; nodeId: string }): void;
}

/** An agent-node runner over the runtime's roles (nobody answers approvals in a workflow: asks are refused). */
export function roleNodeRunner(deps: NodeRunnerDeps): { run(req: NodeRunRequest): Promise<NodeRunResult> } {
  return {
    async run(req) {
      const found = req.role === GENERAL_ROLE.name ? GENERAL_ROLE : deps.roles.get(req.role);
      if (!found) {
        const names = [GENERAL_ROLE.name, ...deps.roles.list().map((r) => r.name)];
        throw new ToolError(`no role named "${req.role}"`, `use one of: ${names.join(', ')}`);
      }
      const role: RoleLike = req.outputSchema ? { ...found, outputSchema: req.outputSchema } : found;
      const profile = role.model && deps.hasProfile(role.model) ? role.model : undefined;
      const { maxTokens, maxCostUsd } = deps.limits;
      const budget =
        maxTokens !== undefined || maxCostUsd !== undefined
          ? {
              ...(maxTokens === undefined ? {} : { maxTokens }),
              ...(maxCostUsd === undefined ? {} : { maxCostUsd }),
            }
          : undefined;
      return runRole({
        agent: deps.agentFor(profile),
        role,
        label: `${role.name} · ${req.nodeId}`,
        title: `workflow ${req.runId.slice(0, 8)} · ${req.nodeId} (${role.name})`,
        cwd: deps.cwd,
        tools: deps.tools,
        mayDelegate: deps.limits.maxDepth >= 1,
        permissions: deps.permissions,
        roots: deps.roots,
        interactions: new Interactions('deny'),
        ...(budget ? { budget } : {}),
        timeoutMs: deps.limits.timeoutMs,
        signal: req.signal,
        text: req.prompt,
        onEvent: (e, info) => deps.onEvent?.(e, info, { runId: req.runId, nodeId: req.nodeId }),
        ...(deps.output ? { output: deps.output } : {}),
      });
    },
  };
}
