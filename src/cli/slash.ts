/**
 * The plain prompt's own commands (`tea --plain`): a line starting with `/` and a word
 * is answered here, never sent to the model as it is: `/help`, `/exit`, the journal's
 * `/undo`, `/redo` and `/diff`, and the user's commands (`.tea/commands/*.md`, expanded
 * into a prompt). Any other `/word` is said not to be a command. A path (`/etc/hosts …`,
 * an existing `/tmp`) is a prompt, and so is a line that starts with a space.
 */
import { existsSync } from 'node:fs';
import { RULE_COMMANDS, SHELL_RULE } from '../runtime/rules.js';
import { expandUserCommand, type UserCommand } from '../runtime/user-commands.js';

interface Row {
  name: string;
  argumentHint?: string;
  description: string;
}

/** The plain prompt's commands, in /help's order. */
const COMMANDS: readonly Row[] = [
  { name: 'help', description: 'Show this' },
  { name: 'undo', description: "Revert the files the last turn changed (bash's edits too)" },
  { name: 'redo', description: 'Re-apply the changes the last /undo reverted' },
  { name: 'diff', argumentHint: '[round]', description: 'Show what the last turn changed (or round N)' },
  { name: 'exit', description: 'Quit (also /quit, or Ctrl-D)' },
];

/** Names a user command may not take here (it is hidden, with a warning). */
export const PLAIN_COMMAND_NAMES: readonly string[] = [...COMMANDS.map((c) => c.name), 'quit'];

/** Rows of `/name <hint>  description`, the descriptions in one column after the longest. */
function table(rows: readonly Row[], width: number): string {
  return rows.map((r) => `  ${label(r).padEnd(width)}${r.description}\n`).join('');
}

const label = (r: Row): string =>
  r.name === '!' ? `!${r.argumentHint ?? ''}` : `/${r.name}${r.argumentHint ? ` ${r.argumentHint}` : ''}`;

/** `/help`: the commands, the user's commands, the rules. */
export function slashHelp(user: readonly UserCommand[] = []): string {
  const rules = [SHELL_RULE, ...RULE_COMMANDS];
  const width = Math.max(...[...COMMANDS, ...user, ...rules].map((r) => label(r).length)) + 2;
  const mine =
    user.length > 0 ? `Your commands (.tea/commands), sent as prompts:\n${table(user, width)}` : '';
  return (
    `Commands:\n${table(COMMANDS, width)}${mine}` +
    `Rules, answered without a model call (stored in the session, so the model sees them next turn):\n${table(rules, width)}` +
    'Anything else is sent to the model. Ctrl-C cancels a running turn, or quits at the prompt. ' +
    'To send a line that starts with "/" or "!" to the model, begin it with a space.\n'
  );
}

export type SlashResult =
  | { kind: 'exit' }
  | { kind: 'help'; text: string }
  | { kind: 'journal'; action: 'undo' | 'redo' | 'diff'; arg: string }
  /** A user command: its template, expanded with the arguments, is the prompt. */
  | { kind: 'prompt'; text: string }
  | { kind: 'unknown'; text: string };

/** What a typed line is, when it is one of the prompt's commands (or looks like one). */
export function slashCommand(line: string, user: readonly UserCommand[] = []): SlashResult | undefined {
  const typed = /^\/([^\s/]+)(?:\s+([\s\S]*))?$/.exec(line.trimEnd());
  if (!typed) return undefined;
  const word = typed[1]!.toLowerCase();
  const arg = (typed[2] ?? '').trim();
  if (word === 'exit' || word === 'quit') return { kind: 'exit' };
  if (word === 'help') return { kind: 'help', text: slashHelp(user) };
  if (word === 'undo' || word === 'redo' || word === 'diff') return { kind: 'journal', action: word, arg };
  const mine = user.find((c) => c.name === word);
  if (mine) return { kind: 'prompt', text: expandUserCommand(mine.body, typed[2] ?? '') };
  if (!/^[A-Za-z][\w-]*$/.test(typed[1]!)) return undefined;
  // A rule (`/read`, `/ls`, …): the session answers it without a model call.
  if (RULE_COMMANDS.some((c) => c.name === typed[1])) return undefined;
  if (existsSync(`/${typed[1]}`)) return undefined;
  return {
    kind: 'unknown',
    text: `tea: /${typed[1]} is not a command (/help lists them); nothing was sent to the model. To send the line as it is, begin it with a space.\n`,
  };
}
