import type { ServerResponse } from 'node:http';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { webTools } from '../../src/tools/builtin/web.js';
import { runWeb, startServer } from './web-fixtures.js';

const PAGE = `<!doctype html>
<html><head><title>Tea &amp; Docs</title><style>body { color: red }</style>
<script>var secret = "SCRIPT-TEXT";</script></head>
<body><nav><a href="/">Home</a> <a href="/x">NAV-LINK</a></nav>
<main><h1>Getting started</h1><p>Install with <code>npm i tea</code>.</p><ul><li>fast</li><li>small</li></ul></main>
<noscript>NOSCRIPT-TEXT</noscript><script>console.log("INLINE-SCRIPT")</script>
<footer>FOOTER-TEXT</footer></body></html>`;

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('web tool declarations', () => {
  it('are network tools with honest flags and the URL as subject', () => {
    const tools = webTools();
    expect(tools.map((t) => [t.name, t.category, t.approval, t.readOnly, t.concurrencySafe])).toEqual([
      ['web_fetch', 'web', 'network', true, true],
      ['web_search', 'web', 'network', true, true],
      ['http_request', 'web', 'network', false, false],
      ['download_file', 'web', 'network', false, false],
    ]);
    const [fetchTool, searchTool, httpTool] = tools;
    expect(fetchTool?.subject?.({ url: 'https://example.com/a' })).toBe('https://example.com/a');
    expect(searchTool?.subject?.({ query: 'tea agent' })).toBe('tea agent');
    expect(httpTool?.subject?.({ method: 'POST', url: 'https://api.example.com/x' })).toBe(
      'https://api.example.com/x',
    );
    for (const t of tools) expect(t.keywords?.length).toBeGreaterThan(3);
  });
});

