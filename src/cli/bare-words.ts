/**
 * What `tea <words>` without `-p` means. Words are a prompt only as the instruction
 * for text piped on stdin (`git diff | tea review this`); in a terminal, or with
 * nothing piped, they are taken for a command, so a typo (`tea sesions list`) or a
 * stray word never runs an agent turn. A first word close to a command's name is
 * a typo even with piped text. `tea -p …` is always a prompt.
 */
import { fstatSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError, UsageError } from './exit.js';
import { closest, commandPath } from './usage.js';

/** True when stdin is a pipe, a socket or a file (not a terminal, not /dev/null). */
export function stdinIsPiped(): boolean {
  if (process.stdin.isTTY) return false;
  try {
    const s = fstatSync(0);
    return s.isFIFO() || s.isFile() || s.isSocket();
  } catch {
    return false;
  }
}

/** Edit distance where swapping two neighbouring letters counts as one edit (`memroy` → `memory`). */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The command `word` is most likely a typo of, if any: for names of 3 letters or fewer
 * only two letters swapped (`dp` is not `db`, `map` is not `mcp`); up to 5 letters one
 * edit; longer ones two edits, or the word is the name's first 4+ letters (`sess`).
 */
export function nearCommand(word: string, names: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  if (!/^[a-z][a-z-]*$/.test(w)) return undefined;
  let best: { name: string; d: number } | undefined;
  for (const name of names) {
    if (name === w) return name;
    const d = editDistance(w, name);
    const near =
      name.length <= 3
        ? d === 1 && w.length === name.length && [...w].sort().join('') === [...name].sort().join('')
        : name.length <= 5
          ? d <= 1
          : d <= 2 || (w.length >= 4 && name.startsWith(w));
    if (near && (best === undefined || d < best.d)) best = { name, d };
  }
  return best?.name;
}

const quoted = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/** The usage error for words that are not a command (and may not run as a prompt: nothing is piped). */
export function notACommand(words: readonly string[]): UsageError {
  const first = words[0] ?? '';
  const whole = words.join(' ');
  const what = words.length === 1 ? 'it' : JSON.stringify(whole);
  const how =
    whole.length <= 60
      ? `to run ${what} as a prompt, put -p before it: tea -p ${quoted(whole)}`
      : 'to run these words as a prompt, put -p before them (tea -p "…")';
  return new UsageError(`unknown command ${JSON.stringify(first)}; ${how}`);
}

/**
 * Checks words given without `-p` before anything runs: a near miss of a command is
 * a typo; words with nothing piped on stdin are not a prompt either.
 */
export function checkBareWords(words: readonly string[], commands: readonly string[], piped: boolean): void {
  const first = words[0] ?? '';
  const near = nearCommand(first, commands);
  if (near !== undefined) throw new UsageError(typo(first, near));
  if (!piped) throw notACommand(words);
}

/** `unknown command "sesions"; did you mean "sessions"?` */
export function typo(word: string, near: string): string {
  return `unknown command ${JSON.stringify(word)}; did you mean ${JSON.stringify(near)}?`;
}

/** `tea help [command...]`: the help of the command named, like `tea … --help`. */
export function showHelp(program: Command, names: readonly string[]): void {
  let command = program;
  for (const name of names) {
    const known = command.commands.filter((c) => c.name() !== 'help');
    const sub = known.find((c) => c.name() === name || c.aliases().includes(name));
    if (!sub) {
      const names = known.map((c) => c.name());
      // Below the top level no prompt competes: any close name is offered.
      const near = command === program ? nearCommand(name, names) : closest(name, names, 1)[0];
      const what = near === undefined ? `unknown command ${JSON.stringify(name)}` : typo(name, near);
      throw new CliError(`${what} (see ${commandPath(command)} --help)`);
    }
    command = sub;
  }
  command.outputHelp();
}

/**
 * `tea sessions lst`: commander runs the group's default (`list`) with `lst` as an extra
 * word and calls it "too many arguments"; it is an unknown command of the group.
 */
export function subcommandTypo(
  e: unknown,
  command: Command,
): { error: UsageError; command: Command } | undefined {
  const group = command.parent;
  const word = command.args[0];
  const code = e && typeof e === 'object' && 'code' in e ? e.code : undefined;
  if (code !== 'commander.excessArguments' || !group?.parent || word === undefined) return undefined;
  if (group.args[0] === command.name()) return undefined; // named: `tea sessions list extra`
  const names = group.commands.map((c) => c.name());
  const near = closest(word, names, 1)[0];
  const message =
    near === undefined
      ? `unknown command ${JSON.stringify(word)} (commands: ${names.join(', ')})`
      : typo(word, near);
  return { error: new UsageError(message), command: group };
}
