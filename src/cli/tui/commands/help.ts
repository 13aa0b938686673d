/** `/help`: the commands this screen offers (built-in and the user's) and the keys. */
import type { TuiCommand, TuiHost } from '../host.js';
import { isUserCommand } from './user.js';

/** The keys of the terminal UI, as /help lists them. */
export const KEYS: ReadonlyArray<[string, string]> = [
  ['Enter', 'send; while a turn runs, steer it with the message'],
  ['Alt+Enter', 'while a turn runs, queue the message as a follow-up'],
  ['Shift+Enter, Ctrl-J', 'new line'],
  ['Esc', 'interrupt the running turn (at an approval too: the call is not run); close a picker'],
  ['↑ / ↓', 'earlier / later input'],
  ['Tab', 'complete a command, argument or @file'],
  ['Shift+Tab', 'next work mode (design, develop, test, review, docs, devops)'],
  ['Ctrl-O / Ctrl-T', 'open or close tool outputs / thinking'],
  ['@path', 'mention a file'],
  ['!command', 'run a shell command without the model (the permission mode applies)'],
  ['/read /ls /grep /time', 'answered by a rule, without the model'],
  ['Ctrl-C', 'clear the input; twice: quit (Ctrl-D on an empty input too)'],
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
      // Plain aligned columns: a Markdown table draws a rule between rows (twice the height).
      const width = Math.max(...[...shown.map(usage), ...KEYS.map(([k]) => k)].map((s) => s.length));
      const row = (left: string, right: string): string => `  ${left.padEnd(width)}  ${right}`;
      const lines = ['Commands', ...builtin.map((c) => row(usage(c), c.description))];
      if (user.length > 0)
        lines.push(
          '',
          'Your commands (.tea/commands, ~/.tea/commands)',
          ...user.map((c) => row(usage(c), c.description)),
        );
      lines.push('', 'Keys', ...KEYS.map(([k, v]) => row(k, v)));
      host.print(lines.join('\n'));
    },
  };
}
