/**
 * The bash tool's result (exec.ts): one status line (`exit code: 0`, `killed by signal
 * SIGTERM`, `killed: timeout after 2 min`), then the command's output, `(no output)`
 * when it printed nothing. The model reads it whole; a face showing the command's own
 * output (the answer of a `!command` rule) reads it apart here.
 */

/** The output part of a result when the command printed nothing. */
export const NO_OUTPUT = '(no output)';

/** The status line of a command that exited by itself. */
export const exitCodeLine = (code: number): string => `exit code: ${code}`;

export interface ExitedCommand {
  /** The command's exit code. */
  exitCode: number;
  /** What it printed ('' for nothing), with the notes bash adds after it. */
  output: string;
}

/** A bash result of a command that exited by itself; undefined for anything else (killed, refused, an error). */
export function exitedCommand(result: string): ExitedCommand | undefined {
  const newline = result.indexOf('\n');
  const first = newline < 0 ? result : result.slice(0, newline);
  const m = /^exit code: (-?\d+)$/.exec(first);
  if (!m) return undefined;
  const rest = newline < 0 ? '' : result.slice(newline + 1);
  const output =
    rest === NO_OUTPUT ? '' : rest.startsWith(`${NO_OUTPUT}\n`) ? rest.slice(NO_OUTPUT.length + 1) : rest;
  return { exitCode: Number(m[1]), output };
}
