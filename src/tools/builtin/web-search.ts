/** web_search through a configured provider: SearXNG, Brave Search or Tavily. Off when none is configured. */
import * as z from 'zod';
import { defineTool, type Tool, ToolError } from '../types.js';
import { plainText } from './web-content.js';
import {
  type HttpInit,
  parseHttpUrl,
  readCapped,
  requestFollowing,
  statusLine,
  type WebSearchConfig,
  type WebSettings,
  webToolTimeout,
  withDeadline,
} from './web-http.js';

export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
}

const DEFAULT_RESULTS = 5;
const MAX_RESULTS = 20;
const SNIPPET_CHARS = 300;
const BRAVE_BASE = 'https://api.search.brave.com';
const TAVILY_BASE = 'https://api.tavily.com';

const hitFields = { title: z.string().nullish(), url: z.string().nullish() };
const searxngAnswer = z.object({
  results: z.array(z.object({ ...hitFields, content: z.string().nullish() })).nullish(),
});
const braveAnswer = z.object({
  web: z
    .object({ results: z.array(z.object({ ...hitFields, description: z.string().nullish() })).nullish() })
    .nullish(),
});
const tavilyAnswer = z.object({
  answer: z.string().nullish(),
  results: z.array(z.object({ ...hitFields, content: z.string().nullish() })).nullish(),
});

interface ProviderRequest {
  url: URL;
  init: HttpInit;
  /** Turns the parsed JSON answer into hits (and an optional direct answer). */
  read(json: unknown): { hits: SearchHit[]; answer?: string };
}

function hit(
  title: string | null | undefined,
  url: string | null | undefined,
  snippet: string | null | undefined,
): SearchHit {
  const text = plainText(snippet ?? '');
  return {
    title: plainText(title ?? '') || '(untitled)',
    url: url ?? '',
    snippet: text.length > SNIPPET_CHARS ? `${text.slice(0, SNIPPET_CHARS)}…` : text,
  };
}

/** The provider's base URL from config, checked, without a trailing slash. */
function baseUrl(config: WebSearchConfig, fallback: string | undefined): string {
  const raw = config.url ?? fallback;
  if (raw === undefined) {
    throw new ToolError(
      `web search provider ${config.provider} needs a url (the instance address)`,
      'ask the user to set web_search.url in the config, e.g. http://127.0.0.1:8888',
    );
  }
  return parseHttpUrl(raw).href.replace(/\/+$/, '');
}

function apiKey(config: WebSearchConfig): string {
  if (config.apiKey === undefined || config.apiKey.trim() === '') {
    throw new ToolError(
      `web search provider ${config.provider} needs an API key`,
      'ask the user to set web_search.api_key in the config',
    );
  }
  return config.apiKey.trim();
}

function parseWith<T>(schema: z.ZodType<T>, json: unknown, provider: string): T {
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new ToolError(
      `${provider} answered with JSON of an unexpected shape`,
      'check web_search.url points at the search API',
    );
  }
  return parsed.data;
}

function providerRequest(config: WebSearchConfig, query: string, count: number): ProviderRequest {
  const accept = { accept: 'application/json' };
  if (config.provider === 'searxng') {
    const url = new URL(`${baseUrl(config, undefined)}/search`);
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    return {
      url,
      init: { method: 'GET', headers: accept },
      read: (json) => ({
        hits: (parseWith(searxngAnswer, json, 'SearXNG').results ?? []).map((r) =>
          hit(r.title, r.url, r.content),
        ),
      }),
    };
  }
  if (config.provider === 'brave') {
    const url = new URL(`${baseUrl(config, BRAVE_BASE)}/res/v1/web/search`);
    url.searchParams.set('q', query);
    url.searchParams.set('count', String(count));
    return {
      url,
      init: { method: 'GET', headers: { ...accept, 'x-subscription-token': apiKey(config) } },
      read: (json) => ({
        hits: (parseWith(braveAnswer, json, 'Brave').web?.results ?? []).map((r) =>
          hit(r.title, r.url, r.description),
        ),
      }),
    };
  }
  return {
    url: new URL(`${baseUrl(config, TAVILY_BASE)}/search`),
    init: {
      method: 'POST',
      headers: { ...accept, 'content-type': 'application/json', authorization: `Bearer ${apiKey(config)}` },
      body: JSON.stringify({ query, max_results: count }),
    },
    read: (json) => {
      const data = parseWith(tavilyAnswer, json, 'Tavily');
      const hits = (data.results ?? []).map((r) => hit(r.title, r.url, r.content));
      return data.answer ? { hits, answer: data.answer } : { hits };
    },
  };
}

function failureHint(status: number): string {
  if (status === 401 || status === 403) {
    return 'the search provider refused the request: check web_search.api_key (SearXNG: enable the json format in its settings)';
  }
  if (status === 429) return 'the search provider is rate limiting; wait a little and retry';
  return 'the search provider failed; retry later, or use web_fetch on a URL you know';
}

/** `1. title — url` then the snippet, indented. */
export function formatHits(query: string, hits: readonly SearchHit[], answer?: string): string {
  if (hits.length === 0 && answer === undefined) return `No results for "${query}"`;
  const lines = answer === undefined ? [] : [`Answer: ${answer}`, ''];
  hits.forEach((h, i) => {
    lines.push(`${i + 1}. ${h.title} — ${h.url}`);
    if (h.snippet !== '') lines.push(`   ${h.snippet}`);
  });
  return lines.join('\n');
}

export function webSearchTool(s: WebSettings): Tool {
  return defineTool({
    name: 'web_search',
    description:
      'Search the web and get numbered results (title, URL, snippet). Use it to find pages, then read one ' +
      `with web_fetch. Works only when a search provider is configured; at most ${MAX_RESULTS} results.`,
    parameters: z.object({
      query: z.string().min(1).describe('What to search for'),
      max_results: z
        .number()
        .int()
        .min(1)
        .max(MAX_RESULTS)
        .optional()
        .describe(`Results to return (default ${DEFAULT_RESULTS})`),
    }),
    category: 'web',
    keywords: [
      'search',
      'web',
      'google',
      'internet',
      'look up',
      'find online',
      'news',
      '搜索',
      '查找',
      '网上',
    ],
    readOnly: true,
    concurrencySafe: true,
    approval: 'network',
    timeoutMs: webToolTimeout(s),
    subject: (a) => a.query,
    async execute(a, ctx) {
      const config = s.search;
      if (config === undefined)
        throw new ToolError('web search is off: no search provider is configured', s.searchOffHint);
      const count = a.max_results ?? DEFAULT_RESULTS;
      const request = providerRequest(config, a.query, count);
      const text = await withDeadline(ctx.signal, s.timeoutMs, request.url, async (signal) => {
        const { response } = await requestFollowing(request.url, request.init, s, signal);
        const body = await readCapped(response, s.maxDownloadBytes);
        const raw = body.bytes.toString('utf8');
        if (!response.ok) {
          const detail = plainText(raw).slice(0, 300);
          throw new ToolError(
            `${config.provider} search failed: HTTP ${statusLine(response)}${detail ? `: ${detail}` : ''}`,
            failureHint(response.status),
          );
        }
        return raw;
      });
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        throw new ToolError(
          `${config.provider} answered with something that is not JSON`,
          config.provider === 'searxng'
            ? 'enable the json output format in the SearXNG settings (search.formats)'
            : 'check web_search.url points at the search API',
        );
      }
      const { hits, answer } = request.read(json);
      return formatHits(a.query, hits.slice(0, count), answer);
    },
  });
}
