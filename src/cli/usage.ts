/**
 * Usage errors, one style for all: `tea: <what is wrong> (see tea <command> --help)`
 * on one line, exit code 2, for commander's own parse errors and for the checks
 * below (directories that do not exist, unknown tool names and categories).
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { distance } from 'fastest-levenshtein';
import { UsageError } from './exit.js';

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
    .replace(/\s*\n\s*\(Did you mean/, ' (did you mean')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

/** The words of a snake_case or kebab-case name, sorted: `file_read` and `read-file` are alike. */
const partsOf = (name: string): string =>
  name
    .toLowerCase()
    .split(/[_\-\s]+/)
    .sort()
    .join(' ');

/**
 * The candidates closest to `word`, best first: by edit distance, the same words in
 * another order counting as a near match. `near` keeps only those within a third
 * of the word's length (at least 2 edits).
 */
export function closest(word: string, candidates: readonly string[], n = 3, near = true): string[] {
  const w = word.toLowerCase();
  const limit = Math.max(2, Math.floor(w.length / 3));
  return candidates
    .map((c) => {
      const lc = c.toLowerCase();
      const reordered = w.includes('_') && partsOf(w) === partsOf(lc);
      return { c, d: reordered ? 0 : distance(w, lc) - (lc.startsWith(w) ? 1 : 0) };
    })
    .filter((x) => !near || x.d <= limit)
    .sort((a, b) => a.d - b.d || a.c.localeCompare(b.c))
    .slice(0, n)
    .map((x) => x.c);
}

/** `; did you mean x?`, or the closest ones when none is near. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const near = closest(word, candidates);
  if (near.length > 0) return `; did you mean ${near.join(' or ')}?`;
  const far = closest(word, candidates, 3, false);
  return far.length > 0 ? `; the closest are ${far.join(', ')}` : '';
}

/** The directory a flag names, resolved; a usage error when it is not an existing directory. */
export function existingDir(flag: string, dir: string): string {
  const resolved = path.resolve(dir);
  let isDir: boolean;
  try {
    isDir = statSync(resolved).isDirectory();
  } catch {
    throw new UsageError(`${flag} ${dir}: no such directory`);
  }
  if (!isDir) throw new UsageError(`${flag} ${dir}: not a directory`);
  return resolved;
}

/** A value that must be one of `known` (a category, a mode), with the closest suggested. */
export function oneOf(flag: string, value: string, known: readonly string[], what: string): string {
  if (known.includes(value)) return value;
  throw new UsageError(
    `${flag} ${value}: unknown ${what}${didYouMean(value, known)} (${what === 'category' ? 'categories' : `${what}s`}: ${known.join(', ')})`,
  );
}
