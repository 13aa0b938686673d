/**
 * The terminal UI once its first frame is up: asks about project trust, builds the
 * runtime, opens the session, and runs what is typed: slash commands (commands/), or
 * prompts (turns.ts). It is the `TuiHost` the commands get.
 */
import { existsSync } from 'node:fs';
import { type MarkdownTheme, Text } from '@mariozechner/pi-tui';
import type { Session } from '../../agent/index.js';
import { teaHome } from '../../config/files.js';
import { workspaceDir } from '../../runtime/directories.js';
import { RULE_COMMANDS } from '../../runtime/rules.js';
import { approvalView } from '../approval-view.js';
import { EXIT } from '../exit.js';
import type { PromptFlags } from '../flags.js';
import { settleBackground } from '../print.js';
import { cliRuntime, pickSession, type Runtime } from '../runtime.js';
import { confirmProjectTrust } from '../trust-prompt.js';
import { loadCommands } from './commands/index.js';
import { diffCommand, redoCommand, undoCommand } from './commands/journal.js';
import { cycleWorkMode, modeCommand } from './commands/mode.js';
import type { PickOptions, PrintTone, TuiCommand, TuiHost } from './host.js';
import { History, imagesIn, TeaAutocomplete, workspaceFiles } from './input.js';
import { screenKeys } from './keys.js';
import { FreshSessions, leaveTui } from './leave.js';
import { Notes } from './notes.js';
import { AskView, PickView } from './prompts.js';
import { type ReplayOptions, replaySession } from './replay.js';
import type { Screen } from './screen.js';
import { dim, markdownTheme } from './theme.js';
import { Transcript } from './transcript.js';
import { Turns } from './turns.js';

/**
 * Slash words that are sent to the session as they are instead of being refused as
 * unknown commands: the rule engine answers them (`/read path`, `/ls`, `/grep`, `/time`).
 */
export const PASS_THROUGH_SLASH: readonly string[] = RULE_COMMANDS.map((r) => r.name);

