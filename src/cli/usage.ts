/**
 * Usage errors, one style for all: `tea: <what is wrong> (see tea <command> --help)`
 * on one line, exit code 2, for commander's own parse errors and for the checks
 * below (directories that do not exist, unknown tool names and categories).
 */
import { didYouMean } from '../config/suggest.js';
import { UsageError } from './exit.js';

export { closest, didYouMean } from '../config/suggest.js';

/** What `usageLine` needs of a commander command (structural, so this file stays light). */
export interface NamedCommand {
  name(): string;
  parent: NamedCommand | null;
}

/** `tea memory add` for the `add` subcommand of `memory`. */
export function commandPath(command: NamedCommand | undefined): string {
  const names: string[] = [];
  for (let c = command ?? null; c !== null; c = c.parent) names.unshift(c.name());
  names[0] = 'tea';
  return names.join(' ');
}

/** The one line a usage error prints (without the trailing newline). */
export function usageLine(message: string, command: NamedCommand | undefined): string {
  const text = message.replace(/\.$/, '');
  return `tea: ${text} (see ${commandPath(command)} --help)`;
}

/** commander's message ("error: option '--x <v>' argument 'y' is invalid. expected …") in our words. */
export function commanderMessage(message: string): string {
  return message
    .replace(/^error: /, '')
    .replace(/ is invalid\. /, ' is invalid: ')
    .replace(/ is invalid for argument '([^']+)'\. /, ' is invalid for <$1>: ')
    .replace(/\s*\n\s*\(Did you mean/, ' (did you mean')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

export { existingDir } from '../runtime/directories.js';

/** A value that must be one of `known` (a category, a mode), with the closest suggested. */
export function oneOf(flag: string, value: string, known: readonly string[], what: string): string {
  if (known.includes(value)) return value;
  throw new UsageError(
    `${flag} ${value}: unknown ${what}${didYouMean(value, known)} (${what === 'category' ? 'categories' : `${what}s`}: ${known.join(', ')})`,
  );
}
