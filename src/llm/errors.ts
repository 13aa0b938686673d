export type LlmErrorKind =
  | 'http'
  | 'auth'
  | 'timeout'
  | 'network'
  | 'aborted'
  | 'circuit-open'
  | 'invalid-response'
  | 'all-failed';

/** Every provider failure surfaces as an LlmError with a kind the retry layer can act on. */
export class LlmError extends Error {
  readonly kind: LlmErrorKind;
  readonly status: number | undefined;
  /** Milliseconds the server asked us to wait (from `retry-after`), if any. */
  readonly retryAfterMs: number | undefined;
  readonly profile: string | undefined;

  constructor(
    kind: LlmErrorKind,
    message: string,
    opts: { status?: number; retryAfterMs?: number; profile?: string; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'LlmError';
    this.kind = kind;
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
    this.profile = opts.profile;
  }

  /** 429, 5xx, resets and timeouts are worth another try; 4xx and aborts are not. */
  get retryable(): boolean {
    if (this.kind === 'timeout' || this.kind === 'network') return true;
    if (this.kind === 'http' && this.status !== undefined) {
      return this.status === 408 || this.status === 409 || this.status === 429 || this.status >= 500;
    }
    return false;
  }
}
