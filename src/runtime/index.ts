/**
 * Tea Agent as a library: the same runtime the `tea` command, `tea serve` and
 * `tea acp` are built on.
 *
 *   import { createRuntime } from 'tea-agent';
 *   const rt = await createRuntime({ cwd: process.cwd() });
 *   const session = rt.sessions.create();
 *   for await (const e of session.prompt('…')) if (e.type === 'text_delta') process.stdout.write(e.text);
 *   await rt.close();
 */

export type {
  AgentEvent,
  AgentEventType,
  ApprovalDecision,
  StopReason,
  SubagentInfo,
  ToolCallKind,
  ToolCallRecord,
  ToolCallState,
  ToolContent,
} from '../agent/events.js';
export type { Session } from '../agent/index.js';
export type { PromptOptions } from '../agent/session.js';
export type { TeaConfig } from '../config/types.js';
export type { LongTermMemory } from '../memory/api.js';
// Workflows written in TypeScript import these (see README "Workflows").
export {
  agent,
  condition,
  defineWorkflow,
  end,
  join,
  loop,
  parallel,
  subWorkflow,
  tool,
  wait,
} from '../multi/workflow/define.js';
export type {
  CatalogEntry,
  NodeView,
  RunOutcome,
  RunView,
  WorkflowDefinition,
  WorkflowEvent,
} from '../multi/workflow/index.js';
export type {
  BackgroundJob,
  BackgroundJobEvent,
  BackgroundJobListener,
  BackgroundJobsView,
} from '../tools/background-jobs.js';
export type { PermissionMode, PermissionRule } from '../tools/permissions.js';
export { defineTool, type Tool, type ToolInfo } from '../tools/types.js';
export { RuntimeError, type RuntimeErrorCode } from './errors.js';
export type { ProfileInfo } from './models.js';
export { createRuntime, type Runtime, type RuntimeOptions, type WorkflowsSetup } from './runtime.js';
export type {
  CreateOptions,
  OpenOptions,
  SessionHit,
  SessionInfo,
  SessionsService,
  StoredMessage,
  SubagentSummary,
  ToolCallRow,
  UsageTotals,
  UsageWithSubagents,
} from './sessions.js';
export {
  type FlatEvent,
  flatEvent,
  type ParentField,
  resultHeads,
  type SubagentState,
  type SubagentStatus,
  SubagentTracker,
  unwrapSubagent,
} from './subagents.js';
export type { RunDetails, WorkflowsService } from './workflows.js';
