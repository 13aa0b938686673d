/**
 * Web tools: web_fetch (read a page as Markdown), http_request (call an API),
 * with download_file and web_search in their own files.
 */
import * as z from 'zod';
import { defineTool, type Tool, ToolError } from '../types.js';
import { formatSize, plural } from './text.js';
import { capText, decodeText, kindOf, prettyJson, renderBody } from './web-content.js';
import { downloadFileTool } from './web-download.js';
import {
  type Fetched,
  parseHttpUrl,
  readCapped,
  requestFollowing,
  statusLine,
  timeoutParam,
  urlParam,
  type WebSettings,
  type WebToolOptions,
  webSettings,
  webToolTimeout,
  withDeadline,
  withDefaults,
} from './web-http.js';
import { webSearchTool } from './web-search.js';

export type { WebSearchConfig, WebToolOptions } from './web-http.js';
export { WEB_SEARCH_OFF_HINT } from './web-http.js';

const FETCH_DEFAULT_CHARS = 20_000;
const FETCH_MAX_CHARS = 200_000;
const HTTP_MAX_CHARS = 20_000;
const HTTP_MAX_HEADER_LINES = 40;
const PAGE_ACCEPT = 'text/html,application/xhtml+xml,application/json;q=0.9,text/plain;q=0.8,*/*;q=0.5';

/** `URL:` (final), `Redirected from:` (when it was) lines. */
function whereLines(fetched: Fetched): string[] {
  const lines = [`URL: ${fetched.url.href}`];
  const [first] = fetched.redirectedFrom;
  if (first !== undefined) {
    lines.push(`Redirected from: ${first.href} (${plural(fetched.redirectedFrom.length, 'redirect')})`);
  }
  return lines;
}

