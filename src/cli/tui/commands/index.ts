/**
 * The terminal UI's slash commands. The screen takes `loadCommands(host)` (the built-in
 * commands, then the user's `.tea/commands/*.md`), or `builtinCommands()` alone, and runs
 * them by name through `TuiHost`; none of them touches the screen's components.
 * `/undo`, `/redo`, `/diff` and `/mode` are added by their own parts.
 */
import type { TuiCommand, TuiHost } from '../host.js';
import { configCommand, costCommand } from './account.js';
import { compactCommand } from './compact.js';
import { exportCommand } from './export.js';
import { helpCommand } from './help.js';
import { memoryCommand, skillsCommand, toolsCommand } from './info.js';
import { mcpCommand } from './mcp.js';
import { modelCommand, profileCommand } from './models.js';
import { clearCommand, quitCommand } from './screen.js';
import { forkCommand, newCommand, resumeCommand, sessionsCommand } from './sessions.js';
import { userCommands } from './user.js';

export { isUserCommand, userCommand } from './user.js';

/**
 * The built-in commands. `/help` lists the array returned here as it is when `/help`
 * runs: commands pushed into it later (the user's, other parts') are listed too.
 */
export function builtinCommands(): TuiCommand[] {
  const list: TuiCommand[] = [];
  list.push(
    helpCommand(() => list),
    newCommand,
    sessionsCommand,
    resumeCommand,
    forkCommand,
    modelCommand,
    profileCommand,
    compactCommand,
    memoryCommand,
    toolsCommand,
    mcpCommand,
    skillsCommand,
    exportCommand,
    costCommand,
    configCommand,
    clearCommand,
    quitCommand,
  );
  return list;
}

/** Every name and alias of `commands` (what a user command may not take). */
export function commandNames(commands: readonly TuiCommand[]): string[] {
  return commands.flatMap((c) => [c.name, ...(c.aliases ?? [])]);
}

/**
 * The built-in commands, then the workspace's user commands (project first, then
 * `TEA_HOME/commands`). A user command named like a built-in one is hidden, and each
 * skipped file is printed once as a warning naming the file and the fix.
 */
export async function loadCommands(host: TuiHost, extra: readonly TuiCommand[] = []): Promise<TuiCommand[]> {
  const list = builtinCommands();
  list.push(...extra);
  list.push(...(await userCommands(host, commandNames(list))));
  return list;
}

/** The command `name` (or alias) names, lower-cased; undefined when there is none. */
export function findCommand(commands: readonly TuiCommand[], name: string): TuiCommand | undefined {
  const n = name.toLowerCase();
  return commands.find((c) => c.name === n || c.aliases?.includes(n));
}