export async function runApp(screen: Screen, flags: PromptFlags): Promise<number> {
  let highlight: ((code: string, lang?: string) => string[]) | undefined;
  const theme = (): MarkdownTheme => markdownTheme(highlight);
  let resolveExit: (code: number) => void = () => {};
  const exited = new Promise<number>((resolve) => {
    resolveExit = resolve;
  });
  let exiting = false;
  const exit = (code: number = EXIT.OK): void => {
    if (exiting) return;
    exiting = true;
    resolveExit(code);
  };
  const transcript = new Transcript(screen.transcript, {
    markdownTheme: theme,
    diffOf: async () => undefined,
    changed: () => screen.changed(),
  });
  // What commands print while a turn runs waits under its answer, until it ends.
  const notes = new Notes(screen.notes, transcript, {
    markdownTheme: theme,
    diffOf: async () => undefined,
    changed: () => screen.changed(),
  });
  // Highlighting is loaded after the first frame, off the path to it.
  void import('./highlight.js').then((m) => {
    highlight = m.highlightCode;
    transcript.retheme();
    screen.changed();
  });
  let turns: Turns | undefined;
  const editor = screen.editor;
  screen.tui.addInputListener(
    screenKeys({
      busy: () => turns?.busy ?? false,
      editing: () => screen.live.children.length === 0,
      completing: () => editor.isShowingAutocomplete(),
      text: () => editor.getExpandedText(),
      clearText: () => editor.setText(''),
      interrupt: () => turns?.interrupt(),
      followUp: (text) => turns?.queue(text, 'follow-up'),
      toggleTools: () => {
        transcript.expansion.tools = !transcript.expansion.tools;
        screen.changed();
      },
      toggleThinking: () => {
        transcript.expansion.thinking = !transcript.expansion.thinking;
        screen.changed();
      },
      hint: (text) => {
        if (screen.status.info.activity === text) return;
        if (text === undefined && turns?.busy) return;
        screen.status.info = {
          ...screen.status.info,
          activity: text ?? (turns?.busy ? 'working… Esc interrupts' : undefined),
        };
        screen.changed();
      },
      cycleMode: () => cycleMode?.(),
      exit: () => exit(),
    }),
  );
  /** Shift+Tab, once the session is open. */
  let cycleMode: (() => void) | undefined;

  const ask = (question: string, opts: { initial?: string } = {}): Promise<string | undefined> =>
    new Promise((resolve) => {
      screen.show(
        new AskView(
          question,
          (answer) => {
            screen.restore();
            resolve(answer);
          },
          opts.initial,
        ),
      );
    });

  // Lines sent while the runtime starts are kept and run once it is ready (type-ahead).
  const early: string[] = [];
  editor.onSubmit = (raw) => {
    if (raw.trim()) early.push(raw);
  };

  // The project's trust question, asked in the TUI, before its settings are read.
  let rt: Runtime;
  let session: Session;
  try {
    const cwd = workspaceDir(flags.cwd);
    const out = {
      write: (s: string) => {
        transcript.print(s, 'dim');
        return true;
      },
    } as unknown as NodeJS.WritableStream;
    const trust = await Promise.race([
      confirmProjectTrust(cwd, ask, out),
      exited.then(() => 'closed' as const),
    ]);
    if (trust === 'closed' || exiting) {
      screen.stop();
      return EXIT.INTERRUPTED;
    }
    rt = await cliRuntime({
      ...flags,
      projectTrustShown: trust === 'told',
      // With no model, rules (`!ls`, `/read …`) still run; other prompts are told how to set one.
      modelOptional: () => true,
      warn: (message) => transcript.print(`warning: ${message}`, 'error'),
    });
    try {
      session = pickSession(rt, flags);
    } catch (e) {
      await rt.close();
      throw e;
    }
  } catch (e) {
    screen.stop();
    throw e;
  }

  // The session made at start (not one resumed) is deleted when left empty.
  const fresh = new FreshSessions(rt.sessions);
  if (!flags.resume && !flags.continue) fresh.created(session.id);
  const history = new History(teaHome());
  for (const entry of history.load()) editor.addToHistory(entry);
  let commands: TuiCommand[] = [];
  const findCommand = (word: string): TuiCommand | undefined =>
    commands.find((c) => c.name === word || c.aliases?.includes(word));

  const refreshStatus = (): void => {
    const s = turns!.session;
    const info = modelInfo(rt, rt.sessions.get(s.id)?.profile ?? undefined);
    const agents = transcript.runningAgents.size;
    const processes = rt.backgroundJobs.running().length;
    screen.status.info = {
      ...screen.status.info,
      phase: undefined,
      model: info.model,
      profile: info.profile,
      permissionMode: s.permissionMode,
      workMode: s.workMode,
      contextTokens: transcript.contextTokens,
      contextWindow: transcript.contextLimit ?? info.contextWindow,
      costUsd: rt.sessions.usageWithSubagents(s.id).costUsd,
      jobs: [
        ...(agents > 0 ? [`${agents} sub-agent${agents === 1 ? '' : 's'}`] : []),
        ...(processes > 0 ? [`${processes} job${processes === 1 ? '' : 's'}`] : []),
      ],
      activity: turns!.busy ? 'working… Esc interrupts' : undefined,
    };
    screen.changed();
  };

  const host: TuiHost = {
    runtime: rt,
    session: () => turns!.session,
    busy: () => turns!.busy,
    async switchTo(next, opts = {}) {
      const old = turns!.session;
      await turns!.settle();
      // A title still being made for the old session lands in the background.
      void settleBackground(old);
      turns!.session = next;
      if (opts.created) fresh.created(next.id);
      if (old.id !== next.id) fresh.left(old.id);
      transcript.clear();
      // Context use is the new session's (its last model call's, set by the replay).
      transcript.contextLimit = undefined;
      replay(next);
      refreshStatus();
    },
    print(text, opts = {}) {
      const tone = (opts.tone ?? 'info') as PrintTone;
      if (turns?.busy) notes.print(text, tone, opts.markdown ?? false);
      else transcript.print(text, tone, opts.markdown ?? false);
      screen.changed();
    },
    progress(text) {
      const remove = transcript.transient(text);
      screen.changed();
      return () => {
        remove();
        screen.changed();
      };
    },
    pick<T>(opts: PickOptions<T>): Promise<T | undefined> {
      return new Promise((resolve) => {
        screen.show(
          new PickView<T>(
            opts.title,
            opts.items,
            opts.search ?? false,
            (value) => {
              screen.restore();
              resolve(value);
            },
            opts.selected,
          ),
        );
      });
    },
    ask,
    submit: (text) => void send(text),
    clear() {
      transcript.clear();
      screen.changed();
    },
    refreshStatus,
    exit: () => exit(),
  };

  /** The session's last turns drawn again (replay.ts); tool lines get their titles once their tools load. */
  const replay = (s: Session, opts: ReplayOptions = {}): void => {
    void replaySession(transcript, rt, s, opts).titled.then(() => screen.changed());
  };

  turns = new Turns(session, transcript, {
    changed: () => screen.changed(),
    refreshStatus,
    approvalBody: async (e) => {
      const cwd = rt.sessions.get(turns!.session.id)?.cwd ?? rt.cwd;
      return approvalView(e, cwd, !process.env.NO_COLOR);
    },
    show: (view) => screen.show(view),
    restore: () => screen.restore(),
    queued: (items) => {
      screen.queued.clear();
      for (const q of items) screen.queued.addChild(new Text(dim(`↳ queued ${q.kind}: ${q.text}`), 0, 0));
    },
    ended: () => notes.flush(),
  });
  transcript.setDiff(async (record) => {
    const cwd = rt.sessions.get(turns!.session.id)?.cwd ?? rt.cwd;
    const view = await approvalView(
      {
        type: 'approval_request',
        requestId: '',
        callId: record.callId,
        tool: record.name,
        args: record.args,
        approval: 'write',
        reason: '',
      },
      cwd,
      false,
    ).catch(() => '');
    const lines = view.split('\n').map((l) => l.replace(/^ {2}/, ''));
    return lines.some((l) => /^[+-]/.test(l)) ? lines.filter(Boolean).join('\n') : undefined;
  });

  /** A prompt (or a slash word passed through): sent now, or queued as steering while a turn runs. */
  async function send(text: string): Promise<void> {
    if (turns!.busy) {
      turns!.queue(text, 'steering');
      return;
    }
    const found = await imagesIn(text, rt.cwd, process.env.HOME);
    await turns!.run(text, found.images);
  }

  // Built-in commands, the journal's and modes', then the user's (.tea/commands, TEA_HOME/commands).
  const all = await loadCommands(host, [undoCommand, redoCommand, diffCommand, modeCommand]);
  const offered = await Promise.all(all.map(async (c) => (c.available ? c.available(host) : true)));
  commands = all.filter((_, i) => offered[i]);
  cycleMode = () => {
    const next = cycleWorkMode(host);
    if (next)
      host.print(`Work mode: ${next} (permission mode ${turns!.session.permissionMode})`, { tone: 'dim' });
  };

  const completion = new TeaAutocomplete(
    [
      ...commands.map((c) => ({
        name: c.name,
        description: c.description,
        ...(c.argumentHint ? { argumentHint: c.argumentHint } : {}),
        ...(c.complete
          ? { getArgumentCompletions: async (prefix: string) => c.complete!(prefix, host) }
          : {}),
      })),
      ...RULE_COMMANDS.map((r) => ({
        name: r.name,
        description: r.description,
        ...(r.argumentHint ? { argumentHint: r.argumentHint } : {}),
      })),
    ],
    rt.cwd,
    async () => workspaceFiles(rt.cwd, (await import('@vscode/ripgrep')).rgPath),
    new Set(commands.filter((c) => c.takesPrefix).map((c) => c.name)),
  );
  editor.setAutocompleteProvider(completion);
  screen.tui.addInputListener(completion.enterRunsTyped(editor));

  editor.onSubmit = (raw) => {
    const line = raw;
    if (!line.trim()) return;
    editor.addToHistory(line);
    history.add(line);
    void handleLine(line).catch((e: unknown) => {
      host.print(`error: ${e instanceof Error ? e.message : String(e)}`, { tone: 'error' });
    });
  };
  for (const line of early.splice(0)) editor.onSubmit(line);

  async function handleLine(line: string): Promise<void> {
    const m = /^\/([A-Za-z][\w-]*)(?:\s+([\s\S]*))?$/.exec(line.trimEnd());
    if (m) {
      const word = m[1]!.toLowerCase();
      const command = findCommand(word);
      if (command) {
        if (turns!.busy && !command.whileBusy) {
          host.print(`/${word} waits for the turn to end (or press Esc to interrupt it).`, { tone: 'error' });
          return;
        }
        await command.run((m[2] ?? '').trim(), host);
        return;
      }
      if (!PASS_THROUGH_SLASH.includes(word) && !existsSync(`/${m[1]}`)) {
        host.print(
          `/${m[1]} is not a command (/help lists them); nothing was sent to the model. To send the line as it is, begin it with a space.`,
          { tone: 'error' },
        );
        return;
      }
    }
    await send(line.trim());
  }

  if (flags.resume || flags.continue) replay(session, { continuing: true });
  // Background processes (bg_start) starting or ending, between turns too.
  const stopJobs = rt.backgroundJobs.subscribe(() => refreshStatus());
  refreshStatus();
  const code = await exited;
  stopJobs();
  await leaveTui(screen, turns, rt, fresh);
  return code;
}

/** The model and profile a session runs (after /model or /profile too); none configured: said so. */
function modelInfo(
  rt: Runtime,
  profile: string | undefined,
): { model: string; profile: string; contextWindow?: number } {
  for (const name of [profile, rt.models.active]) {
    if (!name) continue;
    try {
      return rt.models.provider(name).info;
    } catch {
      // A profile that is gone, or no model at all: try the next.
    }
  }
  return { model: 'no model (rules only)', profile: rt.models.active };
}
