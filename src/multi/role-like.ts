/**
 * What delegation needs of a role (src/multi/roles/ loads them from built-ins and
 * Markdown files), the role a task gets when it names none, and the child's prompt.
 */
import { defaultSystemPrompt } from '../agent/prompt.js';
import type { PermissionMode } from '../tools/permissions.js';

export interface RoleLike {
  name: string;
  description: string;
  /** The role's instructions (its file's Markdown body). */
  prompt: string;
  /** The tools it may use (undefined: its parent's). */
  tools?: readonly string[];
  /** Tools it may not use (with `tools` undefined). */
  disallowedTools?: readonly string[];
  /** A profile name (anything else: its parent's model). */
  model?: string;
  maxTurns?: number;
  /** A ceiling: the child never gets more than its parent's mode. */
  permissionMode?: PermissionMode;
  /** JSON Schema of its final answer. */
  outputSchema?: Record<string, unknown>;
  /** Also offered as a tool of its own, `agent_<name>`. */
  asTool?: boolean;
}

export interface RoleSource {
  get(name: string): RoleLike | undefined;
  list(): RoleLike[];
}

/** The tools that start sub-agents (a child at the depth cap gets none of them). */
export const DELEGATION_TOOLS: ReadonlySet<string> = new Set(['task', 'delegate_tasks']);

/** A task that names no role: the parent's tools, no extra instructions. */
export const GENERAL_ROLE: RoleLike = {
  name: 'general',
  description: 'A general-purpose sub-agent with the same tools as you, for any self-contained sub-task.',
  prompt: '',
};

/** A role session's system prompt: the default one, its place (a sub-agent, or a workflow step at depth 0), its role. */
export function childPrompt(role: RoleLike, cwd: string, depth: number): string {
  const lines = [
    defaultSystemPrompt({ cwd }),
    '',
    depth === 0
      ? 'You run one step of a workflow, which sees only your final answer; nobody can answer questions while it runs.'
      : `You are a sub-agent (depth ${depth}) working on one task for another agent, which sees only your final answer.`,
    'Do the task with your tools, then end with a complete, self-contained answer: findings, what you changed (with paths), and anything left open.',
  ];
  if (depth > 0) lines.push('Do not ask the other agent questions; ask the user only when you cannot go on.');
  if (role.prompt.trim()) lines.push('', `## Your role: ${role.name}`, role.prompt.trim());
  if (role.outputSchema) {
    lines.push(
      '',
      'Your final answer must be only a JSON value matching this JSON Schema (no prose around it):',
      JSON.stringify(role.outputSchema),
    );
  }
  return lines.join('\n');
}
