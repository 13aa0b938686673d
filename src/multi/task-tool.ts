/**
 * The delegation tools: `task` (one sub-task), `delegate_tasks` (a batch, run in
 * parallel up to the session's limit) and `agent_<role>` (a role offered as a tool
 * of its own). Their facts and JSON schemas are in task-info.ts, which the runtime
 * registers; this code loads on the first call.
 */
// A namespace import: `import { z }` in a module the bundle loads lazily keeps all of zod in it.
import * as z from 'zod';
import { seatOf } from '../agent/seat.js';
import { type Tool, type ToolContext, ToolError, type ToolResult } from '../tools/types.js';
import { batchProblem } from './anti-patterns.js';
import type { ChildResult, Delegator, TaskSpec } from './delegate.js';
import { agentToolInfo, DELEGATE_TOOL_FACTS, type RoleSummary, taskToolInfo } from './task-info.js';

const taskFields = {
  description: z.string().min(1).max(120).describe('A short label for the user, 3-8 words'),
  prompt: z
    .string()
    .min(1)
    .describe('The whole task: what to do and what to answer with. The sub-agent sees nothing else'),
  role: z.optional(z.string().describe('The role to run it as (default general)')),
  context: z.optional(
    z
      .enum(['isolated', 'fork'])
      .describe('isolated (default): only this task and the files; fork: also a digest of this conversation'),
  ),
  files: z.optional(z.array(z.string()).max(20).describe('Workspace files whose text the sub-agent gets')),
  max_tokens: z.optional(z.int().positive().describe('Token budget (input + output) of the sub-agent')),
  max_cost_usd: z.optional(z.number().positive().describe('Cost budget in US dollars')),
  timeout_s: z.optional(z.number().positive().max(86_400).describe('Time limit in seconds')),
};

export const taskParameters = z.object(taskFields);
export const delegateParameters = z.object({
  tasks: z.array(taskParameters).min(1).describe('The sub-tasks; they run in parallel'),
});
export const agentToolParameters = z.object({
  prompt: taskFields.prompt,
  context: taskFields.context,
  files: taskFields.files,
});

type TaskArgs = z.infer<typeof taskParameters>;

function specOf(a: TaskArgs): TaskSpec {
  return {
    description: a.description,
    prompt: a.prompt,
    ...(a.role === undefined ? {} : { role: a.role }),
    ...(a.context === undefined ? {} : { context: a.context }),
    ...(a.files === undefined ? {} : { files: a.files }),
    ...(a.max_tokens === undefined ? {} : { maxTokens: a.max_tokens }),
    ...(a.max_cost_usd === undefined ? {} : { maxCostUsd: a.max_cost_usd }),
    ...(a.timeout_s === undefined ? {} : { timeoutMs: a.timeout_s * 1000 }),
  };
}

const STATUS_TEXT: Record<ChildResult['status'], string> = {
  completed: 'completed',
  budget: 'stopped by its budget: a partial result',
  timeout: 'stopped by its time limit: a partial result',
  max_iterations: 'stopped at its turn limit: a partial result',
  error: 'failed',
  cancelled: 'cancelled',
};

/** One child's result as the parent model reads it. */
export function formatResult(r: ChildResult): string {
  const tokens = r.usage.inputTokens + r.usage.outputTokens;
  const head = `[sub-agent ${r.label} · ${STATUS_TEXT[r.status]} · ${tokens} tokens · session ${r.sessionId.slice(0, 8)}]`;
  const lines = [head];
  if (r.message && r.status !== 'completed') lines.push(r.message);
  if (r.output !== undefined) lines.push(`Output (valid JSON):\n${JSON.stringify(r.output, null, 2)}`);
  else lines.push(r.text.trim() || '(no answer)');
  return lines.join('\n');
}

function seat(ctx: ToolContext) {
  const s = seatOf(ctx.host);
  if (!s) throw new ToolError('sub-agents run only inside a session', 'do the work yourself');
  return s;
}

/** The `task` tool. */
export function taskTool(delegator: Delegator, roles: readonly RoleSummary[]): Tool<typeof taskParameters> {
  return {
    ...taskToolInfo(roles),
    parameters: taskParameters,
    async execute(args, ctx): Promise<ToolResult> {
      const r = await delegator.run(seat(ctx), specOf(args), ctx.signal);
      return { output: formatResult(r), isError: r.status === 'error' || r.status === 'cancelled' };
    },
  };
}

/** The `delegate_tasks` tool: its tasks run at once, up to the session's limit of running children. */
export function delegateTool(delegator: Delegator): Tool<typeof delegateParameters> {
  return {
    ...DELEGATE_TOOL_FACTS,
    parameters: delegateParameters,
    async execute(args, ctx): Promise<ToolResult> {
      const max = delegator.limits.maxTasksPerCall;
      if (args.tasks.length > max) {
        throw new ToolError(
          `${args.tasks.length} tasks in one call; at most ${max} (subagents.max_tasks_per_call)`,
          `split them into calls of at most ${max} tasks`,
        );
      }
      const parent = seat(ctx);
      const readOnly = (tool: string): boolean => parent.tools.get(tool)?.readOnly === true;
      const problem = batchProblem(args.tasks, delegator.roles, readOnly);
      if (problem) throw new ToolError(problem.message, problem.hint);
      const settled = await Promise.allSettled(
        args.tasks.map((t) => delegator.run(parent, specOf(t), ctx.signal)),
      );
      const blocks = settled.map((s, i) => {
        const title = `## Task ${i + 1}: ${args.tasks[i]!.description}`;
        if (s.status === 'fulfilled') return `${title}\n${formatResult(s.value)}`;
        const e = s.reason;
        const hint = e instanceof ToolError && e.hint ? ` (${e.hint})` : '';
        return `${title}\n[ERROR] ${e instanceof Error ? e.message : String(e)}${hint}`;
      });
      const failed = settled.filter(
        (s) => s.status === 'rejected' || s.value.status === 'error' || s.value.status === 'cancelled',
      ).length;
      return { output: blocks.join('\n\n'), isError: failed === settled.length };
    },
  };
}

/** A role as a tool of its own (`agent_<name>`). */
export function agentTool(delegator: Delegator, role: RoleSummary): Tool<typeof agentToolParameters> {
  return {
    ...agentToolInfo(role),
    parameters: agentToolParameters,
    async execute(args, ctx): Promise<ToolResult> {
      const spec: TaskSpec = {
        description: args.prompt.split('\n')[0]!.slice(0, 60),
        prompt: args.prompt,
        role: role.name,
        ...(args.context === undefined ? {} : { context: args.context }),
        ...(args.files === undefined ? {} : { files: args.files }),
      };
      const r = await delegator.run(seat(ctx), spec, ctx.signal);
      return { output: formatResult(r), isError: r.status === 'error' || r.status === 'cancelled' };
    },
  };
}
