import readline from 'node:readline';
import { workspaceDir } from '../runtime/directories.js';
import { approvalView } from './approval-view.js';
import { EXIT } from './exit.js';
import type { PromptFlags } from './flags.js';
import { plainUserCommands, runJournalCommand } from './plain-commands.js';
import { settleBackground } from './print.js';
import { textRenderer } from './render.js';
import { cliRuntime, pickSession, type Runtime } from './runtime.js';
import { keptLine } from './session-kept.js';
import { slashCommand } from './slash.js';
import { confirmProjectTrust } from './trust-prompt.js';
import { alwaysLabel } from './tui/approval-words.js';
import { VERSION } from './version.js';

/**
 * Asks about an untrusted project config first (once per content of the file),
 * then builds the runtime; undefined when the user closed the prompt instead.
 * The interface is closed on failure or refusal (an open one keeps the process alive).
 */
async function startRuntime(rl: readline.Interface, flags: PromptFlags): Promise<Runtime | undefined> {
  try {
    const cwd = workspaceDir(flags.cwd);
    const trust = await confirmProjectTrust(cwd, (q) => askOrClosed(rl, q), process.stdout);
    if (trust === 'closed') {
      rl.close();
      return undefined;
    }
    // The user has just read what became of the file's settings: no warning repeating it.
    // With no model, the rules still work; other prompts are told how to configure one.
    return await cliRuntime({ ...flags, projectTrustShown: trust === 'told', modelOptional: () => true });
  } catch (e) {
    rl.close();
    throw e;
  }
}

/**
 * A plain line-based conversation for terminals: each line is a prompt; Ctrl-C
 * cancels a running turn, or quits at the prompt; `/exit` quits. `/undo`, `/redo`,
 * `/diff` and the user's commands work as in the terminal UI (plain-commands.ts).
 */
export async function runInteractive(flags: PromptFlags): Promise<number> {
  const rl = readline.createInterface({ input: process.stdin, output: process.stdout, prompt: 'tea> ' });
  let abort: AbortController | undefined;
  rl.on('SIGINT', () => {
    if (abort) abort.abort();
    else rl.close();
  });
  const rt = await startRuntime(rl, flags);
  if (!rt) return EXIT.INTERRUPTED;
  let session: ReturnType<typeof pickSession>;
  try {
    session = pickSession(rt, flags);
  } catch (e) {
    rl.close();
    await rt.close();
    throw e;
  }
  const render = textRenderer(process.stdout, process.stderr, true, {
    live: Boolean(process.stderr.isTTY),
    columns: () => process.stderr.columns,
  });
  const cwd = rt.sessions.get(session.id)?.cwd ?? rt.cwd;
  const user = await plainUserCommands(rt, cwd, process.stderr);
  const io = { out: process.stdout, err: process.stderr };
  const model = activeModel(rt);
  const shown = model ?? 'no model configured (rules only: /help lists them)';
  process.stdout.write(
    `Tea Agent ${VERSION} · ${shown} · session ${session.id.slice(0, 8)}\n` +
      'Type a request. Ctrl-C cancels a running turn; /exit or Ctrl-C at the prompt quits; /help lists the commands.\n',
  );
  /** The `tea> ` prompt is waiting on the screen (a Ctrl-D or Ctrl-C there leaves it mid-line). */
  let atPrompt = false;
  try {
    rl.prompt();
    atPrompt = true;
    for await (const line of rl) {
      atPrompt = false;
      const command = slashCommand(line, user);
      if (command?.kind === 'exit') break;
      // A leading space is kept: ` !ls` is for the model, not a rule.
      const text = command?.kind === 'prompt' ? command.text : command || !line.trim() ? '' : line.trimEnd();
      if (command?.kind === 'help') process.stdout.write(command.text);
      else if (command?.kind === 'unknown') process.stderr.write(command.text);
      else if (command?.kind === 'journal')
        await runJournalCommand(rt, session.id, command.action, command.arg, io);
      if (text) {
        abort = new AbortController();
        for await (const e of session.prompt(text, { signal: abort.signal })) {
          render.event(e);
          if (e.type === 'approval_request') {
            // The diff of an edit or the whole command, before the question.
            const cwd = rt.sessions.get(session.id)?.cwd ?? rt.cwd;
            process.stdout.write(await approvalView(e, cwd, colours()));
            const what = e.subject ? `${e.tool}: ${e.subject}` : e.tool;
            // A shell line names the piece that needs the approval.
            const why = e.part === undefined ? '' : ` (${e.reason})`;
            // A sub-agent's call is asked for here, in its name.
            const who = e.agent ? `${e.agent.label} wants to run ${what}. Allow it?` : `Allow ${what}?`;
            const reply = (
              await ask(rl, `${who}${why} [y]es once / [a] ${alwaysLabel(e)} / [n]o (reason): `)
            ).trim();
            const [choice = '', ...reason] = reply.split(/\s+/);
            const decision = /^a/i.test(choice) ? 'always' : /^y/i.test(choice) ? 'once' : 'reject';
            session.approve(
              e.requestId,
              decision,
              decision === 'reject' ? reason.join(' ') || undefined : undefined,
            );
          } else if (e.type === 'question') {
            const options = e.options ? ` (${e.options.join(' / ')})` : '';
            const who = e.agent ? `(${e.agent.label}) ` : '';
            session.answer(e.requestId, await ask(rl, `? ${who}${e.question}${options}\n> `));
          }
        }
        abort = undefined;
      }
      rl.prompt();
      atPrompt = true;
    }
    return EXIT.OK;
  } finally {
    rl.close();
    // Ctrl-D or Ctrl-C at the prompt: the shell's prompt starts on a line of its own.
    if (atPrompt) process.stdout.write('\n');
    const kept = keptLine(rt, session.id);
    if (kept) process.stdout.write(kept);
    // Let a title or summary still running on the cheap model land before the store closes.
    await settleBackground(session);
    await rt.close();
  }
}

/** The active profile's model id; undefined when none is configured (then only rules work). */
function activeModel(rt: Runtime): string | undefined {
  try {
    return rt.provider.info.model;
  } catch {
    return undefined;
  }
}

/** ANSI colours on a terminal, unless NO_COLOR is set (https://no-color.org). */
function colours(): boolean {
  return Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
}

function ask(rl: readline.Interface, prompt: string): Promise<string> {
  return new Promise((resolve) => rl.question(prompt, resolve));
}

/** Like `ask`, but resolves undefined when the interface closes first (Ctrl-C, end of input). */
function askOrClosed(rl: readline.Interface, prompt: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const onClose = (): void => resolve(undefined);
    rl.once('close', onClose);
    rl.question(prompt, (answer) => {
      rl.off('close', onClose);
      resolve(answer);
    });
  });
}
