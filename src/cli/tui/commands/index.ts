/**
 * The TUI's built-in slash commands. A minimal set (/help, /quit) for the screen to
 * run; the full set is built on the same `TuiCommand` contract (host.ts).
 */

import type { TuiCommand } from '../host.js';
import { BANNER_HINT } from '../screen.js';

const help: TuiCommand = {
  name: 'help',
  description: 'list the commands and keys',
  whileBusy: true,
  run(_arg, host) {
    const lines = builtinCommands().map(
      (c) => `  /${c.name}${c.argumentHint ? ` ${c.argumentHint}` : ''}  ${c.description}`,
    );
    host.print(
      `Commands:\n${lines.join('\n')}\nKeys: ${BANNER_HINT}\nWhile a turn runs: Enter queues a steering message, Alt+Enter a follow-up. Ctrl-O opens tool outputs, Ctrl-T thinking.\nA line starting with a space is sent as it is.`,
    );
  },
};

const quit: TuiCommand = {
  name: 'quit',
  aliases: ['exit'],
  description: 'leave tea (Ctrl-C twice, or Ctrl-D on an empty line, too)',
  whileBusy: true,
  run(_arg, host) {
    host.exit();
  },
};

export function builtinCommands(): TuiCommand[] {
  return [help, quit];
}