function webFetchTool(s: WebSettings): Tool {
  return defineTool({
    name: 'web_fetch',
    description:
      'Fetch a web page over http(s) and return it as readable text: HTML as Markdown (scripts, navigation, ' +
      `footers dropped), JSON pretty-printed. Use it to read docs or any page you have the URL of; at most max_chars (default ${FETCH_DEFAULT_CHARS}).`,
    parameters: z.object({
      url: urlParam,
      max_chars: z
        .number()
        .int()
        .min(100)
        .max(FETCH_MAX_CHARS)
        .optional()
        .describe(`Characters of content returned (default ${FETCH_DEFAULT_CHARS})`),
      timeout_ms: timeoutParam(s.timeoutMs),
    }),
    category: 'web',
    keywords: [
      'web',
      'fetch',
      'url',
      'http',
      'page',
      'website',
      'read',
      'docs',
      'browse',
      '网页',
      '链接',
      '网址',
    ],
    readOnly: true,
    concurrencySafe: true,
    approval: 'network',
    timeoutMs: webToolTimeout(s),
    subject: (a) => a.url,
    async execute(a, ctx) {
      const url = parseHttpUrl(a.url);
      const { fetched, body } = await withDeadline(
        ctx.signal,
        a.timeout_ms ?? s.timeoutMs,
        url,
        async (signal) => {
          const fetched = await requestFollowing(
            url,
            { method: 'GET', headers: { accept: PAGE_ACCEPT } },
            s,
            signal,
          );
          return { fetched, body: await readCapped(fetched.response, s.maxDownloadBytes) };
        },
      );
      const contentType = fetched.response.headers.get('content-type') ?? '';
      const rendered = await renderBody(kindOf(contentType, body.bytes), body.bytes, contentType);
      const lines = [
        ...whereLines(fetched),
        `Status: ${statusLine(fetched.response)}`,
        `Content-Type: ${contentType || '(none)'}`,
      ];
      if (rendered.title !== undefined) lines.push(`Title: ${rendered.title}`);
      if (body.truncated) {
        lines.push(
          `Note: the body is larger than ${formatSize(s.maxDownloadBytes)}; only that much was downloaded`,
        );
      }
      const max = a.max_chars ?? FETCH_DEFAULT_CHARS;
      const content =
        rendered.text === ''
          ? '(empty body)'
          : capText(rendered.text, max, `raise max_chars (up to ${FETCH_MAX_CHARS})`);
      return `${lines.join('\n')}\n\n${content}`;
    },
  });
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

/** The request headers: the caller's, plus a content type guessed from the body when missing. */
function requestHeaders(
  headers: Record<string, string> | undefined,
  body: string | undefined,
): Record<string, string> {
  const trimmed = body?.trimStart();
  const type =
    trimmed === undefined
      ? undefined
      : trimmed.startsWith('{') || trimmed.startsWith('[')
        ? 'application/json'
        : 'text/plain; charset=utf-8';
  return withDefaults(headers ?? {}, {
    accept: 'application/json, */*;q=0.5',
    ...(type === undefined ? {} : { 'content-type': type }),
  });
}

function httpRequestTool(s: WebSettings): Tool {
  return defineTool({
    name: 'http_request',
    description:
      'Send an HTTP request to an API (any method, headers, body) and return status, response headers and ' +
      `body (JSON pretty-printed, cut at ${HTTP_MAX_CHARS} chars). Only http(s) URLs; use web_fetch to read web pages.`,
    parameters: z.object({
      method: z.enum(METHODS).describe('HTTP method'),
      url: urlParam,
      headers: z
        .record(z.string(), z.string())
        .optional()
        .describe('Request headers, e.g. {"Authorization": "Bearer …"}'),
      body: z.string().optional().describe('Request body (JSON gets content-type application/json)'),
      timeout_ms: timeoutParam(s.timeoutMs),
    }),
    category: 'web',
    keywords: [
      'http',
      'api',
      'request',
      'rest',
      'post',
      'get',
      'curl',
      'endpoint',
      'webhook',
      'json',
      '接口',
      '请求',
    ],
    readOnly: false,
    concurrencySafe: false,
    approval: 'network',
    timeoutMs: webToolTimeout(s),
    subject: (a) => a.url,
    async execute(a, ctx) {
      const url = parseHttpUrl(a.url);
      if (a.body !== undefined && (a.method === 'GET' || a.method === 'HEAD')) {
        throw new ToolError(
          `A ${a.method} request cannot have a body`,
          'use POST, PUT or PATCH to send a body',
        );
      }
      const init = {
        method: a.method,
        headers: requestHeaders(a.headers, a.body),
        ...(a.body === undefined ? {} : { body: a.body }),
      };
      const { fetched, body } = await withDeadline(
        ctx.signal,
        a.timeout_ms ?? s.timeoutMs,
        url,
        async (signal) => {
          const fetched = await requestFollowing(url, init, s, signal).catch((error: unknown) => {
            if (error instanceof TypeError && /header/i.test(error.message)) {
              throw new ToolError(
                `Invalid request header: ${error.message}`,
                'header names and values must be plain single-line text',
              );
            }
            throw error;
          });
          return { fetched, body: await readCapped(fetched.response, s.maxDownloadBytes) };
        },
      );
      const response = fetched.response;
      const headerLines = [...response.headers].map(([name, value]) => `${name}: ${value}`);
      if (headerLines.length > HTTP_MAX_HEADER_LINES) {
        const extra = headerLines.length - HTTP_MAX_HEADER_LINES;
        headerLines.splice(HTTP_MAX_HEADER_LINES, extra, `… ${plural(extra, 'more header')}`);
      }
      const contentType = response.headers.get('content-type') ?? '';
      const kind = kindOf(contentType, body.bytes);
      let text: string;
      if (body.bytes.length === 0) text = '(no body)';
      else if (kind === 'binary') text = (await renderBody(kind, body.bytes, contentType)).text;
      else {
        const raw = decodeText(body.bytes, contentType);
        text = capText(
          kind === 'json' ? prettyJson(raw) : raw,
          HTTP_MAX_CHARS,
          'use download_file to save the whole body',
        );
      }
      if (body.truncated)
        text += `\n… [body larger than ${formatSize(s.maxDownloadBytes)}; the rest was not downloaded]`;
      return [`HTTP ${statusLine(response)}`, ...whereLines(fetched), ...headerLines, '', text].join('\n');
    },
  });
}

/** The web family: web_fetch, web_search (off unless configured), http_request, download_file. */
export function webTools(opts: WebToolOptions = {}): Tool[] {
  const s = webSettings(opts);
  return [webFetchTool(s), webSearchTool(s), httpRequestTool(s), downloadFileTool(s)];
}
