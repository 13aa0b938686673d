/**
 * What one prompt's messages say about how the task went: the tool calls and which of
 * them failed, the test runs among the bash calls and their results, the longest plan,
 * skills used, and whether the final answer gives up. Then the outcome, from those
 * signals and the stop reason. Pure: no store, no model.
 */
import type { StopReason } from '../../agent/events.js';
import type { Message, ToolCallPart } from '../../llm/types.js';
import type { TaskOutcome } from '../../store/task-evaluations.js';
import { isTestCommand, testPassed } from './test-commands.js';

export type { TaskOutcome };

export interface TestRun {
  /** The command line (cut to COMMAND_MAX characters). */
  command: string;
  passed: boolean;
}

export interface TaskSignals {
  reason: StopReason;
  /** Tool calls answered in this prompt, and how many of them succeeded. */
  toolCalls: number;
  okCalls: number;
  /** Distinct tools with at least one successful call (sorted). */
  tools: string[];
  /** `[ERROR]` results, and the last one's tool and first line. */
  errors: number;
  lastError?: { tool: string; message: string };
  /** Test suites run through bash, in order (the last TESTS_KEPT). */
  tests: TestRun[];
  /** Items of the longest todo list or plan set in this prompt. */
  planItems: number;
  /** Skills loaded with the `skill` tool. */
  skills: string[];
  /** The final answer says it could not do the task. */
  gaveUp: boolean;
}

const COMMAND_MAX = 200;
const ERROR_MAX = 200;
const TESTS_KEPT = 10;

/** Tools that keep the books rather than do the work: they do not make a plan non-trivial. */
export const BOOKKEEPING_TOOLS: ReadonlySet<string> = new Set([
  'todo_write',
  'todo_read',
  'plan',
  'tool_search',
  'ask_user',
  'memory',
  'skill',
]);

/** Phrases of an answer that gives up (checked in its first and last few hundred characters). */
const GAVE_UP =
  /\b(?:i (?:could ?n[o']t|was ?n[o']t able to|was unable to|am unable to|'m unable to|can ?n?[o']?t) (?:fix|get|make|find a way|resolve|complete|finish|solve|figure)|(?:unable|failed) to (?:fix|resolve|complete|get (?:it|the tests?)|make (?:it|the tests?))|giving up|i give up|(?:tests?|build) (?:are |is )?still fail\w*)\b|无法(?:修复|解决|完成|通过)|没能|未能(?:修复|解决|完成)|放弃/i;

function gaveUp(text: string): boolean {
  const ends = text.length > 1200 ? `${text.slice(0, 600)}\n${text.slice(-600)}` : text;
  return GAVE_UP.test(ends);
}

const firstLine = (text: string, max: number): string => {
  const line = (text.split('\n').find((l) => l.trim() !== '') ?? '').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

function planLength(call: ToolCallPart): number {
  const list =
    call.name === 'todo_write' ? call.args.todos : call.name === 'plan' ? call.args.steps : undefined;
  return Array.isArray(list) ? list.length : 0;
}

/** The signals of one prompt's messages (user, assistant with calls, tool results, answer). */
export function readSignals(
  messages: readonly Message[],
  reason: StopReason,
  finalText: string,
): TaskSignals {
  const calls = new Map<string, ToolCallPart>();
  const out: TaskSignals = {
    reason,
    toolCalls: 0,
    okCalls: 0,
    tools: [],
    errors: 0,
    tests: [],
    planItems: 0,
    skills: [],
    gaveUp: gaveUp(finalText),
  };
  const tools = new Set<string>();
  const skills = new Set<string>();
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type === 'tool-call') {
        calls.set(part.id, part);
        continue;
      }
      if (part.type !== 'tool-result') continue;
      const call = calls.get(part.callId);
      const name = call?.name ?? part.name;
      out.toolCalls += 1;
      const failed = part.isError || part.output.startsWith('[ERROR]');
      if (failed) {
        out.errors += 1;
        out.lastError = { tool: name, message: firstLine(part.output, ERROR_MAX) };
      } else {
        out.okCalls += 1;
        tools.add(name);
        if (call) out.planItems = Math.max(out.planItems, planLength(call));
        if (name === 'skill' && typeof call?.args.name === 'string') skills.add(call.args.name);
      }
      const command = call?.args.command;
      if (name === 'bash' && typeof command === 'string' && isTestCommand(command)) {
        out.tests.push({ command: firstLine(command, COMMAND_MAX), passed: testPassed(part.output, failed) });
      }
    }
  }
  out.tests = out.tests.slice(-TESTS_KEPT);
  out.tools = [...tools].sort();
  out.skills = [...skills].sort();
  return out;
}

/**
 * The outcome: a cancelled prompt was abandoned; one that stopped on an error, the
 * iteration limit, a budget or a doom loop failed. One that completed failed when its
 * last test run failed, or when its answer gives up after errors or failing tests;
 * otherwise it succeeded (a tool error the model got past, such as a missing file it
 * then reported, is no failure).
 */
export function outcomeOf(s: TaskSignals): TaskOutcome {
  if (s.reason === 'cancelled') return 'abandoned';
  if (s.reason !== 'completed') return 'failed';
  const lastTest = s.tests.at(-1);
  if (lastTest && !lastTest.passed) return 'failed';
  if (s.gaveUp && (s.errors > 0 || s.tests.some((t) => !t.passed))) return 'failed';
  return 'succeeded';
}

/** Successful calls of working tools (not bookkeeping ones) a draft needs, and how many distinct tools. */
export const DRAFT_MIN_CALLS = 4;
export const DRAFT_MIN_TOOLS = 2;
/** Items of a todo list or plan that make a task multi-step on their own. */
export const DRAFT_MIN_PLAN_ITEMS = 3;

/**
 * A plan worth a skill: a todo list or plan of at least DRAFT_MIN_PLAN_ITEMS items, or
 * DRAFT_MIN_CALLS successful calls across DRAFT_MIN_TOOLS working tools. One or two calls
 * (read a file, answer) are a lookup, not a procedure someone would repeat; a skill is a
 * procedure of several steps with different tools.
 */
export function nonTrivialPlan(s: TaskSignals, messages: readonly Message[]): boolean {
  if (s.planItems >= DRAFT_MIN_PLAN_ITEMS) return true;
  const working = workingCalls(messages);
  return working.calls >= DRAFT_MIN_CALLS && working.tools.size >= DRAFT_MIN_TOOLS;
}

function workingCalls(messages: readonly Message[]): { calls: number; tools: Set<string> } {
  const names = new Map<string, string>();
  const tools = new Set<string>();
  let calls = 0;
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type === 'tool-call') names.set(p.id, p.name);
      if (p.type !== 'tool-result' || p.isError || p.output.startsWith('[ERROR]')) continue;
      const name = names.get(p.callId) ?? p.name;
      if (BOOKKEEPING_TOOLS.has(name)) continue;
      calls += 1;
      tools.add(name);
    }
  }
  return { calls, tools };
}
