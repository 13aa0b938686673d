/**
 * CORS for the allowed origins (`tea serve --cors`): a preflight may ask for the headers
 * the official OpenAI SDKs send (every `x-stainless-*`, `openai-organization`,
 * `openai-project`, `openai-beta`, `idempotency-key`, authorization, content-type) and
 * Tea's own; responses expose the session id, the request id and retry hints.
 */
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { CLIENT_HEADER } from './guard.js';

/** Request headers a page of an allowed origin may send (lower case). */
export const CORS_ALLOWED_HEADERS = [
  'authorization',
  'content-type',
  'last-event-id',
  CLIENT_HEADER,
  'openai-organization',
  'openai-project',
  'openai-beta',
  'idempotency-key',
];

/** The SDKs' telemetry headers: `x-stainless-os`, `-lang`, `-retry-count`, `-timeout`, … (new ones come with new SDKs). */
const STAINLESS = /^x-stainless-[a-z0-9-]{1,64}$/;

export const CORS_EXPOSED_HEADERS = [
  'retry-after',
  'retry-after-ms',
  'x-tea-session-id',
  'x-request-id',
  'content-disposition',
];

/** The headers a preflight asked for that are allowed, after the fixed list. */
function allowedHeaders(asked: string | undefined): string {
  const extra = (asked ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => STAINLESS.test(h));
  return [...CORS_ALLOWED_HEADERS, ...new Set(extra)].join(',');
}

export function corsFor(origins: string[]): MiddlewareHandler {
  const inner = cors({
    origin: origins,
    allowHeaders: CORS_ALLOWED_HEADERS,
    exposeHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
  });
  return async (c, next) => {
    const out = await inner(c, next);
    if (out instanceof Response && c.req.method === 'OPTIONS') {
      out.headers.set(
        'access-control-allow-headers',
        allowedHeaders(c.req.header('access-control-request-headers')),
      );
    }
    return out;
  };
}
