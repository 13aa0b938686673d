import { isatty } from 'node:tty';
import type { Session, StopReason, ToolCallRecord } from '../agent/index.js';
import { exitedCommand, matchRule, RULE_CALL_PREFIX } from '../runtime/rules.js';
import { BACKGROUND_GRACE_MS } from '../runtime/runtime.js';
import { contentText } from '../runtime/tool-record.js';
import { notACommand } from './bare-words.js';
import { EXIT, UsageError } from './exit.js';
import type { PromptFlags } from './flags.js';
import { refusalLine, refusalOf } from './refusals.js';
import { jsonRenderer, type Renderer, streamJsonRenderer, textRenderer } from './render.js';
import { cliRuntime, pickSession, type Runtime } from './runtime.js';
import { readStdin } from './stdin.js';

/**
 * The prompt from the arguments and/or piped stdin (both: the argument, then the piped
 * text). Words given without -p are only an instruction for piped text (bare-words.ts).
 */
async function promptText(words: string[], flags: PromptFlags): Promise<string> {
  const piped = isatty(0) ? '' : (await readStdin()).trim();
  if (!flags.print && words.length > 0 && !piped) throw notACommand(words);
  const text = [words.join(' ').trim(), piped].filter(Boolean).join('\n\n');
  if (!text) throw new UsageError('no prompt: pass one (tea -p "…") or pipe it on stdin');
  return text;
}

export function exitCodeFor(reason: StopReason): number {
  switch (reason) {
    case 'completed':
      return EXIT.OK;
    case 'cancelled':
      return EXIT.INTERRUPTED;
    case 'max_iterations':
    case 'doom_loop':
    case 'budget':
      return EXIT.INCOMPLETE;
    case 'error':
    case 'client_tools': // no client offers tools here
      return EXIT.ERROR;
  }
}

function rendererFor(flags: PromptFlags): Renderer {
  if (flags.outputFormat === 'json') return jsonRenderer(process.stdout);
  if (flags.outputFormat === 'stream-json') return streamJsonRenderer(process.stdout);
  return textRenderer(process.stdout, process.stderr, Boolean(flags.verbose || process.stderr.isTTY), {
    print: true,
    // Into a pipe or a file, each model call's text is written once it can no longer be retried.
    hold: !process.stdout.isTTY,
    // Sub-agents' lines are redrawn in place on a terminal; --verbose keeps every change.
    live: Boolean(process.stderr.isTTY && !flags.verbose),
    columns: () => process.stderr.columns,
  });
}

/**
 * Lets a summary or memory extraction still running on the cheap model land, for
 * a few seconds at most: a hung cheap model must not hold the exit.
 */
export async function settleBackground(session: Session): Promise<void> {
  const { stopped } = await session.settle(BACKGROUND_GRACE_MS);
  if (stopped.length === 0) return;
  process.stderr.write(
    `tea: stopped background work after ${BACKGROUND_GRACE_MS / 1000} s (${stopped.join(', ')}: ` +
      'the cheap model did not finish); it is picked up again by the next turn\n',
  );
}

/** A command (`!make`) that ran and exited non-zero. */
function commandFailed(r: ToolCallRecord): boolean {
  if (r.state !== 'completed' || r.name !== 'bash') return false;
  const exited = exitedCommand(contentText(r.content));
  return exited !== undefined && exited.exitCode !== 0;
}

/** `tea -p`: one prompt (plus follow-ups), rendered in the chosen format. */
export async function runPrompt(words: string[], flags: PromptFlags): Promise<number> {
  const text = await promptText(words, flags);
  // A prompt a rule answers needs no model (`tea -p '!ls'` works before one is configured).
  const modelOptional = (rt: Runtime): boolean => matchRule(text, rt.rules) !== undefined;
  const rt = await cliRuntime({ ...flags, approvals: 'deny', titles: false, modelOptional });
  const abort = new AbortController();
  const onSigint = (): void => {
    if (abort.signal.aborted) process.exit(EXIT.INTERRUPTED);
    abort.abort();
  };
  process.on('SIGINT', onSigint);
  try {
    const session = pickSession(rt, { ...flags, approvals: 'deny' });
    const render = rendererFor(flags);
    let reason: StopReason = 'error';
    let refused = 0;
    // A prompt a rule answered whose command failed (a tool error, a command exiting
    // non-zero): nobody but the caller can react, so the exit code says it (1).
    let ruleFailed = false;
    for await (const e of session.prompt(text, { signal: abort.signal })) {
      render.event(e);
      if (e.type === 'tool_update' && e.record.callId.startsWith(RULE_CALL_PREFIX))
        ruleFailed = e.record.state === 'error' || commandFailed(e.record);
      const refusal = refusalOf(e);
      if (refusal) {
        refused++;
        // The text renderer shows it among the other stderr lines; JSON output needs it said here.
        if (flags.outputFormat !== 'text') process.stderr.write(refusalLine(refusal));
      }
      if (e.type === 'done') reason = e.reason;
    }
    await settleBackground(session);
    if (reason === 'completed' && refused > 0) return EXIT.REFUSED;
    return reason === 'completed' && ruleFailed ? EXIT.ERROR : exitCodeFor(reason);
  } finally {
    process.off('SIGINT', onSigint);
    // The process exits next: the store may leave its small write-ahead log for the next one.
    await rt.close({ exiting: true });
  }
}
