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
  /** Set when the kind alone does not decide (a stream stopped at its cap is a timeout not worth retrying). */
  private readonly retry: boolean | undefined;

  constructor(
    kind: LlmErrorKind,
    message: string,
    opts: {
      status?: number;
      retryAfterMs?: number;
      profile?: string;
      cause?: unknown;
      retryable?: boolean;
    } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'LlmError';
    this.kind = kind;
    this.status = opts.status;
    this.retryAfterMs = opts.retryAfterMs;
    this.profile = opts.profile;
    this.retry = opts.retryable;
  }

  /** 429, 5xx, resets and timeouts are worth another try; 4xx and aborts are not. */
  get retryable(): boolean {
    if (this.retry !== undefined) return this.retry;
    if (this.kind === 'timeout' || this.kind === 'network') return true;
    if (this.kind === 'http' && this.status !== undefined) {
      return this.status === 408 || this.status === 409 || this.status === 429 || this.status >= 500;
    }
    return false;
  }
}
