import type { AgentEvent, StopReason } from '../agent/index.js';
import { changedLine } from '../runtime/journal.js';
import { RULE_CALL_PREFIX } from '../runtime/rules.js';
import { flatEvent } from '../runtime/subagents.js';
import { contentText, isFinished } from '../runtime/tool-record.js';
import { duration } from '../util/duration.js';
import { jsonText } from './json-out.js';
import { type Refusal, refusalLine, refusalOf } from './refusals.js';
import { subagentLines, usageSplitLine } from './subagent-lines.js';

export interface Writer {
  write(s: string): unknown;
}

export interface Renderer {
  event(e: AgentEvent): void;
}

/** One line of a tool's arguments, for progress output. */
function brief(args: Record<string, unknown>, max = 80): string {
  const s = Object.entries(args)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v)}`)
    .join(' ');
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function firstLine(s: string, max = 100): string {
  const line = s.split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

const modelCalls = (n: number): string => `${n} model call${n === 1 ? '' : 's'}`;

/**
 * How `tea -p` tells of a turn that stopped early. Nobody can "send a message" to a
 * finished run, so it names the command that goes on in the same session.
 */
export function printStopMessage(
  reason: StopReason,
  message: string | undefined,
  iterations: number,
): string | undefined {
  if (reason === 'max_iterations') {
    return (
      `stopped after ${modelCalls(iterations)} (the iteration cap); the task may not be complete. ` +
      'To go on where it stopped: tea -p "continue" --continue, or raise the cap with --max-turns (agent.max_iterations).'
    );
  }
  if (reason === 'doom_loop' && message) return `${message} To go on: tea -p "…" --continue.`;
  return message;
}

/** 5,000,000 → `5.0M`, 17,259 → `17.3K`, 950 → `950`. */
function compact(n: number): string {
  if (n < 10_000) return n.toLocaleString('en-US');
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}K`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

type Compaction = Extract<AgentEvent, { type: 'compaction' }>;

/** What the model sees of a last message cut to fit its window (the whole stays stored). */
export function cutLine(e: Compaction): string | undefined {
  const cut = e.cut;
  if (!cut) return undefined;
  const head = Math.ceil(cut.kept / 2);
  const tail = cut.kept - head;
  const what = cut.role === 'user' ? 'your message' : 'the last tool result';
  const sees =
    tail > 0 ? `its first ${compact(head)} and last ${compact(tail)}` : `its first ${compact(head)}`;
  return (
    `tea: ${what} (${compact(cut.chars)} characters, ~${compact(cut.tokens)} tokens) is longer than the ` +
    `model's window allows (${compact(e.limit)} tokens); the model sees only ${sees} characters ` +
    '(the whole text is kept in the session)\n'
  );
}

/** A line for stderr in the CLI's voice: `tea: ` and the message (a capitalised first word in lower case, not `HTTP`). */
function teaLine(message: string): string {
  const text = /^[A-Z][a-z]/.test(message)
    ? `${message.charAt(0).toLowerCase()}${message.slice(1)}`
    : message;
  return `tea: ${text}\n`;
}

/**
 * text: the answer streams to stdout; tool activity, retries and problems go to
 * stderr (tool activity only when `progress` is on) so stdout stays clean.
 */
