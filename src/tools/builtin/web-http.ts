/**
 * HTTP for the web tools: only http(s) URLs, redirects followed by hand (each hop
 * checked, at most `maxRedirects`), a deadline over the whole exchange, bodies read
 * with a byte cap, and network failures turned into model-readable errors.
 */
import * as z from 'zod';
import { formatSeconds, withTimeout } from '../abort.js';
import { errorCode } from '../hints.js';
import { ToolError } from '../types.js';

/** Which search service web_search uses; web search is off without one. */
export interface WebSearchConfig {
  provider: 'searxng' | 'brave' | 'tavily';
  /** SearXNG: the instance URL (required). Brave and Tavily: overrides the API base URL. */
  url?: string;
  /** Brave and Tavily: the API key (required for them). */
  apiKey?: string;
}

/** Options for the web tools; every limit has a default, tests shrink them. */
export interface WebToolOptions {
  /** Absent means web_search answers that search is off and how to turn it on. */
  search?: WebSearchConfig;
  /** Default time limit for one request, redirects and body included (default 30 000 ms). */
  fetchTimeoutMs?: number;
  /** web_fetch, http_request, web_search: bytes read from a body before stopping (default 5 MB). */
  maxDownloadBytes?: number;
  /** download_file: largest file saved (default 100 MB). */
  maxFileBytes?: number;
  /** Redirects followed per request (default 5). */
  maxRedirects?: number;
  /** The User-Agent header sent (default `tea-agent`). */
  userAgent?: string;
  /** Text of the hint when web search is off (default names the config keys). */
  searchOffHint?: string;
}

export interface HttpSettings {
  timeoutMs: number;
  maxRedirects: number;
  userAgent: string;
}

export interface WebSettings extends HttpSettings {
  search: WebSearchConfig | undefined;
  maxDownloadBytes: number;
  maxFileBytes: number;
  searchOffHint: string;
}

/** How to turn web search on, naming the config keys. */
export const WEB_SEARCH_OFF_HINT =
  'ask the user to configure a provider under `tools:` in ~/.tea/config.yaml, e.g. `web_search: { provider: searxng, url: http://127.0.0.1:8888 }` ' +
  'or `web_search: { provider: brave, api_key_env: BRAVE_API_KEY }` or `web_search: { provider: tavily, api_key_env: TAVILY_API_KEY }`; ' +
  'meanwhile use web_fetch on a URL you know';

/** Longest timeout_ms a call may ask for. */
export const MAX_REQUEST_TIMEOUT_MS = 120_000;

export function webSettings(opts: WebToolOptions = {}): WebSettings {
  return {
    search: opts.search,
    timeoutMs: opts.fetchTimeoutMs ?? 30_000,
    maxRedirects: opts.maxRedirects ?? 5,
    userAgent: opts.userAgent ?? 'tea-agent',
    maxDownloadBytes: opts.maxDownloadBytes ?? 5 * 1024 * 1024,
    maxFileBytes: opts.maxFileBytes ?? 100 * 1024 * 1024,
    searchOffHint: opts.searchOffHint ?? WEB_SEARCH_OFF_HINT,
  };
}

export const urlParam = z.string().min(1).describe('An http:// or https:// URL');

export function timeoutParam(defaultMs: number) {
  return z
    .number()
    .int()
    .min(1)
    .max(MAX_REQUEST_TIMEOUT_MS)
    .optional()
    .describe(`Time limit in ms, body included (default ${defaultMs})`);
}

/** The runner's backstop for a web tool: the longest allowed request plus a margin. */
export function webToolTimeout(settings: HttpSettings): number {
  return Math.max(settings.timeoutMs, MAX_REQUEST_TIMEOUT_MS) + 5_000;
}

export interface HttpInit {
  method: string;
  headers: Record<string, string>;
  body?: string;
}

export interface Fetched {
  response: Response;
  /** Where the answer came from, after redirects. */
  url: URL;
  /** The URLs that redirected, in order (empty when there was no redirect). */
  redirectedFrom: URL[];
}

const REDIRECT_CODES = new Set([301, 302, 303, 307, 308]);

/** Parses a URL the model passed and refuses anything but http and https. */
export function parseHttpUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ToolError(`Invalid URL "${raw}"`, 'pass an absolute URL starting with http:// or https://');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ToolError(
      `Only http and https URLs are supported, not "${url.protocol}" (${raw})`,
      url.protocol === 'file:'
        ? 'read local files with read_file instead'
        : 'pass a URL starting with http:// or https://',
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new ToolError(
      'URLs with a user name or password in them are not sent',
      'remove the credentials from the URL and pass them in an Authorization header (http_request)',
    );
  }
  return url;
}

/** `headers` plus each default whose name (in any case) it does not already have. */
export function withDefaults(
  headers: Record<string, string>,
  defaults: Record<string, string>,
): Record<string, string> {
  const present = new Set(Object.keys(headers).map((k) => k.toLowerCase()));
  const out = { ...headers };
  for (const [name, value] of Object.entries(defaults)) if (!present.has(name)) out[name] = value;
  return out;
}

