/**
 * What the built `tea serve` refuses on `POST /v1/responses`: wrong types, unknown and
 * unsupported parameters, hosted tools, unknown previous_response_id, each
 * as an OpenAI-style error naming the parameter, with no model call. And CORS: the
 * preflight an official SDK's page sends (every x-stainless-* header, openai-*), a
 * foreign origin, no CORS unless enabled, and a real fetch from headless Chromium.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useTeaServe } from '../support/serve.js';
import { launchBrowser } from '../web/browser.js';

const tea = useTeaServe();

interface Case {
  name: string;
  body: Record<string, unknown>;
  status: number;
  param: string | null;
  code: string;
  message?: RegExp;
}

const USER = { role: 'user', content: 'hi' };

const CASES: Case[] = [
  { name: 'no input', body: { model: 'tea' }, status: 400, param: 'input', code: 'invalid_value' },
  { name: 'input a number', body: { input: 42 }, status: 400, param: 'input', code: 'invalid_value' },
  { name: 'empty input string', body: { input: '  ' }, status: 400, param: 'input', code: 'invalid_value' },
  { name: 'empty input list', body: { input: [] }, status: 400, param: 'input', code: 'invalid_value' },
  {
    name: 'stream not boolean',
    body: { input: 'x', stream: 'yes' },
    status: 400,
    param: 'stream',
    code: 'invalid_value',
  },
  {
    name: 'instructions a number',
    body: { input: 'x', instructions: 5 },
    status: 400,
    param: 'instructions',
    code: 'invalid_value',
  },
  {
    name: 'last item from the assistant',
    body: { input: [{ role: 'assistant', content: 'x' }] },
    status: 400,
    param: 'input.0.role',
    code: 'invalid_value',
  },
  {
    name: 'unknown role',
    body: { input: [{ role: 'robot', content: 'x' }] },
    status: 400,
    param: 'input.0.role',
    code: 'invalid_value',
  },
  {
    name: 'input_file part',
    body: { input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] },
    status: 400,
    param: 'input.0.content.0.type',
    code: 'unsupported_parameter',
  },
  {
    name: 'image by file id',
    body: { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1' }] }] },
    status: 400,
    param: 'input.0.content.0.file_id',
    code: 'unsupported_parameter',
  },
  {
    name: 'image from ftp',
    body: { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'ftp://x/y.png' }] }] },
    status: 400,
    param: 'input.0.content.0.image_url',
    code: 'invalid_value',
  },
  {
    name: 'output_text in a user message',
    body: { input: [{ role: 'user', content: [{ type: 'output_text', text: 'x' }] }] },
    status: 400,
    param: 'input.0.content.0.type',
    code: 'invalid_value',
  },
  {
    name: 'item_reference item',
    body: { input: [{ type: 'item_reference', id: 'msg_1' }, USER] },
    status: 400,
    param: 'input.0.type',
    code: 'unsupported_parameter',
  },
  {
    name: 'function_call_output for a call nobody waits for',
    body: { input: [{ type: 'function_call_output', call_id: 'c1', output: 'done' }] },
    status: 400,
    param: 'input.0.call_id',
    code: 'unknown_tool_call',
    message: /no tool call "c1" waits/,
  },
  {
    name: 'temperature out of range',
    body: { input: 'x', temperature: 3 },
    status: 400,
    param: 'temperature',
    code: 'invalid_value',
  },
  {
    name: 'top_p a string',
    body: { input: 'x', top_p: 'high' },
    status: 400,
    param: 'top_p',
    code: 'invalid_value',
  },
  {
    name: 'max_output_tokens zero',
    body: { input: 'x', max_output_tokens: 0 },
    status: 400,
    param: 'max_output_tokens',
    code: 'invalid_value',
  },
  {
    name: 'reasoning',
    body: { input: 'x', reasoning: { effort: 'high' } },
    status: 400,
    param: 'reasoning',
    code: 'unsupported_parameter',
  },
  {
    name: 'conversation',
    body: { input: 'x', conversation: 'conv_1' },
    status: 400,
    param: 'conversation',
    code: 'unsupported_parameter',
  },
  {
    name: 'an unknown parameter',
    body: { input: 'x', colour: 'red' },
    status: 400,
    param: 'colour',
    code: 'unknown_parameter',
  },
  {
    name: 'function tool without a name',
    body: { input: 'x', tools: [{ type: 'function', parameters: {} }] },
    status: 400,
    param: 'tools.0.name',
    code: 'invalid_value',
  },
  {
    name: 'web_search',
    body: { input: 'x', tools: [{ type: 'web_search' }] },
    status: 400,
    param: 'tools.0.type',
    code: 'unsupported_parameter',
    message: /web_search/,
  },
  {
    name: 'file_search after an empty tool',
    body: { input: 'x', tools: [{ type: 'file_search', vector_store_ids: ['vs'] }] },
    status: 400,
    param: 'tools.0.type',
    code: 'unsupported_parameter',
  },
  {
    name: 'tool_choice allowed_tools',
    body: { input: 'x', tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [] } },
    status: 400,
    param: 'tool_choice.type',
    code: 'unsupported_parameter',
  },
  {
    name: 'include encrypted reasoning',
    body: { input: 'x', include: ['reasoning.encrypted_content'] },
    status: 400,
    param: 'include.0',
    code: 'unsupported_parameter',
  },
  {
    name: 'json_schema text format without a schema',
    body: { input: 'x', text: { format: { type: 'json_schema', name: 'x' } } },
    status: 400,
    param: 'text.format.schema',
    code: 'invalid_value',
  },
  {
    name: 'background',
    body: { input: 'x', background: true },
    status: 400,
    param: 'background',
    code: 'unsupported_parameter',
  },
  {
    name: 'truncation disabled',
    body: { input: 'x', truncation: 'disabled' },
    status: 400,
    param: 'truncation',
    code: 'unsupported_parameter',
  },
  {
    name: 'if_busy unknown',
    body: { input: 'x', if_busy: 'later' },
    status: 400,
    param: 'if_busy',
    code: 'invalid_value',
  },
  {
    name: 'previous_response_id not ours',
    body: { input: 'x', previous_response_id: 'resp_123' },
    status: 404,
    param: 'previous_response_id',
    code: 'previous_response_not_found',
  },
  {
    name: 'previous_response_id of no session',
    body: {
      input: 'x',
      previous_response_id: `resp_${Buffer.from('no-such-session').toString('base64url')}.1.0123abcd`,
    },
    status: 404,
    param: 'previous_response_id',
    code: 'previous_response_not_found',
  },
  {
    name: 'previous_response_id and session_id',
    body: { input: 'x', previous_response_id: 'resp_1', session_id: 's' },
    status: 400,
    param: 'session_id',
    code: 'invalid_value',
  },
  {
    name: 'unknown session_id',
    body: { input: 'x', session_id: 'no-such' },
    status: 404,
    param: 'id',
    code: 'session_not_found',
  },
  {
    name: 'unknown model',
    body: { input: 'x', model: 'no-such-model' },
    status: 404,
    param: 'model',
    code: 'model_not_found',
  },
];

describe('POST /v1/responses refuses bad input', () => {
  it('each case is an OpenAI-style error naming the parameter, and no model call', async () => {
    const url = await tea.start();
    const got: Array<Record<string, unknown>> = [];
    for (const c of CASES) {
      const res = await fetch(`${url}/v1/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(c.body),
      });
      const body = (await res.json()) as {
        error: { message: string; param: string | null; code: string; type: string };
      };
      got.push({ name: c.name, status: res.status, param: body.error?.param, code: body.error?.code });
      if (c.message) expect(body.error.message, c.name).toMatch(c.message);
      expect(body.error.message.length, c.name).toBeGreaterThan(10);
    }
    expect(got).toEqual(CASES.map((c) => ({ name: c.name, status: c.status, param: c.param, code: c.code })));
    expect(tea.model.requests).toHaveLength(0);
  });

  it('accepts what the SDKs send by default (empty tools and include, tool_choice auto, nulls)', async () => {
    const url = await tea.start();
    tea.model.script(reply().text('fine'));
    const res = await fetch(`${url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'tea',
        input: [
          { role: 'developer', content: 'Answer shortly.' },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Earlier' }] },
          {
            type: 'message',
            role: 'assistant',
            id: 'msg_1',
            status: 'completed',
            content: [{ type: 'output_text', text: 'Earlier answer', annotations: [] }],
          },
          { type: 'reasoning', id: 'rs_1', summary: [] },
          { role: 'user', content: 'Now' },
        ],
        include: [],
        tools: [],
        tool_choice: 'auto',
        parallel_tool_calls: true,
        temperature: null,
        text: { format: { type: 'text' } },
        truncation: 'auto',
        store: true,
        metadata: { run: '7' },
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      metadata: Record<string, string>;
      output: Array<{ content: Array<{ text: string }> }>;
    };
    expect(body.metadata).toEqual({ run: '7' });
    expect(body.output.at(-1)!.content[0]!.text).toBe('fine');
    const sent = JSON.stringify(tea.model.requests[0]!.body.messages);
    for (const text of ['Answer shortly.', 'Earlier', 'Earlier answer', 'Now']) expect(sent).toContain(text);
  });
});

/** The headers the openai SDK sends (x-stainless-* and the rest), as a browser would ask to send them. */
const SDK_HEADERS = [
  'authorization',
  'content-type',
  'openai-organization',
  'openai-project',
  'openai-beta',
  'x-stainless-arch',
  'x-stainless-lang',
  'x-stainless-os',
  'x-stainless-package-version',
  'x-stainless-retry-count',
  'x-stainless-runtime',
  'x-stainless-runtime-version',
  'x-stainless-timeout',
  'x-stainless-helper-method',
  'x-stainless-poll-helper',
  'x-stainless-custom-poll-interval',
];

