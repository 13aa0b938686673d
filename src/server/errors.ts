/**
 * Errors in OpenAI's shape: `{"error":{"message","type","param","code"}}`. Every
 * route throws `ApiError` (or lets the zod helpers do it) and `onError` renders it;
 * anything unexpected becomes a 500 `server_error` without a stack trace.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type * as z from 'zod';

export type ApiErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'server_error';

export interface ApiErrorBody {
  error: { message: string; type: ApiErrorType; param: string | null; code: string | null };
}

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly type: ApiErrorType,
    readonly param: string | null = null,
    readonly code: string | null = null,
    /** Extra response headers (e.g. `retry-after`). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): ApiErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

function defaultType(status: number): ApiErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** Builds an ApiError; `type` defaults from the status (400 → invalid_request_error, 401 → authentication_error, …). */
export function apiError(
  status: ContentfulStatusCode,
  message: string,
  opts: {
    type?: ApiErrorType;
    param?: string | null;
    code?: string | null;
    headers?: Record<string, string>;
  } = {},
): ApiError {
  return new ApiError(
    status,
    message,
    opts.type ?? defaultType(status),
    opts.param ?? null,
    opts.code ?? null,
    opts.headers ?? {},
  );
}

/** The JSON response for an ApiError. */
export function errorResponse(c: Context, err: ApiError): Response {
  for (const [name, value] of Object.entries(err.headers)) c.header(name, value);
  return c.json(err.toBody(), err.status);
}

/** Hono `onError`: ApiErrors as they are; anything else a 500 with a short message. */
export function onError(err: Error, c: Context): Response {
  if (err instanceof ApiError) return errorResponse(c, err);
  const status = (err as { status?: unknown }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return errorResponse(c, apiError(status as ContentfulStatusCode, err.message || 'bad request'));
  }
  process.stderr.write(`tea serve: unexpected error on ${c.req.method} ${c.req.path}: ${err.stack ?? err}\n`);
  return errorResponse(c, apiError(500, `internal error: ${err.message}`, { code: 'internal_error' }));
}

/** Hono `notFound`: an unknown route. */
export function notFound(c: Context): Response {
  return errorResponse(
    c,
    apiError(404, `no route for ${c.req.method} ${c.req.path}`, { code: 'route_not_found' }),
  );
}

/** The first zod issue as a param path (`messages.0.content`) and a readable message. */
export function zodProblem(error: z.ZodError, prefix = ''): { param: string | null; message: string } {
  const issue = error.issues[0];
  if (!issue) return { param: null, message: 'invalid request' };
  const param = issue.path.length > 0 ? issue.path.map(String).join('.') : null;
  const where = param ?? (prefix || 'body');
  return { param, message: `${where}: ${issue.message}` };
}
