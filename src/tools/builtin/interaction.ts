/** ask_user, todo_write, todo_read and plan: tools that talk to the user through the face. */
import * as z from 'zod';
import {
  defineTool,
  type PlanItem,
  type Tool,
  type ToolContext,
  ToolError,
  type ToolHost,
} from '../types.js';

const STATUS = z.enum(['pending', 'in_progress', 'completed']);

function host(ctx: ToolContext): ToolHost {
  if (!ctx.host) throw new ToolError('this tool needs a session (no host in this context)');
  return ctx.host;
}

const MARK: Record<PlanItem['status'], string> = { pending: '[ ]', in_progress: '[~]', completed: '[x]' };

function render(items: readonly PlanItem[]): string {
  if (items.length === 0) return '(empty)';
  return items.map((i) => `${MARK[i.status]} ${i.id}. ${i.content}`).join('\n');
}

function checkOneInProgress(items: readonly PlanItem[]): void {
  const active = items.filter((i) => i.status === 'in_progress').length;
  if (active > 1) {
    throw new ToolError(
      `${active} items are in_progress; keep exactly one in progress at a time`,
      'mark the others pending or completed',
    );
  }
}

export function interactionTools(): Tool[] {
  const askUser = defineTool({
    name: 'ask_user',
    description:
      'Ask the user a question and wait for the answer. Only when you cannot proceed safely without it.',
    parameters: z.object({
      question: z.string().min(1),
      options: z.array(z.string()).max(6).optional().describe('suggested answers'),
    }),
    category: 'interaction',
    keywords: ['ask', 'question', 'clarify', 'confirm', '询问', '确认'],
    readOnly: true,
    concurrencySafe: false,
    approval: 'none',
    timeoutMs: 24 * 60 * 60 * 1000,
    async execute(args, ctx) {
      const answer = await host(ctx).ask(args.question, args.options);
      return `The user answered: ${answer}`;
    },
  });

  const todoWrite = defineTool({
    name: 'todo_write',
    description: 'Replace the task checklist for multi-step work; mark one item in_progress at a time.',
    parameters: z.object({
      todos: z.array(z.object({ id: z.string().optional(), content: z.string().min(1), status: STATUS })),
    }),
    category: 'interaction',
    keywords: ['todo', 'checklist', 'tasks', 'steps', '待办', '任务'],
    readOnly: true,
    concurrencySafe: false,
    approval: 'none',
    async execute(args, ctx) {
      const items: PlanItem[] = args.todos.map((t, i) => ({
        id: t.id ?? String(i + 1),
        content: t.content,
        status: t.status,
      }));
      checkOneInProgress(items);
      host(ctx).plan('todo', items);
      const done = items.filter((i) => i.status === 'completed').length;
      return `Todo list updated (${done}/${items.length} done):\n${render(items)}`;
    },
  });

  const todoRead = defineTool({
    name: 'todo_read',
    description: "Read this session's current todo list, with each item's status.",
    parameters: z.object({}),
    category: 'interaction',
    keywords: ['todo', 'checklist', 'progress'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    async execute(_args, ctx) {
      return render(host(ctx).currentPlan('todo').items);
    },
  });

  const plan = defineTool({
    name: 'plan',
    description:
      'Set out the approach for multi-step work: a goal and ordered steps with statuses. Update it as steps finish; the user sees it live.',
    parameters: z.object({
      goal: z.string().min(1).describe('what the plan achieves'),
      steps: z.array(z.object({ step: z.string().min(1), status: STATUS })).min(1),
    }),
    category: 'interaction',
    keywords: ['plan', 'approach', 'steps', 'strategy', '计划', '步骤'],
    readOnly: true,
    concurrencySafe: false,
    approval: 'none',
    async execute(args, ctx) {
      const items: PlanItem[] = args.steps.map((s, i) => ({
        id: String(i + 1),
        content: s.step,
        status: s.status,
      }));
      checkOneInProgress(items);
      host(ctx).plan('plan', items, args.goal);
      return `Plan: ${args.goal}\n${render(items)}`;
    },
  });
  return [askUser, todoWrite, todoRead, plan];
}
