/**
 * User commands as slash commands: running one sends its expanded template as a prompt
 * (`host.submit`). Loading, naming rules and expansion live in `runtime/user-commands.ts`,
 * shared with ACP.
 */
import { expandUserCommand, loadUserCommands, type UserCommand } from '../../../runtime/user-commands.js';
import type { TuiCommand, TuiHost } from '../host.js';

const USER = new WeakSet<TuiCommand>();

/** Whether `c` came from a user's `.tea/commands` file. */
export function isUserCommand(c: TuiCommand): boolean {
  return USER.has(c);
}

/** One user command as a slash command. */
export function userCommand(c: UserCommand): TuiCommand {
  const command: TuiCommand = {
    name: c.name,
    description: c.description,
    ...(c.argumentHint ? { argumentHint: c.argumentHint } : {}),
    run(arg, host) {
      host.submit(expandUserCommand(c.body, arg));
    },
  };
  USER.add(command);
  return command;
}

/** The workspace's user commands (names in `reserved` hidden); each skipped file is printed as a warning. */
export async function userCommands(host: TuiHost, reserved: readonly string[]): Promise<TuiCommand[]> {
  const warn = (m: string): void => host.print(`warning: ${m}`, { tone: 'error' });
  const { cwd, config } = host.runtime;
  return (await loadUserCommands({ cwd, home: config.home, reserved, warn })).map(userCommand);
}
