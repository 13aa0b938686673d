/**
 * The HTTP edge shared by the provider adapters: one POST, error mapping to
 * `LlmError`, and reading a server-sent-event body. No retries here.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { LlmError } from './errors.js';

/** Who is calling and what must never appear in an error message. */
export interface CallContext {
  profile: string;
  signal: AbortSignal | undefined;
  /** Values (API keys) to mask in any error message. */
  secrets: string[];
}

const MAX_ERROR_TEXT = 500;

/** Replaces every secret in `text` with `***`. */
export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('***');
  }
  return out;
}

/** The error to throw for an aborted signal: its own `LlmError` reason, a timeout, or `aborted`. */
export function abortError(ctx: CallContext): LlmError {
  const reason: unknown = ctx.signal?.reason;
  if (reason instanceof LlmError) return reason;
  if (reason instanceof Error && reason.name === 'TimeoutError') {
    return new LlmError('timeout', `${ctx.profile}: request timed out`, {
      profile: ctx.profile,
      cause: reason,
    });
  }
  return new LlmError('aborted', `${ctx.profile}: request cancelled`, {
    profile: ctx.profile,
    cause: reason,
  });
}

function describeNetworkError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause: unknown = err.cause;
  if (cause instanceof Error) {
    const code = (cause as Error & { code?: unknown }).code;
    return `${err.message} (${typeof code === 'string' ? `${code}: ` : ''}${cause.message})`;
  }
  return err.message;
}

/** Maps anything thrown by fetch or a body read to an `LlmError`. */
export function transportError(err: unknown, ctx: CallContext, stage: string): LlmError {
  if (err instanceof LlmError) return err;
  if (ctx.signal?.aborted) return abortError(ctx);
  const message = redact(describeNetworkError(err), ctx.secrets);
  return new LlmError('network', `${ctx.profile}: network error ${stage}: ${message}`, {
    profile: ctx.profile,
    cause: err,
  });
}

/**
 * Milliseconds the server asked us to wait: `retry-after-ms`, else `retry-after`
 * as seconds or as an HTTP date. Undefined when absent or unreadable.
 */
export function parseRetryAfter(headers: Headers, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '') {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const raw = headers.get('retry-after')?.trim();
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.round(Number(raw) * 1000);
  const date = Date.parse(raw);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

function truncate(text: string): string {
  return text.length > MAX_ERROR_TEXT ? `${text.slice(0, MAX_ERROR_TEXT)}…` : text;
}

/** The human message inside an error body, whatever shape the server uses. */
export function errorMessageOf(body: string): string {
  const text = body.trim();
  if (text === '') return '(empty response body)';
  try {
    const json: unknown = JSON.parse(text);
    if (json && typeof json === 'object') {
      const obj = json as Record<string, unknown>;
      const error = obj.error;
      if (typeof error === 'string') return truncate(error);
      if (error && typeof error === 'object') {
        const message = (error as Record<string, unknown>).message;
        if (typeof message === 'string') return truncate(message);
      }
      for (const key of ['message', 'detail'] as const) {
        const value = obj[key];
        if (typeof value === 'string') return truncate(value);
      }
    }
  } catch {
    // not JSON: use the text itself
  }
  return truncate(text.replace(/\s+/g, ' '));
}

/** Builds the `LlmError` for a non-2xx response (reads the body). */
export async function httpError(res: Response, ctx: CallContext): Promise<LlmError> {
  let body = '';
  try {
    body = await res.text();
  } catch {
    // the body is best effort; the status says enough
  }
  const status = res.status;
  const kind = status === 401 || status === 403 ? 'auth' : 'http';
  const hint = kind === 'auth' ? ' (check the API key for this profile)' : '';
  const message = redact(
    `${ctx.profile}: HTTP ${status}${res.statusText ? ` ${res.statusText}` : ''}: ${errorMessageOf(body)}${hint}`,
    ctx.secrets,
  );
  const retryAfterMs = parseRetryAfter(res.headers);
  return new LlmError(kind, message, {
    status,
    profile: ctx.profile,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
  });
}

/** POSTs a JSON body; resolves with a 2xx response or throws an `LlmError`. */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  ctx: CallContext,
): Promise<Response> {
  if (ctx.signal?.aborted) throw abortError(ctx);
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'text/event-stream, application/json',
        ...headers,
      },
      body: JSON.stringify(body),
      ...(ctx.signal ? { signal: ctx.signal } : {}),
    });
  } catch (err) {
    throw transportError(err, ctx, `calling ${url}`);
  }
  if (!res.ok) throw await httpError(res, ctx);
  if (!res.body)
    throw new LlmError('invalid-response', `${ctx.profile}: response has no body`, { profile: ctx.profile });
  return res;
}

/** Reads the whole body as text, mapping failures to `LlmError`. */
export async function readText(res: Response, ctx: CallContext): Promise<string> {
  try {
    return await res.text();
  } catch (err) {
    throw transportError(err, ctx, 'reading the response');
  }
}

/**
 * Yields the server-sent events of a response body as they arrive. Ends when the
 * body ends cleanly; throws `LlmError` on a broken connection or an abort. Stopping
 * the iteration early cancels the body, freeing the connection.
 */
export async function* readSse(res: Response, ctx: CallContext): AsyncGenerator<EventSourceMessage> {
  const body = res.body;
  if (!body)
    throw new LlmError('invalid-response', `${ctx.profile}: response has no body`, { profile: ctx.profile });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => queue.push(event) });
  const onAbort = (): void => {
    reader.cancel().catch(() => {});
  };
  ctx.signal?.addEventListener('abort', onAbort, { once: true });
  let finished = false;
  try {
    while (true) {
      if (ctx.signal?.aborted) throw abortError(ctx);
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (err) {
        throw transportError(err, ctx, 'while streaming');
      }
      if (ctx.signal?.aborted) throw abortError(ctx);
      if (chunk.done) {
        parser.feed(`${decoder.decode()}\n\n`);
        finished = true;
      } else {
        parser.feed(decoder.decode(chunk.value, { stream: true }));
      }
      while (queue.length > 0) yield queue.shift()!;
      if (finished) return;
    }
  } finally {
    ctx.signal?.removeEventListener('abort', onAbort);
    if (!finished) reader.cancel().catch(() => {});
  }
}

/** Parses one JSON payload from the wire; anything else is an `invalid-response`. */
export function parseWireJson(text: string, profile: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const preview = text.length > 200 ? `${text.slice(0, 200)}…` : text;
    throw new LlmError('invalid-response', `${profile}: the server sent data that is not JSON: ${preview}`, {
      profile,
    });
  }
}

/** Runs a request-body builder; a failure becomes an LlmError naming the profile. */
export function buildRequestBody<T>(profile: string, build: () => T): T {
  try {
    return build();
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new LlmError('invalid-response', `${profile}: cannot build the request: ${reason}`, {
      profile,
      cause: err,
    });
  }
}
