/** `/help`: the commands this screen offers (built-in and the user's) and the keys. */
import type { TuiCommand, TuiHost } from '../host.js';
import { isUserCommand } from './user.js';

/** The keys of the terminal UI, as /help lists them. */
export const KEYS: ReadonlyArray<[string, string]> = [
  ['Enter', 'send; while a turn runs, steer it with the message'],
  ['Alt+Enter', 'while a turn runs, queue the message as a follow-up'],
  ['Shift+Enter', 'new line'],
  ['Esc', 'interrupt the running turn; close a picker'],
  ['↑ / ↓', 'earlier / later input'],
  ['Tab', 'complete a command, argument or @file'],
  ['@path', 'mention a file'],
  ['!command', 'run a shell command without the model'],
  ['Ctrl-C twice', 'quit'],
];

function usage(c: TuiCommand): string {
  const names = [c.name, ...(c.aliases ?? [])].map((n) => `/${n}`).join(', ');
  return c.argumentHint ? `${names} ${c.argumentHint}` : names;
}

/** `/help` over `commands` (read when it runs, so user commands added later are listed). */
export function helpCommand(commands: () => readonly TuiCommand[]): TuiCommand {
  return {
    name: 'help',
    description: 'List the commands and keys',
    whileBusy: true,
    async run(_arg, host: TuiHost) {
      const shown: TuiCommand[] = [];
      for (const c of commands()) if (!c.available || (await c.available(host))) shown.push(c);
      const builtin = shown.filter((c) => !isUserCommand(c));
      const user = shown.filter(isUserCommand);
      const row = (c: TuiCommand): string => `| \`${usage(c)}\` | ${c.description.replace(/\|/g, '\\|')} |`;
      const lines = ['**Commands**', '', '| command | what it does |', '| --- | --- |', ...builtin.map(row)];
      if (user.length > 0)
        lines.push(
          '',
          '**Your commands** (`.tea/commands`, `~/.tea/commands`)',
          '',
          '| command | what it does |',
          '| --- | --- |',
          ...user.map(row),
        );
      lines.push(
        '',
        '**Keys**',
        '',
        '| key | what it does |',
        '| --- | --- |',
        ...KEYS.map(([k, v]) => `| ${k} | ${v} |`),
      );
      host.print(lines.join('\n'), { markdown: true });
    },
  };
}