describe('web_fetch', () => {
  it('turns HTML into clean Markdown with the title and drops scripts, styles, nav and footer', async () => {
    const server = await startServer((_req, res) => send(res, 200, 'text/html; charset=utf-8', PAGE));
    const r = await runWeb('web_fetch', { url: `${server.url}/page` });
    expect(r.status).toBe('ok');
    expect(r.output).toBe(
      [
        `URL: ${server.url}/page`,
        'Status: 200 OK',
        'Content-Type: text/html; charset=utf-8',
        'Title: Tea & Docs',
        '',
        '# Getting started',
        '',
        'Install with `npm i tea`.',
        '',
        '* fast',
        '* small',
      ].join('\n'),
    );
    expect(server.requests[0]?.headers['user-agent']).toBe('tea-agent');
  });

  it('pretty-prints JSON, keeps text, decodes the charset and describes binaries', async () => {
    const server = await startServer((req, res) => {
      if (req.path === '/json') return send(res, 200, 'application/json', '{"name":"tea","tags":["a","b"]}');
      if (req.path === '/latin1')
        return send(res, 200, 'text/plain; charset=iso-8859-1', Buffer.from('café', 'latin1'));
      if (req.path === '/png')
        return send(res, 200, 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
      send(res, 404, 'text/plain', 'no such page');
    });
    const json = await runWeb('web_fetch', { url: `${server.url}/json` });
    expect(json.output.split('\n\n')[1]).toBe('{\n  "name": "tea",\n  "tags": [\n    "a",\n    "b"\n  ]\n}');
    expect((await runWeb('web_fetch', { url: `${server.url}/latin1` })).output).toMatch(/\n\ncafé$/);
    expect((await runWeb('web_fetch', { url: `${server.url}/png` })).output).toMatch(
      /\n\n\(binary content: image\/png, 8 B read; not shown — save it with download_file\)$/,
    );
    const missing = await runWeb('web_fetch', { url: `${server.url}/missing` });
    expect(missing.status).toBe('ok');
    expect(missing.output).toBe(
      `URL: ${server.url}/missing\nStatus: 404 Not Found\nContent-Type: text/plain\n\nno such page`,
    );
  });

  it('cuts content at max_chars and says so', async () => {
    const server = await startServer((_req, res) => send(res, 200, 'text/plain', 'x'.repeat(1000)));
    const r = await runWeb('web_fetch', { url: server.url, max_chars: 100 });
    expect(r.output.split('\n\n').slice(1)).toEqual([
      'x'.repeat(100),
      '… [truncated: showing 100 of 1000 chars; raise max_chars (up to 200000)]',
    ]);
  });

  it('follows redirects and reports the final URL', async () => {
    const server = await startServer((req, res) => {
      if (req.path === '/a') return res.writeHead(302, { location: '/b' }).end();
      if (req.path === '/b') return res.writeHead(301, { location: `${server.url}/c?x=1` }).end();
      send(res, 200, 'text/plain', `landed on ${req.path}`);
    });
    const r = await runWeb('web_fetch', { url: `${server.url}/a` });
    expect(r.output).toBe(
      `URL: ${server.url}/c?x=1\nRedirected from: ${server.url}/a (2 redirects)\nStatus: 200 OK\nContent-Type: text/plain\n\nlanded on /c?x=1`,
    );
  });

  it('stops a redirect loop after 5 redirects and refuses redirects to other schemes', async () => {
    const server = await startServer((req, res) => {
      if (req.path === '/ping') return res.writeHead(302, { location: '/pong' }).end();
      if (req.path === '/pong') return res.writeHead(307, { location: '/ping' }).end();
      res.writeHead(302, { location: 'file:///etc/passwd' }).end();
    });
    const loop = await runWeb('web_fetch', { url: `${server.url}/ping` });
    expect(loop.status).toBe('error');
    expect(loop.output).toMatch(
      /^\[ERROR\] Too many redirects \(more than 5\): http:\/\/127\.0\.0\.1:\d+\/ping -> /,
    );
    expect(loop.output).toContain('Hint: the URL redirects in a loop');
    expect(server.requests).toHaveLength(6);

    const scheme = await runWeb('web_fetch', { url: `${server.url}/escape` });
    expect(scheme.output).toBe(
      `[ERROR] ${server.url}/escape redirected to a non-http URL, which is refused: file:///etc/passwd`,
    );
  });

  it('stops downloading at the size cap and drops the connection', async () => {
    let sent = 0;
    let closed: () => void = () => {};
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'y'.repeat(64 * 1024);
      // An endless body: only the client hanging up ends it.
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk)) sent += chunk.length;
      };
      res.on('drain', pump);
      res.on('close', () => closed());
      pump();
    });
    const r = await runWeb(
      'web_fetch',
      { url: server.url, max_chars: 1000 },
      { tools: { maxDownloadBytes: 100_000 } },
    );
    expect(r.status).toBe('ok');
    expect(r.output).toContain('\nNote: the body is larger than 97.7 KB; only that much was downloaded\n');
    expect(r.output).toContain('… [truncated: showing 1000 of 100000 chars;');
    await connectionClosed;
    expect(sent).toBeLessThan(50 * 1024 * 1024);
  });

  it('times out on a server that never answers, or stalls mid-body', async () => {
    const server = await startServer((req, res) => {
      if (req.path === '/stall') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
      }
      // Otherwise: never answer.
    });
    const silent = await runWeb('web_fetch', { url: `${server.url}/silent`, timeout_ms: 150 });
    expect(silent.output).toBe(
      `[ERROR] No complete answer from ${server.url}/silent within 0.15s\nHint: the server is slow or not answering; retry with a larger timeout_ms, or try later`,
    );
    const stall = await runWeb(
      'web_fetch',
      { url: `${server.url}/stall` },
      { tools: { fetchTimeoutMs: 150 } },
    );
    expect(stall.output).toMatch(/^\[ERROR\] No complete answer from .*\/stall within 0\.15s/);
  });

  it('is cancelled by the user', async () => {
    const server = await startServer(() => {});
    const controller = new AbortController();
    const running = runWeb('web_fetch', { url: server.url }, { signal: controller.signal });
    while (server.requests.length === 0) await new Promise((r) => setTimeout(r, 10));
    controller.abort();
    const r = await running;
    expect(r.status).toBe('cancelled');
    expect(r.output).toBe('[CANCELLED] web_fetch was cancelled by the user');
  });

  it('refuses other schemes, bad URLs and unreachable hosts with clear errors', async () => {
    expect((await runWeb('web_fetch', { url: 'file:///etc/passwd' })).output).toBe(
      '[ERROR] Only http and https URLs are supported, not "file:" (file:///etc/passwd)\nHint: read local files with read_file instead',
    );
    expect((await runWeb('web_fetch', { url: 'ftp://example.com/x' })).output).toBe(
      '[ERROR] Only http and https URLs are supported, not "ftp:" (ftp://example.com/x)\nHint: pass a URL starting with http:// or https://',
    );
    expect((await runWeb('web_fetch', { url: 'not a url' })).output).toBe(
      '[ERROR] Invalid URL "not a url"\nHint: pass an absolute URL starting with http:// or https://',
    );
    expect((await runWeb('web_fetch', { url: 'http://user:pw@127.0.0.1/' })).output).toMatch(
      /^\[ERROR\] URLs with a user name or password in them are not sent/,
    );
    const port = await closedPort();
    const refused = await runWeb('web_fetch', { url: `http://127.0.0.1:${port}/` });
    expect(refused.output).toBe(
      `[ERROR] Could not fetch http://127.0.0.1:${port}/: connect ECONNREFUSED 127.0.0.1:${port}\nHint: nothing is listening at that host and port; check the URL (and that the server is running)`,
    );
  });
});

