/**
 * The contract between the terminal UI's screen (app.ts and its components) and its
 * slash commands (commands/). A command gets a `TuiHost` and never touches the screen's
 * components itself; the screen runs a command by name and never knows what it does.
 */
import type { Session } from '../../agent/index.js';
import type { Runtime } from '../../runtime/runtime.js';

/** One choice of a picker or of an argument completion. */
export interface PickItem<T = string> {
  value: T;
  /** The first column, e.g. a session's title. */
  label: string;
  /** The dimmed second column, e.g. "3 h ago · 12 messages". */
  description?: string;
  /** Text a picker's search finds the item by, not shown (e.g. a session's first message). */
  keywords?: string;
}

export interface PickOptions<T> {
  title: string;
  items: PickItem<T>[];
  /** Typing filters the items (fuzzy on label and description). */
  search?: boolean;
  /** The item selected when the picker opens (by value). */
  selected?: T;
}

/** How a printed block looks: `info` plain, `dim` for asides, `error` in red, `success` in green. */
export type PrintTone = 'info' | 'dim' | 'error' | 'success';

export interface TuiHost {
  readonly runtime: Runtime;
  /** The session the screen shows now (it changes with /new, /resume, /fork). */
  session(): Session;
  /** A turn of the current session is running. */
  busy(): boolean;
  /**
   * Shows `session` instead of the current one: its stored transcript is drawn again
   * (the last turns) and the status line follows it. The old session is settled first;
   * when the screen made it (`created`, at start or by /new, /fork) and it never got a
   * message, it is deleted. `created`: `session` was made for this switch.
   */
  switchTo(session: Session, opts?: { created?: boolean }): Promise<void>;
  /** A block of text (Markdown when `markdown`) added to the transcript; ANSI is kept. */
  print(text: string, opts?: { tone?: PrintTone; markdown?: boolean }): void;
  /**
   * A dimmed line for work that takes a while (`Connecting to 2 MCP servers…`), shown
   * at once; the returned function takes it away (call it before printing the result).
   */
  progress(text: string): () => void;
  /** Opens a list over the input box; resolves the chosen value, or undefined on Esc. */
  pick<T>(opts: PickOptions<T>): Promise<T | undefined>;
  /** Asks a one-line question in the input box; undefined on Esc. */
  ask(question: string, opts?: { initial?: string }): Promise<string | undefined>;
  /** Sends `text` to the session as if typed (a prompt, a rule like `!ls`, or expanded user command). */
  submit(text: string): void;
  /** Empties the screen (the transcript stays in the store). */
  clear(): void;
  /** Redraws the status line after a setting changed (model, modes, cost). */
  refreshStatus(): void;
  /** Leaves the TUI (after settling the session), like Ctrl-C twice. */
  exit(): void;
}

/** A slash command of the TUI: built in, or a user's `.tea/commands/*.md`. */
export interface TuiCommand {
  /** Without the slash, lower case: `sessions`. */
  name: string;
  aliases?: string[];
  /** One line for /help and the completion list. */
  description: string;
  /** Shown after the name while completing, e.g. `<path>` or `[name]`. */
  argumentHint?: string;
  /** Completions for the argument typed so far (e.g. profile names for /model). */
  complete?(prefix: string, host: TuiHost): PickItem[] | Promise<PickItem[]>;
  /** Offered only when this says so (e.g. /skills when skills are installed). */
  available?(host: TuiHost): boolean | Promise<boolean>;
  /**
   * The argument may be a unique prefix of one of `complete`'s values (the command
   * resolves it, like /resume with a session id): Enter runs it without completing first.
   */
  takesPrefix?: boolean;
  /** May it run while a turn runs? Default false: the screen says to wait or press Esc. */
  whileBusy?: boolean;
  run(arg: string, host: TuiHost): Promise<void> | void;
}
