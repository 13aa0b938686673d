/**
 * The HTTP edge shared by the provider adapters: one POST over `node:http` or
 * `node:https` (not fetch: undici's first-call start-up costs ~30 ms), error
 * mapping to `LlmError`, and reading a server-sent-event body. No retries here.
 */
import type { IncomingMessage } from 'node:http';
import { jsonBytes } from '../util/json-pieces.js';
import { LlmError } from './errors.js';
import {
  type HeaderLookup,
  NodeWireResponse,
  type Transport,
  transportFor,
  type WireResponse,
} from './wire-response.js';

export type { HeaderLookup, WireResponse } from './wire-response.js';

/** Who is calling and what must never appear in an error message. */
export interface CallContext {
  profile: string;
  signal: AbortSignal | undefined;
  /** Values (API keys) to mask in any error message. */
  secrets: string[];
}

const MAX_ERROR_TEXT = 500;
const MAX_REDIRECTS = 3;

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

function codeOf(err: Error): string | undefined {
  const code = (err as Error & { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** The error's message with its system code (ECONNRESET…) and its cause's, when they add something. */
function describeNetworkError(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause: unknown = err.cause;
  if (cause instanceof Error) {
    const code = codeOf(cause);
    return `${err.message} (${code ? `${code}: ` : ''}${cause.message})`;
  }
  const code = codeOf(err);
  return code && !err.message.includes(code) ? `${err.message} (${code})` : err.message;
}

/** Maps anything thrown by a request or a body read to an `LlmError`. */
export function transportError(err: unknown, ctx: CallContext, stage: string): LlmError {
  if (err instanceof LlmError) return err;
  if (ctx.signal?.aborted) return abortError(ctx);
  const message = redact(`${ctx.profile}: network error ${stage}: ${describeNetworkError(err)}`, ctx.secrets);
  return new LlmError('network', message, {
    profile: ctx.profile,
    cause: err,
  });
}

/**
 * Milliseconds the server asked us to wait: `retry-after-ms`, else `retry-after`
 * as seconds or as an HTTP date. Undefined when absent or unreadable.
 */
export function parseRetryAfter(headers: HeaderLookup, now: number = Date.now()): number | undefined {
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
export async function httpError(res: WireResponse, ctx: CallContext): Promise<LlmError> {
  let body = '';
  try {
    body = await res.text();
  } catch {
    // the body is best effort; the status says enough
  }
  const status = res.status;
  const kind = status === 401 || status === 403 ? 'auth' : 'http';
  const location = status >= 300 && status < 400 ? res.headers.get('location') : null;
  const hint =
    kind === 'auth'
      ? ' (check the API key for this profile)'
      : location
        ? ` (the server redirects to ${location}; check the base URL of this profile)`
        : '';
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

/**
 * Sends one POST and resolves when the response headers arrive. The abort
 * listener stays until the response ends, so an abort mid-body destroys it too.
 */
function send(
  transport: Transport,
  url: URL,
  headers: Record<string, string>,
  payload: Buffer,
  ctx: CallContext,
): Promise<WireResponse> {
  return new Promise((resolve, reject) => {
    const signal = ctx.signal;
    let message: IncomingMessage | undefined;
    let settled = false;
    const fail = (err: LlmError): void => {
      if (settled) return;
      settled = true;
      reject(err);
    };
    const onAbort = (): void => {
      message?.destroy();
      req.destroy();
      fail(abortError(ctx));
    };
    const detach = (): void => signal?.removeEventListener('abort', onAbort);
    const req = transport.request(url, {
      method: 'POST',
      agent: transport.agent,
      headers: { ...headers, 'content-length': String(payload.byteLength) },
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();
    req.once('close', detach);
    // Later socket errors also reach the response, which read() reports.
    req.on('error', (err) => {
      detach();
      fail(transportError(err, ctx, `calling ${url.href}`));
    });
    req.once('response', (res) => {
      message = res;
      res.once('end', detach);
      res.once('close', detach);
      settled = true;
      resolve(new NodeWireResponse(res));
    });
    req.end(payload);
  });
}

/**
 * POSTs a JSON body; resolves with a 2xx response or throws an `LlmError`.
 * A same-origin 307/308 redirect is followed (method and body kept); any other
 * redirect is reported, so credentials never travel to another origin.
 */
export async function postJson(
  url: string,
  headers: Record<string, string>,
  body: unknown,
  ctx: CallContext,
): Promise<WireResponse> {
  if (ctx.signal?.aborted) throw abortError(ctx);
  let target: URL;
  try {
    target = new URL(url);
  } catch (err) {
    throw new LlmError('invalid-response', redact(`${ctx.profile}: ${url} is not a valid URL`, ctx.secrets), {
      profile: ctx.profile,
      cause: err,
    });
  }
  // A pasted megabyte is encoded a slice at a time: a server keeps answering meanwhile.
  const payload = await jsonBytes(body);
  const allHeaders = {
    'content-type': 'application/json',
    accept: 'text/event-stream, application/json',
    ...headers,
  };
  for (let hop = 0; ; hop++) {
    const transport = await transportFor(target);
    if (!transport) {
      throw new LlmError(
        'invalid-response',
        redact(
          `${ctx.profile}: cannot call ${target.href}: unsupported protocol "${target.protocol}" (use http:// or https://)`,
          ctx.secrets,
        ),
        { profile: ctx.profile },
      );
    }
    const res = await send(transport, target, allHeaders, payload, ctx);
    const location = res.status === 307 || res.status === 308 ? res.headers.get('location') : null;
    const next = location ? safeUrl(location, target) : undefined;
    if (next && hop < MAX_REDIRECTS && next.origin === target.origin) {
      res.release();
      target = next;
      continue;
    }
    if (res.status < 200 || res.status >= 300) throw await httpError(res, ctx);
    if (res.status === 204 || res.status === 205) {
      res.release();
      throw new LlmError('invalid-response', `${ctx.profile}: response has no body`, {
        profile: ctx.profile,
      });
    }
    return res;
  }
}

function safeUrl(location: string, base: URL): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

/** Reads the whole body as text, mapping failures to `LlmError`. */
export async function readText(res: WireResponse, ctx: CallContext): Promise<string> {
  try {
    return await res.text();
  } catch (err) {
    throw transportError(err, ctx, 'reading the response');
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