/** The request to make after a redirect: 303 (and 301/302 after POST) become a GET without body. */
function redirectInit(init: HttpInit, status: number, from: URL, to: URL): HttpInit {
  const toGet =
    status === 303 ? init.method !== 'HEAD' : (status === 301 || status === 302) && init.method === 'POST';
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(init.headers)) {
    const lower = name.toLowerCase();
    // Credentials stay with the origin they were meant for.
    if (from.origin !== to.origin && (lower === 'authorization' || lower === 'cookie')) continue;
    if (toGet && (lower === 'content-type' || lower === 'content-length')) continue;
    headers[name] = value;
  }
  if (toGet) return { method: 'GET', headers };
  return init.body === undefined
    ? { method: init.method, headers }
    : { method: init.method, headers, body: init.body };
}

/** Sends the request, following up to `maxRedirects` redirects to other http(s) URLs. */
export async function requestFollowing(
  start: URL,
  first: HttpInit,
  settings: HttpSettings,
  signal: AbortSignal,
): Promise<Fetched> {
  let url = start;
  let init = first;
  const chain: URL[] = [];
  for (;;) {
    const headers = withDefaults(init.headers, { 'user-agent': settings.userAgent });
    const response = await fetch(url, {
      method: init.method,
      headers,
      redirect: 'manual',
      signal,
      ...(init.body === undefined ? {} : { body: init.body }),
    });
    const location = response.headers.get('location');
    if (!REDIRECT_CODES.has(response.status) || location === null) {
      return { response, url, redirectedFrom: chain };
    }
    await response.body?.cancel().catch(() => {});
    chain.push(url);
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new ToolError(`${url} redirected to an invalid URL: ${location}`, 'the server is misconfigured');
    }
    if (chain.length > settings.maxRedirects) {
      const hops = [...chain, next].map((u) => u.href).join(' -> ');
      throw new ToolError(
        `Too many redirects (more than ${settings.maxRedirects}): ${hops}`,
        'the URL redirects in a loop or too deeply; check the URL or open the final address directly',
      );
    }
    if (next.protocol !== 'http:' && next.protocol !== 'https:') {
      throw new ToolError(`${url} redirected to a non-http URL, which is refused: ${next.href}`);
    }
    init = redirectInit(init, response.status, url, next);
    url = next;
  }
}

export interface CappedBody {
  bytes: Buffer;
  /** The body was longer than the cap; reading stopped and the connection was dropped. */
  truncated: boolean;
}

/** Reads at most `maxBytes` of the body, then cancels the rest of the download. */
export async function readCapped(response: Response, maxBytes: number): Promise<CappedBody> {
  if (response.body === null) return { bytes: Buffer.alloc(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks, size), truncated: false };
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      await reader.cancel().catch(() => {});
      return { bytes: Buffer.concat(chunks, size), truncated: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
}

const NETWORK_HINTS: Record<string, string> = {
  ECONNREFUSED: 'nothing is listening at that host and port; check the URL (and that the server is running)',
  ENOTFOUND: 'the host name does not resolve; check its spelling',
  EAI_AGAIN: 'the host name could not be resolved right now; check the network and retry',
  ECONNRESET: 'the server closed the connection; retry later or check the URL',
  UND_ERR_SOCKET: 'the server closed the connection; retry later or check the URL',
  CERT_HAS_EXPIRED: 'the server certificate has expired; the site is misconfigured',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the server uses a self-signed certificate, which is not trusted',
};

/** A clear ToolError for a failed fetch (the cause carries the real reason). */
export function networkError(error: unknown, url: URL | string): ToolError {
  if (error instanceof ToolError) return error;
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : undefined;
  const code = errorCode(cause) ?? errorCode(error);
  const reason = cause?.message ?? (error instanceof Error ? error.message : String(error));
  const hint = (code && NETWORK_HINTS[code]) ?? 'check the URL and the network, then retry';
  return new ToolError(`Could not fetch ${String(url)}: ${reason}`, hint);
}

/**
 * Runs one HTTP exchange under a deadline combined with the caller's cancel signal.
 * A deadline becomes a ToolError; a user cancel is passed through for the runner.
 */
export async function withDeadline<T>(
  parent: AbortSignal,
  timeoutMs: number,
  url: URL,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const timed = withTimeout(parent, timeoutMs);
  try {
    return await run(timed.signal);
  } catch (error) {
    if (timed.timedOut()) {
      throw new ToolError(
        `No complete answer from ${url.href} within ${formatSeconds(timeoutMs)}`,
        'the server is slow or not answering; retry with a larger timeout_ms, or try later',
      );
    }
    if (parent.aborted) throw error;
    throw networkError(error, url);
  } finally {
    timed.dispose();
  }
}

/** The reason phrase for a status, falling back to the number alone. */
export function statusLine(response: Response): string {
  return response.statusText ? `${response.status} ${response.statusText}` : String(response.status);
}
