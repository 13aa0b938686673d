/** What the permission check learns from one bash command line. */

/**
 * A word after quote removal: `static` is known exactly; `pattern` is known but
 * the shell may expand it (glob, brace, `~`); `dynamic` depends on expansions
 * (`$X`, `$(…)`, `$'…'`), and `value` is then the word as written.
 */
export type WordKind = 'static' | 'pattern' | 'dynamic';

export interface ShellWord {
  value: string;
  kind: WordKind;
  /** The word as written. */
  source: string;
}

/** One simple command, wherever it stands (list, pipeline, `$(…)`, `bash -c` payload, …). */
export interface ShellCommand {
  /** The program, resolved: `/bin/rm`, `\rm`, `"rm"`, `command rm`, `env rm` are all `rm`. */
  name: string;
  /** Name and arguments, quotes removed, one space apart: what allow rules match. */
  text: string;
  /** More forms that deny and ask rules match too (the path as written, commands a runner starts). */
  also: string[];
  /** The command as written (for messages). */
  source: string;
  /** Known to change files (rm, mv, sed -i, git commit, …): refused in read-only mode. */
  changesFiles: boolean;
  /** For `cd`: its target when it is a plain word, or null. */
  cd?: { target: string | null };
  /** Started by another program (sudo, xargs, find -exec) rather than by the shell itself. */
  runBy?: string;
}

export interface ShellRedirect {
  /** The operator: `>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `<`, `>&` (to a file), … */
  op: string;
  /** The file, when it is a plain word; null when it depends on expansions or a pattern. */
  target: string | null;
  write: boolean;
  source: string;
}

/** Something the check cannot resolve statically: such a line is never allowed by rules alone. */
export interface ShellProblem {
  source: string;
  why: string;
}

export interface ShellAnalysis {
  commands: ShellCommand[];
  /** Redirections to or from files (fd duplications like `2>&1` and here-docs are left out). */
  redirects: ShellRedirect[];
  problems: ShellProblem[];
  /** The line runs `cd` (or `pushd`), so relative paths after it are relative to somewhere else. */
  changesDir: boolean;
}
