import type { ToolRegistry } from '../tools/registry.js';
import type { Delegator } from './delegate.js';
import type { RoleLike } from './role-like.js';
import {
  AGENT_TOOL_PARAMETERS,
  agentToolInfo,
  DELEGATE_PARAMETERS,
  DELEGATE_TOOL_FACTS,
  TASK_PARAMETERS,
  taskToolInfo,
} from './task-info.js';

/**
 * Registers `task`, `delegate_tasks` and a tool for each role marked `asTool` on
 * `registry`; `delegator()` makes the delegator on the first call.
 */
export function registerDelegationTools(
  registry: ToolRegistry,
  roles: readonly RoleLike[],
  delegator: () => Promise<Delegator>,
): void {
  // Each tool reads what it needs off the imported module (no namespace object passed on,
  // which keeps the bundler's tree-shaking of zod intact).
  registry.registerLazy({
    info: taskToolInfo(roles),
    parameters: () => TASK_PARAMETERS,
    load: async () => (await import('./task-tool.js')).taskTool(await delegator(), roles),
  });
  registry.registerLazy({
    info: DELEGATE_TOOL_FACTS,
    parameters: () => DELEGATE_PARAMETERS,
    load: async () => (await import('./task-tool.js')).delegateTool(await delegator()),
  });
  for (const role of roles) {
    if (!role.asTool) continue;
    registry.registerLazy({
      info: agentToolInfo(role),
      parameters: () => AGENT_TOOL_PARAMETERS,
      load: async () => (await import('./task-tool.js')).agentTool(await delegator(), role),
    });
  }
}
