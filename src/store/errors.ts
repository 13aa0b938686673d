/** What went wrong, so callers can branch without parsing messages. */
export type StoreErrorCode =
  | 'not-found'
  | 'ambiguous'
  | 'invalid'
  | 'conflict'
  | 'schema-too-new'
  | 'migration-failed'
  | 'open-failed'
  /** The daily backup could not be made (not for damage: that is `damaged`). */
  | 'backup-failed'
  | 'corrupt'
  /** The database file itself is damaged (SQLITE_CORRUPT, SQLITE_NOTADB): the message says how to recover. */
  | 'damaged';

/** Every failure the store reports on purpose is a StoreError with a specific message. */
export class StoreError extends Error {
  readonly code: StoreErrorCode;

  constructor(message: string, code: StoreErrorCode = 'invalid', options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'StoreError';
    this.code = code;
  }
}

/** The extended result code better-sqlite3 attaches to its errors (e.g. `SQLITE_CONSTRAINT_UNIQUE`). */
export function sqliteCode(err: unknown): string | undefined {
  if (err instanceof Error && 'code' in err && typeof err.code === 'string') return err.code;
  return undefined;
}
