/**
 * Errors the runtime reports to whoever built it. A face turns them into its own
 * shape: the CLI into an exit code, the server into an HTTP status, ACP into a
 * JSON-RPC error.
 */

/**
 * `usage`: an option names something that does not exist or cannot be read;
 * `no_model`: no model is configured; `not_found`: no session or profile by that name.
 */
export type RuntimeErrorCode = 'usage' | 'no_model' | 'not_found';

export class RuntimeError extends Error {
  constructor(
    readonly code: RuntimeErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'RuntimeError';
  }
}
