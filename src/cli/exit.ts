/** Exit codes of the `tea` command (documented in the README). */
export const EXIT = {
  OK: 0,
  /** The model or a tool failed and the turn could not finish; or a rule's call failed (`!cmd` exited non-zero). */
  ERROR: 1,
  /** Bad command-line usage, invalid config, unknown session. */
  USAGE: 2,
  /** No model is configured. */
  NO_MODEL: 3,
  /** The turn stopped before finishing: iteration cap or a repeated-call loop. */
  INCOMPLETE: 4,
  /** The turn finished, but tool calls were refused (`tea -p` cannot ask; stderr names the `--allow` or `--work-mode` that would run them). */
  REFUSED: 5,
  /** Interrupted by the user (Ctrl-C). */
  INTERRUPTED: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the CLI reports as one clear line (no stack) with a specific exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.USAGE,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/**
 * A mistake on the command line (a flag, a value, a combination): reported like
 * commander's own errors, one line ending in "see tea … --help", exit code 2.
 */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.USAGE);
    this.name = 'UsageError';
  }
}
