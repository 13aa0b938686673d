import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { WEB_SEARCH_OFF_HINT } from '../../src/tools/builtin/web.js';
import { runWeb, startServer } from './web-fixtures.js';

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

describe('web_search', () => {
  it('is off until configured and says how to turn it on', async () => {
    const r = await runWeb('web_search', { query: 'tea' });
    expect(r.output).toBe(
      `[ERROR] web search is off: no search provider is configured\nHint: ${WEB_SEARCH_OFF_HINT}`,
    );
    expect(WEB_SEARCH_OFF_HINT).toContain('web_search: { provider: searxng, url:');
    const custom = await runWeb(
      'web_search',
      { query: 'tea' },
      { tools: { searchOffHint: 'set TEA_SEARCH' } },
    );
    expect(custom.output).toMatch(/\nHint: set TEA_SEARCH$/);
  });

  it('queries SearXNG and numbers the results', async () => {
    const server = await startServer((_req, res) =>
      json(res, 200, {
        results: Array.from({ length: 8 }, (_, i) => ({
          title: `Result <b>${i + 1}</b>`,
          url: `https://example.com/${i + 1}`,
          content: `About &amp; around   ${i + 1}`,
        })),
      }),
    );
    const r = await runWeb(
      'web_search',
      { query: 'green tea & health', max_results: 2 },
      { tools: { search: { provider: 'searxng', url: `${server.url}/` } } },
    );
    expect(r.output).toBe(
      '1. Result 1 — https://example.com/1\n   About & around 1\n2. Result 2 — https://example.com/2\n   About & around 2',
    );
    const seen = new URL(server.requests[0]?.path ?? '', server.url);
    expect(seen.pathname).toBe('/search');
    expect(seen.searchParams.get('q')).toBe('green tea & health');
    expect(seen.searchParams.get('format')).toBe('json');
  });

  it('queries Brave with the subscription token', async () => {
    const server = await startServer((req, res) => {
      if (req.headers['x-subscription-token'] !== 'brave-key') return json(res, 401, { error: 'bad token' });
      json(res, 200, {
        web: {
          results: [
            {
              title: 'Brave hit',
              url: 'https://brave.example/x',
              description: 'A <strong>bold</strong> claim',
            },
          ],
        },
      });
    });
    const search = { provider: 'brave', url: server.url, apiKey: 'brave-key' } as const;
    const r = await runWeb('web_search', { query: 'tea' }, { tools: { search } });
    expect(r.output).toBe('1. Brave hit — https://brave.example/x\n   A bold claim');
    const seen = new URL(server.requests[0]?.path ?? '', server.url);
    expect(seen.pathname).toBe('/res/v1/web/search');
    expect(seen.searchParams.get('q')).toBe('tea');
    expect(seen.searchParams.get('count')).toBe('5');

    const wrong = await runWeb(
      'web_search',
      { query: 'tea' },
      { tools: { search: { ...search, apiKey: 'nope' } } },
    );
    expect(wrong.output).toBe(
      '[ERROR] brave search failed: HTTP 401 Unauthorized: {"error":"bad token"}\nHint: the search provider refused the request: check web_search.api_key (SearXNG: enable the json format in its settings)',
    );
  });

  it('queries Tavily with a bearer key and includes its answer', async () => {
    const server = await startServer((req, res) =>
      json(res, 200, {
        answer: 'Tea is a drink.',
        results: [{ title: 'Tea', url: 'https://tea.example', content: 'All about tea' }],
        echo: { auth: req.headers.authorization },
      }),
    );
    const search = { provider: 'tavily', url: server.url, apiKey: 'tvly-1' } as const;
    const r = await runWeb('web_search', { query: 'what is tea', max_results: 3 }, { tools: { search } });
    expect(r.output).toBe('Answer: Tea is a drink.\n\n1. Tea — https://tea.example\n   All about tea');
    const seen = server.requests[0];
    expect(seen?.method).toBe('POST');
    expect(seen?.path).toBe('/search');
    expect(seen?.headers.authorization).toBe('Bearer tvly-1');
    expect(JSON.parse(seen?.body ?? '{}')).toEqual({ query: 'what is tea', max_results: 3 });
  });

  it('explains incomplete configuration, non-JSON answers and empty results', async () => {
    const noUrl = await runWeb('web_search', { query: 'x' }, { tools: { search: { provider: 'searxng' } } });
    expect(noUrl.output).toMatch(/^\[ERROR\] web search provider searxng needs a url/);
    const noKey = await runWeb('web_search', { query: 'x' }, { tools: { search: { provider: 'tavily' } } });
    expect(noKey.output).toBe(
      '[ERROR] web search provider tavily needs an API key\nHint: ask the user to set web_search.api_key in the config',
    );

    const server = await startServer((req, res) => {
      if (req.path.startsWith('/html/')) {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end('<html>format not allowed</html>');
      }
      json(res, 200, { results: [] });
    });
    const html = await runWeb(
      'web_search',
      { query: 'x' },
      { tools: { search: { provider: 'searxng', url: `${server.url}/html` } } },
    );
    expect(html.output).toBe(
      '[ERROR] searxng answered with something that is not JSON\nHint: enable the json output format in the SearXNG settings (search.formats)',
    );
    const empty = await runWeb(
      'web_search',
      { query: 'zzz' },
      { tools: { search: { provider: 'searxng', url: server.url } } },
    );
    expect(empty.output).toBe('No results for "zzz"');
  });
});