function preflight(url: string, origin: string, headers = SDK_HEADERS): Promise<Response> {
  return fetch(`${url}/v1/responses`, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': headers.join(','),
    },
  });
}

describe('CORS for the official SDKs', () => {
  let page: Server;
  let pageOrigin = '';
  beforeAll(async () => {
    page = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>client</title>');
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    pageOrigin = `http://127.0.0.1:${(page.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => page.close(() => resolve())));

  it('answers the preflight table: allowed headers, a foreign origin, CORS off', async () => {
    const url = await tea.start(['--cors', 'http://localhost:5173']);
    const ok = await preflight(url, 'http://localhost:5173');
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(ok.headers.get('access-control-allow-methods')).toContain('POST');
    const allowed = ok.headers.get('access-control-allow-headers')!.split(',');
    for (const h of SDK_HEADERS) expect(allowed, h).toContain(h);
    // Mixed case as some browsers send, and a header no SDK sends.
    const odd = await preflight(url, 'http://localhost:5173', ['X-Stainless-OS', 'x-evil-header']);
    const oddAllowed = odd.headers.get('access-control-allow-headers')!.split(',');
    expect(oddAllowed).toContain('x-stainless-os');
    expect(oddAllowed).not.toContain('x-evil-header');
    // A foreign origin gets no allow-origin (the browser refuses), and its POST is refused.
    const foreign = await preflight(url, 'http://evil.example');
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    const write = await fetch(`${url}/v1/responses`, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'x' }),
    });
    expect(write.status).toBe(403);
  });

  it('sends no CORS headers when CORS is not enabled', async () => {
    const url = await tea.start();
    const res = await preflight(url, 'http://localhost:5173');
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-allow-headers')).toBeNull();
  });

  it('a page of an allowed origin calls /v1/responses from headless Chromium with the SDK headers', async () => {
    const url = await tea.start(['--cors', pageOrigin]);
    tea.model.script(reply().text('Hello, browser'));
    const browser = await launchBrowser();
    try {
      const tab = await browser.newPage();
      await tab.goto(pageOrigin);
      const result = await tab.evaluate(
        async ({ url, headers }) => {
          const res = await fetch(`${url}/v1/responses`, {
            method: 'POST',
            headers,
            body: JSON.stringify({ model: 'tea', input: 'hi from a page' }),
          });
          const body = (await res.json()) as { output: Array<{ content: Array<{ text: string }> }> };
          return {
            status: res.status,
            text: body.output[0]!.content[0]!.text,
            session: res.headers.get('x-tea-session-id'),
            request: res.headers.get('x-request-id'),
          };
        },
        {
          url,
          headers: {
            authorization: 'Bearer sk-unused',
            'content-type': 'application/json',
            'openai-organization': 'org-1',
            'openai-project': 'proj-1',
            'x-stainless-lang': 'js',
            'x-stainless-os': 'Linux',
            'x-stainless-arch': 'x64',
            'x-stainless-package-version': '6.49.0',
            'x-stainless-runtime': 'browser:chrome',
            'x-stainless-runtime-version': '120',
            'x-stainless-retry-count': '0',
            'x-stainless-timeout': '600',
          },
        },
      );
      expect(result.status).toBe(200);
      expect(result.text).toBe('Hello, browser');
      expect(result.session).toBeTruthy();
      expect(result.request).toMatch(/^req_/);
    } finally {
      await browser.close();
    }
  });
});
