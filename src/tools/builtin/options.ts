/** Limits for the built-in tools. Every one has a sensible default; tests shrink them. */
export interface BuiltinOptions {
  /** read_file: lines returned when no `limit` is given (default 2000). */
  readDefaultLimit?: number;
  /** read_file: characters after which one line is cut (default 2000). */
  readMaxLineChars?: number;
  /** read_file: output characters per call before it stops and points to the next offset (default 28 000). */
  readMaxChars?: number;
  /** list_dir: entries shown (default 500). */
  listMaxEntries?: number;
  /** glob: paths shown (default 200). */
  globMaxResults?: number;
  /**
   * bash: output characters held in memory (default 1 000 000). The runner cuts what the
   * model sees (tools.max_output_chars) and saves the full text; past this, only the head
   * and tail stay in memory and bash writes the whole output to that file itself.
   */
  bashMaxOutputChars?: number;
  /** bash: bytes of output saved to the tool-output file at most (default 100 MB). */
  bashMaxSavedBytes?: number;
  /** bash: how long after SIGTERM the process group gets SIGKILL (default 2 000 ms). */
  bashKillGraceMs?: number;
  /** bash: after the shell exits, how long to wait for background jobs to release its output (default 500 ms). */
  bashPipeDrainMs?: number;
}

export const DEFAULTS = {
  readDefaultLimit: 2000,
  readMaxLineChars: 2000,
  readMaxChars: 28_000,
  listMaxEntries: 500,
  globMaxResults: 200,
  bashMaxOutputChars: 1_000_000,
  bashMaxSavedBytes: 100 * 1024 * 1024,
  bashKillGraceMs: 2000,
  bashPipeDrainMs: 500,
} as const satisfies Required<BuiltinOptions>;

export function withDefaults(opts: BuiltinOptions = {}): Required<BuiltinOptions> {
  return { ...DEFAULTS, ...stripUndefined(opts) };
}

function stripUndefined(opts: BuiltinOptions): BuiltinOptions {
  return Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined));
}
