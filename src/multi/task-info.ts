/**
 * The delegation tools as the registry knows them before their first call: facts and
 * the JSON schemas of their arguments (task-tool.ts holds the zod schemas these mirror;
 * test/multi/task-info.test.ts checks that they agree). Registering them (register.ts)
 * loads neither that code nor zod.
 */
import type { ToolSpec } from '../llm/types.js';
import type { ToolInfo } from '../tools/types.js';
import { GENERAL_ROLE, type RoleLike } from './role-like.js';

/** What the tools' descriptions say of a role. */
export type RoleSummary = Pick<RoleLike, 'name' | 'description'>;

const KEYWORDS = [
  'delegate',
  'subagent',
  'sub-agent',
  'agent',
  'parallel',
  'role',
  'review',
  '并行',
  '子代理',
  '委派',
];

const TASK_PROPERTIES: Record<string, unknown> = {
  description: { description: 'A short label for the user, 3-8 words', type: 'string', maxLength: 120 },
  prompt: {
    description: 'The whole task: what to do and what to answer with. The sub-agent sees nothing else',
    type: 'string',
  },
  role: { description: 'The role to run it as (default general)', type: 'string' },
  context: {
    description: 'isolated (default): only this task and the files; fork: also a digest of this conversation',
    type: 'string',
    enum: ['isolated', 'fork'],
  },
  files: {
    description: 'Workspace files whose text the sub-agent gets',
    maxItems: 20,
    type: 'array',
    items: { type: 'string' },
  },
  max_tokens: {
    description: 'Token budget (input + output) of the sub-agent',
    type: 'integer',
    exclusiveMinimum: 0,
  },
  max_cost_usd: { description: 'Cost budget in US dollars', type: 'number', exclusiveMinimum: 0 },
  timeout_s: { description: 'Time limit in seconds', type: 'number', exclusiveMinimum: 0, maximum: 86400 },
};

export const TASK_PARAMETERS: ToolSpec['parameters'] = {
  type: 'object',
  properties: TASK_PROPERTIES,
  required: ['description', 'prompt'],
};

export const DELEGATE_PARAMETERS: ToolSpec['parameters'] = {
  type: 'object',
  properties: {
    tasks: {
      description: 'The sub-tasks; they run in parallel',
      minItems: 1,
      type: 'array',
      items: TASK_PARAMETERS,
    },
  },
  required: ['tasks'],
};

export const AGENT_TOOL_PARAMETERS: ToolSpec['parameters'] = {
  type: 'object',
  properties: {
    prompt: TASK_PROPERTIES.prompt,
    context: TASK_PROPERTIES.context,
    files: TASK_PROPERTIES.files,
  },
  required: ['prompt'],
};

const FACTS = {
  category: 'agents',
  keywords: KEYWORDS,
  readOnly: false,
  concurrencySafe: true,
  approval: 'none',
  // A child's own time limit applies (subagents.timeout_s); the call itself is not cut short.
  timeoutMs: 24 * 60 * 60 * 1000,
} as const satisfies Omit<ToolInfo, 'name' | 'description'>;

function roleLines(roles: readonly RoleSummary[]): string {
  return [GENERAL_ROLE, ...roles].map((r) => `- ${r.name}: ${r.description}`).join('\n');
}

export function taskToolInfo(roles: readonly RoleSummary[]): ToolInfo {
  return {
    name: 'task',
    description: `Delegate one self-contained sub-task to a sub-agent with its own context, and get its final answer. Several task calls in one reply run in parallel. The sub-agent sees only the prompt and the files you name (context: fork adds a digest of this conversation). Roles:\n${roleLines(roles)}`,
    ...FACTS,
  };
}

export const DELEGATE_TOOL_FACTS: ToolInfo = {
  name: 'delegate_tasks',
  description:
    'Delegate several independent sub-tasks at once (e.g. one per file or module); they run in parallel as sub-agents and their answers come back together. Each task takes the same fields as the task tool (role, context, files, budgets).',
  ...FACTS,
};

/** The tool name of a role offered as a tool. */
export function agentToolName(role: string): string {
  return `agent_${role.replace(/[^a-zA-Z0-9_]/g, '_')}`;
}

export function agentToolInfo(role: RoleSummary): ToolInfo {
  return {
    name: agentToolName(role.name),
    description: `Run the ${role.name} sub-agent on a task: ${role.description}`,
    ...FACTS,
  };
}