describe('http_request', () => {
  it('sends method, headers and body, and pretty-prints a JSON answer', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'abc' });
      res.end(JSON.stringify({ got: JSON.parse(req.body) as unknown, method: req.method }));
    });
    const r = await runWeb('http_request', {
      method: 'POST',
      url: `${server.url}/items`,
      headers: { 'X-Token': 'secret-1', 'User-Agent': 'my-agent/2', Accept: 'application/vnd.api+json' },
      body: '{"name":"tea"}',
    });
    expect(r.status).toBe('ok');
    const [head, body] = r.output.split('\n\n');
    expect(head?.split('\n').slice(0, 2)).toEqual(['HTTP 201 Created', `URL: ${server.url}/items`]);
    expect(head).toContain('\ncontent-type: application/json');
    expect(head).toContain('\nx-request-id: abc');
    expect(body).toBe('{\n  "got": {\n    "name": "tea"\n  },\n  "method": "POST"\n}');
    const seen = server.requests[0];
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(seen?.headers['x-token']).toBe('secret-1');
    // The caller's own User-Agent and Accept replace the defaults instead of joining them.
    expect(seen?.headers['user-agent']).toBe('my-agent/2');
    expect(seen?.headers.accept).toBe('application/vnd.api+json');
    expect(seen?.body).toBe('{"name":"tea"}');
  });

  it('answers HEAD without a body and refuses a body on GET', async () => {
    const server = await startServer((_req, res) => send(res, 200, 'text/plain', 'hello'));
    const head = await runWeb('http_request', { method: 'HEAD', url: server.url });
    expect(head.output).toMatch(/^HTTP 200 OK\n[\s\S]*\n\n\(no body\)$/);
    const withBody = await runWeb('http_request', { method: 'GET', url: server.url, body: 'x' });
    expect(withBody.output).toBe(
      '[ERROR] A GET request cannot have a body\nHint: use POST, PUT or PATCH to send a body',
    );
    const badMethod = await runWeb('http_request', { method: 'TRACE', url: server.url });
    expect(badMethod.output).toMatch(/^\[ERROR\] Invalid arguments for http_request: method:/);
    const badHeader = await runWeb('http_request', {
      method: 'GET',
      url: server.url,
      headers: { 'X-A': 'one\ntwo' },
    });
    expect(badHeader.output).toMatch(/^\[ERROR\] Invalid request header: /);
    expect(server.requests).toHaveLength(1);
  });

  it('turns POST into GET on 303 and keeps credentials on their own origin', async () => {
    const other = await startServer((req, res) => send(res, 200, 'text/plain', `other saw ${req.method}`));
    const server = await startServer((req, res) => {
      if (req.path === '/submit') return res.writeHead(303, { location: '/done' }).end();
      if (req.path === '/away') return res.writeHead(307, { location: `${other.url}/elsewhere` }).end();
      send(res, 200, 'text/plain', `done via ${req.method}`);
    });
    const posted = await runWeb('http_request', { method: 'POST', url: `${server.url}/submit`, body: 'a=1' });
    expect(posted.output).toMatch(/\n\ndone via GET$/);
    expect(server.requests[1]).toMatchObject({ method: 'GET', path: '/done', body: '' });

    const moved = await runWeb('http_request', {
      method: 'PUT',
      url: `${server.url}/away`,
      headers: { Authorization: 'Bearer t0ken' },
      body: 'payload',
    });
    expect(moved.output).toMatch(/\n\nother saw PUT$/);
    expect(server.requests[2]?.headers.authorization).toBe('Bearer t0ken');
    expect(other.requests[0]?.headers.authorization).toBeUndefined();
    expect(other.requests[0]?.body).toBe('payload');
  });

  it('never sends to other schemes', async () => {
    const r = await runWeb('http_request', { method: 'POST', url: 'file:///tmp/x', body: 'data' });
    expect(r.output).toMatch(/^\[ERROR\] Only http and https URLs are supported, not "file:"/);
  });
});
