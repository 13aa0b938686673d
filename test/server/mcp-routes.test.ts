/**
 * The web MCP panel's routes against the real `tea serve` with server-everything:
 * a client's mistake (unknown prompt, missing required argument, unknown resource)
 * is a 400 or 404 naming it in an OpenAI-style error body; what works answers 200.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVERYTHING_JS } from '../tools/mcp/peers.js';
import { startTeaServer, type TeaServer } from '../web/serve.js';

let srv: TeaServer;
beforeAll(async () => {
  srv = await startTeaServer([], {
    extraConfig: `mcp_servers:\n  everything: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(EVERYTHING_JS)}, stdio] }\n  ghost: { command: /nonexistent/tea-no-such-mcp-server }\n`,
  });
});
afterAll(() => srv?.close());

interface ApiError {
  error: { message: string; type: string; param: string | null; code: string };
}

async function call(method: string, p: string, body?: unknown) {
  const res = await fetch(`${srv.url}${p}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-tea-client': 'test' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const prompt = (name: string) => `/v1/mcp/servers/everything/prompts/${encodeURIComponent(name)}`;
const resource = (uri: string) => `/v1/mcp/servers/everything/resource?uri=${encodeURIComponent(uri)}`;

describe('MCP routes: client mistakes are 4xx naming what is wrong', () => {
  const cases: Array<[string, string, string, unknown, number, string | null, string, string]> = [
    [
      'a required argument left out',
      'POST',
      prompt('args-prompt'),
      { arguments: { state: 'Oregon' } },
      400,
      'arguments.city',
      'missing_prompt_argument',
      'prompt "args-prompt" needs "city" (arguments: city, state)',
    ],
    [
      'a required argument sent empty',
      'POST',
      prompt('args-prompt'),
      { arguments: { city: '  ' } },
      400,
      'arguments.city',
      'missing_prompt_argument',
      'needs "city"',
    ],
    [
      'an unknown prompt',
      'POST',
      prompt('nosuch'),
      {},
      404,
      'prompt',
      'mcp_prompt_not_found',
      'MCP server "everything" has no prompt "nosuch"; its prompts: ',
    ],
    [
      'an unknown resource URI',
      'GET',
      resource('demo://nowhere/at/all'),
      undefined,
      404,
      'uri',
      'mcp_resource_not_found',
      'demo://nowhere/at/all',
    ],
    [
      'an unknown server',
      'GET',
      '/v1/mcp/servers/nope/resource?uri=x%3A%2F%2Fy',
      undefined,
      404,
      'name',
      'mcp_server_not_found',
      'no MCP server named "nope"; configured: everything, ghost',
    ],
  ];
  it.each(cases)('%s', async (_what, method, p, body, status, param, code, message) => {
    const res = await call(method, p, body);
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    const { error } = res.body as unknown as ApiError;
    expect(error).toMatchObject({ type: 'invalid_request_error', param, code });
    expect(error.message).toContain(message);
    expect(error.message).not.toMatch(/MCP error -32602: MCP error/);
  });

  it('a server that fails is still a 502 naming it', async () => {
    const res = await call('POST', '/v1/mcp/servers/ghost/prompts/any', {});
    expect(res.status).toBe(502);
    const { error } = res.body as unknown as ApiError;
    expect(error).toMatchObject({ type: 'server_error', code: 'mcp_server_error' });
    expect(error.message).toContain('MCP server "ghost"');
  });

  it('what is right still answers: a filled-in prompt and a resource', async () => {
    const filled = await call('POST', prompt('args-prompt'), { arguments: { city: 'Portland' } });
    expect(filled).toMatchObject({ status: 200, body: { text: "What's weather in Portland?" } });
    const list = await call('GET', '/v1/mcp/servers');
    const servers = list.body.data as Array<{ name: string; resources: Array<{ uri: string }> }>;
    const everything = servers.find((s) => s.name === 'everything')!;
    const uri = everything.resources[0]!.uri;
    const read = await call('GET', resource(uri));
    expect(read.status).toBe(200);
    expect(read.body.uri).toBe(uri);
  });
});
