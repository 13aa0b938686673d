/**
 * The interactive prompt's own commands: a line starting with `/` and a word is
 * answered here, never sent to the model. Only `/help` and `/exit` exist for now;
 * any other `/word` is said not to be a command. A path (`/etc/hosts …`, an existing
 * `/tmp`) is a prompt, and so is a line that starts with a space.
 */
import { existsSync } from 'node:fs';
import { RULE_COMMANDS, SHELL_RULE } from '../runtime/rules.js';

const RULES_HELP = [SHELL_RULE, ...RULE_COMMANDS]
  .map(
    (c) => `  ${`${c.name === '!' ? '!' : `/${c.name} `}${c.argumentHint ?? ''}`.padEnd(22)}${c.description}`,
  )
  .join('\n');

export const SLASH_HELP =
  'Commands: /help shows this; /exit (or /quit, or Ctrl-D) quits. Anything else is sent to the model.\n' +
  `Rules, answered without a model call (stored in the session, so the model sees them next turn):\n${RULES_HELP}\n` +
  'Ctrl-C cancels a running turn, or quits at the prompt. To send a line that starts with "/" or "!" to the model, begin it with a space.\n';

export type SlashResult =
  | { kind: 'exit' }
  | { kind: 'help'; text: string }
  | { kind: 'unknown'; text: string };

/** What a typed line is, when it is one of the prompt's commands (or looks like one). */
export function slashCommand(line: string): SlashResult | undefined {
  const m = /^\/([A-Za-z][\w-]*)(?:\s|$)/.exec(line.trimEnd());
  if (!m) return undefined;
  const word = m[1]!.toLowerCase();
  if (word === 'exit' || word === 'quit') return { kind: 'exit' };
  if (word === 'help') return { kind: 'help', text: SLASH_HELP };
  // A rule (`/read`, `/ls`, …): the session answers it without a model call.
  if (RULE_COMMANDS.some((c) => c.name === m[1])) return undefined;
  if (existsSync(`/${m[1]}`)) return undefined;
  return {
    kind: 'unknown',
    text: `tea: /${m[1]} is not a command (commands: /help, /exit); nothing was sent to the model. To send the line as it is, begin it with a space.\n`,
  };
}