export function textRenderer(
  out: Writer,
  err: Writer,
  progress: boolean,
  opts: {
    print?: boolean;
    /**
     * Hold each model call's text until the call can no longer be retried (stdout is a
     * pipe): a retried stream then never leaves half an answer before the whole one.
     */
    hold?: boolean;
    /**
     * Sub-agents' lines redrawn in place (stderr is a terminal and not --verbose);
     * otherwise one line per change. `columns`: the terminal's width.
     */
    live?: boolean;
    columns?: () => number | undefined;
  } = {},
): Renderer {
  /** Text of the current model call not written yet (with `hold`), and whether any was written. */
  let held = '';
  let shown = false;
  let atLineStart = true;
  /** Whether any answer text was written this prompt, and how its last tool call ended. */
  let wrote = false;
  let lastCall: string | undefined;
  // A work mode's refusal is a refusal where a flag is the way out (`tea -p --work-mode …`).
  const refusing = { workModes: Boolean(opts.print) };
  const children = subagentLines(err, {
    live: Boolean(opts.live),
    ...(opts.columns ? { columns: opts.columns } : {}),
  });
  const flush = (): void => {
    if (held !== '') {
      children.clear();
      out.write(held);
      wrote = true;
      atLineStart = held.endsWith('\n');
    }
    held = '';
    shown = false;
  };
  let iterations = 0;
  /** Cut-message lines already shown (each step of a turn builds the context again). */
  const cutsShown = new Set<string>();
  const say = (s: string): void => {
    children.clear();
    if (!atLineStart) out.write('\n');
    atLineStart = true;
    err.write(s);
    children.redraw();
  };
  return {
    event(e) {
      const streaming = e.type === 'text_delta' || e.type === 'thinking_delta';
      if (!streaming && e.type !== 'retry' && e.type !== 'fallback') flush();
      switch (e.type) {
        case 'subagent':
          // A child's text stays its own: only its line (status, tokens, tool) is shown.
          if (!atLineStart) out.write('\n');
          atLineStart = true;
          children.event(e);
          {
            // A child's call refused by the policy is shown as the session's own are.
            const refused = refusalOf(e, refusing);
            if (refused) say(refusalLine(refused));
          }
          break;
        case 'approval_request':
        case 'question':
          // The face asks next, below: the block is drawn again after the answer.
          children.clear();
          break;
        case 'text_delta':
          children.clear();
          if (opts.hold) {
            held += e.text;
            break;
          }
          out.write(e.text);
          wrote = true;
          shown = true;
          atLineStart = e.text.endsWith('\n');
          break;
        case 'tool_update': {
          const r = e.record;
          if (isFinished(r.state)) lastCall = r.state;
          // A delegation call's result says how each of its children ended.
          children.event(e);
          // A refusal by the policy is always shown, with what would let the call run.
          const refusal = refusalOf(e, refusing);
          if (refusal) {
            say(refusalLine(refusal));
            lastCall = 'refused';
          } else if (progress) {
            // A call shows as started once it runs; one that failed its validation shows with its error.
            const never = r.startedAt === undefined && r.state === 'error';
            if (r.state === 'running' || never) say(`⏺ ${r.name} ${brief(r.args)}\n`);
            // A rule's failed call: its whole error is the prompt's answer, shown once at the end.
            const answered = r.state === 'error' && r.callId.startsWith(RULE_CALL_PREFIX);
            if (isFinished(r.state) && r.state !== 'completed' && !answered)
              say(`  ${r.state}: ${firstLine(contentText(r.content))}\n`);
          }
          break;
        }
        case 'plan':
          if (progress) {
            const marks = { pending: '[ ]', in_progress: '[~]', completed: '[x]' } as const;
            const head = e.title ? `${e.title}\n` : '';
            say(`${head}${e.items.map((i) => `  ${marks[i.status]} ${i.content}`).join('\n')}\n`);
          }
          break;
        case 'notice':
          say(`tea: ${e.title}: ${e.body}\n`);
          break;
        case 'journal':
          if (!opts.print) say(`${changedLine(e.files)}\n`);
          break;
        case 'compaction': {
          const line = cutLine(e);
          if (line && !cutsShown.has(line)) {
            cutsShown.add(line);
            say(line);
          }
          break;
        }
        case 'retry': {
          const what = e.kind === 'timeout' ? 'model not answering' : 'model call failed';
          const dropped = e.discard && shown ? '; the partial answer above is replaced by the next one' : '';
          if (e.discard) held = '';
          say(
            `… ${what}, retry ${e.attempt}/${e.maxRetries} in ${duration(e.delayMs)} (${e.reason})${dropped}\n`,
          );
          if (e.discard) shown = false;
          break;
        }
        case 'fallback':
          held = '';
          say(`… falling back from ${e.from} to ${e.to}: ${e.reason}\n`);
          shown = false;
          break;
        case 'error':
          say(teaLine(e.message));
          break;
        case 'turn_end':
          iterations += e.iterations;
          break;
        case 'done': {
          children.event(e);
          children.clear();
          // A prompt a rule answered has no streamed text: its tool's output is the answer.
          if (!wrote && e.reason === 'completed' && e.text) {
            if (lastCall === 'completed') out.write(e.text.endsWith('\n') ? e.text : `${e.text}\n`);
            else if (lastCall === 'error') err.write(`${e.text}\n`);
          }
          wrote = false;
          lastCall = undefined;
          if (!atLineStart) out.write('\n');
          atLineStart = true;
          if (e.subagents) err.write(usageSplitLine(e.usage, e.costUsd, e.subagents));
          // A completed prompt's note: a rule's command that exited non-zero.
          if (e.reason === 'completed' && e.message)
            err.write(opts.print ? teaLine(e.message) : `${e.message}\n`);
          // An error was already shown by its own event.
          if (e.reason === 'completed' || e.reason === 'error') break;
          if (!opts.print) {
            if (e.message) err.write(`${e.message}\n`);
            break;
          }
          const message = printStopMessage(e.reason, e.message, iterations);
          if (message) err.write(teaLine(message));
          break;
        }
        default:
          break;
      }
    },
  };
}

/**
 * stream-json: every event as one JSON line (snake_case keys); a sub-agent's event
 * as its own event with a `parent` field naming the child and the call that started it.
 */
export function streamJsonRenderer(out: Writer): Renderer {
  return {
    event(e) {
      out.write(jsonText(flatEvent(e), true));
    },
  };
}

/** json: one object when the run is done (for `tea -p`: its `message` says how to go on). */
export function jsonRenderer(out: Writer): Renderer {
  let tools = 0;
  let iterations = 0;
  const refused: Refusal[] = [];
  return {
    event(e) {
      const refusal = refusalOf(e);
      if (refusal) refused.push(refusal);
      if (e.type === 'tool_update' && isFinished(e.record.state)) tools++;
      if (e.type === 'turn_end') iterations += e.iterations;
      if (e.type !== 'done') return;
      const result = {
        type: 'result',
        session_id: e.sessionId,
        reason: e.reason,
        result: e.text,
        message: printStopMessage(e.reason, e.message, iterations) ?? null,
        iterations,
        tool_calls: tools,
        usage: { input_tokens: e.usage.inputTokens, output_tokens: e.usage.outputTokens },
        cost_usd: e.costUsd,
        ...(e.subagents
          ? {
              subagents: {
                count: e.subagents.count,
                usage: {
                  input_tokens: e.subagents.usage.inputTokens,
                  output_tokens: e.subagents.usage.outputTokens,
                },
                cost_usd: e.subagents.costUsd,
              },
            }
          : {}),
        refused,
      };
      out.write(jsonText(result, true));
    },
  };
}
