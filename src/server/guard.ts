/**
 * What keeps other web sites from driving `tea serve` from a browser:
 *
 * - Host: only the server's own names (DNS rebinding, see hosts.ts).
 * - Origin: a state-changing request from a page must come from this server's own
 *   origin or an allowed CORS origin. Requests without Origin (curl, SDKs) pass.
 * - JSON only: a cross-site "simple request" can carry only text/plain, form or
 *   multipart bodies, so API writes take JSON (415 otherwise).
 * - The client header: approvals and answers also need `X-Tea-Client`, a header a
 *   browser sends cross-site only after a CORS preflight this server refuses.
 */
import type { MiddlewareHandler } from 'hono';
import { displayPath } from '../config/errors.js';
import { type ApiError, apiError } from './errors.js';
import type { HostPolicy } from './hosts.js';
import { isApiPath } from './static.js';

/** Sent by the web UI (`web`) and required on approvals and answers. */
export const CLIENT_HEADER = 'x-tea-client';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Quotes attacker-chosen text for an error message, short. */
function quoted(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 77)}...` : text);
}

/** Why a Host header is refused (missing: 400, not ours: 403), or undefined when it names this server. */
export function hostProblem(hosts: HostPolicy, host: string | undefined): ApiError | undefined {
  if (host === undefined || host === '') {
    return apiError(400, 'the Host header is missing: send the address you connected to', {
      code: 'missing_host',
    });
  }
  if (hosts.allows(host)) return undefined;
  const file = hosts.configFile ? displayPath(hosts.configFile) : 'your config.yaml';
  return apiError(
    403,
    `Host ${quoted(host)} is not allowed: this server answers to ${hosts.describe()}. To reach it under another name, start tea serve with --allowed-host <name> or add the name to server.allowed_hosts in ${file}`,
    { code: 'host_not_allowed' },
  );
}

/** The Host check inside the app (the HTTP server also checks before the adapter parses anything). */
export function hostGuard(hosts: HostPolicy): MiddlewareHandler {
  return async (c, next) => {
    const problem = hostProblem(hosts, c.req.header('host'));
    if (problem) throw problem;
    return next();
  };
}

/**
 * 403 for a state-changing request from a foreign page: its Origin is neither this
 * server's own (`http(s)://<Host>`) nor an allowed CORS origin. `Origin: null`
 * (sandboxed frames, files, redirects) is foreign too. Without Origin, a browser's
 * `Sec-Fetch-Site` still gives a cross-site request away.
 */
export function originGuard(cors: readonly string[]): MiddlewareHandler {
  const allowed = new Set(cors.map((o) => o.toLowerCase()));
  return async (c, next) => {
    if (!STATE_CHANGING.has(c.req.method)) return next();
    const origin = c.req.header('origin');
    if (origin === undefined) {
      const site = c.req.header('sec-fetch-site');
      if (site === 'cross-site' || site === 'same-site') {
        throw apiError(403, `a ${site} request from a web page may not change anything here`, {
          code: 'origin_not_allowed',
        });
      }
      return next();
    }
    const o = origin.toLowerCase();
    const host = (c.req.header('host') ?? '').toLowerCase();
    const own = host !== '' && (o === `http://${host}` || o === `https://${host}`);
    if (own || allowed.has('*') || allowed.has(o)) return next();
    throw apiError(
      403,
      `Origin ${quoted(origin)} may not change anything here: only pages of this server${allowed.size > 0 ? ` and ${[...allowed].join(', ')}` : ''} may (tea serve --cors <origin> allows another)`,
      { code: 'origin_not_allowed' },
    );
  };
}

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/;
/** `POST /v1/memory/import` also takes JSON Lines as they are. */
const JSON_LINES_TYPE = /^application\/(?:x-)?(?:ndjson|jsonl|jsonlines|json-lines)$/;

/**
 * 415 for an API write whose body is not JSON: a Content-Type other than JSON, or a
 * body without one. A write with no body and no Content-Type (`curl -X POST …/cancel`) passes.
 */
export function jsonBodies(): MiddlewareHandler {
  return async (c, next) => {
    if (!STATE_CHANGING.has(c.req.method) || !isApiPath(c.req.path)) return next();
    const header = c.req.header('content-type');
    const length = c.req.header('content-length');
    const hasBody =
      c.req.header('transfer-encoding') !== undefined || (length !== undefined && length !== '0');
    if (header === undefined && !hasBody) return next();
    const type = (header ?? '').split(';')[0]!.trim().toLowerCase();
    const lines = c.req.path === '/v1/memory/import' && JSON_LINES_TYPE.test(type);
    if (JSON_TYPE.test(type) || lines) return next();
    const got = header === undefined ? 'a body without a Content-Type' : `Content-Type ${quoted(header)}`;
    throw apiError(
      415,
      `${c.req.method} ${c.req.path} takes JSON, got ${got}: send "Content-Type: application/json" (curl: --json '{…}' or -H 'content-type: application/json')`,
      { code: 'unsupported_media_type' },
    );
  };
}

/** 403 unless the request carries `X-Tea-Client` (the web UI sends `web`; API clients any name). */
export const clientHeader: MiddlewareHandler = async (c, next) => {
  if (!c.req.header(CLIENT_HEADER)?.trim()) {
    throw apiError(
      403,
      `approvals and answers need the ${CLIENT_HEADER} header (any name, e.g. "X-Tea-Client: my-script"); web pages of other sites cannot send it`,
      { code: 'client_header_required' },
    );
  }
  return next();
};
