/** Workflows: definitions (YAML, TypeScript), the durable engine and its runner. See README "Workflows". */
export { builtinDir, type CatalogEntry, type Where, WorkflowCatalog } from './catalog.js';
export {
  agent,
  condition,
  type DefinedWorkflow,
  defineWorkflow,
  end,
  join,
  loop,
  type NodeSpec,
  parallel,
  subWorkflow,
  type TypedScope,
  tool,
  type WorkflowSpec,
  wait,
} from './define.js';
export { type DefinitionProblem, WorkflowDefinitionError, WorkflowRunError } from './errors.js';
export { type NodeRunStatus, type NodeView, nodeViews, type RunView } from './history.js';
export { parseWorkflowYaml } from './parse.js';
export {
  abortableSleep,
  checkInput,
  type DefinitionLoader,
  type RunHandle,
  type RunOptions,
  type RunOutcome,
  type RunStatusView,
  type SqliteRunnerOptions,
  SqliteWorkflowRunner,
  type WorkflowRunner,
} from './runner.js';
export type * from './types.js';
