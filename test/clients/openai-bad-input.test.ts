/**
 * What the chat-completions endpoint of the built `tea serve` refuses about client
 * tools, tool_choice, response_format and unsupported parameters: each a 4xx naming
 * the parameter, and (but for the failed answer) no model call.
 */
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useTeaServe } from './serve.js';

const tea = useTeaServe();

async function post(
  body: Record<string, unknown>,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${tea.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tea', ...body }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

const ask = [{ role: 'user', content: 'hi' }];
const fn = (name: string) => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: {} } },
});

const CASES: { name: string; body: Record<string, unknown>; status: number; param: string; code: string }[] =
  [
    { name: 'n = 2', body: { messages: ask, n: 2 }, status: 400, param: 'n', code: 'unsupported_parameter' },
    {
      name: 'logprobs',
      body: { messages: ask, logprobs: true },
      status: 400,
      param: 'logprobs',
      code: 'unsupported_parameter',
    },
    {
      name: 'audio',
      body: { messages: ask, audio: { voice: 'alloy', format: 'mp3' } },
      status: 400,
      param: 'audio',
      code: 'unsupported_parameter',
    },
    {
      name: 'prediction',
      body: { messages: ask, prediction: { type: 'content', content: 'x' } },
      status: 400,
      param: 'prediction',
      code: 'unsupported_parameter',
    },
    {
      name: 'an unknown parameter',
      body: { messages: ask, frobnicate: 1 },
      status: 400,
      param: 'frobnicate',
      code: 'unknown_parameter',
    },
    {
      name: 'tool_choice naming no tool',
      body: {
        messages: ask,
        tools: [fn('get_weather')],
        tool_choice: { type: 'function', function: { name: 'nope' } },
      },
      status: 400,
      param: 'tool_choice.function.name',
      code: 'unknown_tool',
    },
    {
      name: "a client tool named like one of Tea's",
      body: { messages: ask, tools: [fn('get_weather'), fn('read_file')] },
      status: 400,
      param: 'tools.1.function.name',
      code: 'tool_name_collision',
    },
    {
      name: 'two client tools with one name',
      body: { messages: ask, tools: [fn('a'), fn('a')] },
      status: 400,
      param: 'tools.1.function.name',
      code: 'duplicate_tool_name',
    },
    {
      name: 'a response_format schema that is not a JSON schema',
      body: {
        messages: ask,
        response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'banana' } } },
      },
      status: 400,
      param: 'response_format.json_schema.schema',
      code: 'invalid_schema',
    },
    {
      name: 'a tool message whose id no call waits for',
      body: {
        messages: [
          ...ask,
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: 'call_zz', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: 'call_zz', content: 'done' },
        ],
      },
      status: 400,
      param: 'messages.2.tool_call_id',
      code: 'unknown_tool_call',
    },
  ];

/** How many sessions the server has stored. */
async function sessionCount(): Promise<number> {
  const res = await fetch(`${tea.url}/v1/sessions?limit=100`);
  return ((await res.json()) as { data: unknown[] }).data.length;
}

/** Earlier messages: a session would be primed with them. */
const history = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'earlier' },
  { role: 'assistant', content: 'noted' },
];

describe('chat completions: refused client parameters', () => {
  for (const c of CASES) {
    it(`${c.name}: ${c.status} naming ${c.param}, no model call, no session`, async () => {
      const before = await sessionCount();
      const { status, json } = await post(c.body);
      expect(status).toBe(c.status);
      expect(json.error).toMatchObject({ param: c.param, code: c.code });
      expect(tea.requests).toHaveLength(0);
      expect(await sessionCount()).toBe(before);
      if (c.body.messages !== ask) return;
      // The same with earlier messages: no session primed with them either.
      const again = await post({ ...c.body, messages: [...history, ...ask] });
      expect(again.status).toBe(c.status);
      expect(again.json.error).toMatchObject({ param: c.param, code: c.code });
      expect(await sessionCount()).toBe(before);
    });
  }

  it('a request that is answered does store its session (the count above can change)', async () => {
    tea.model.script(reply().text('fine'));
    const before = await sessionCount();
    expect((await post({ messages: [...history, ...ask] })).status).toBe(200);
    expect(await sessionCount()).toBe(before + 1);
  });

  it('an answer that misses the schema after the repair round: 422 response_format_unmet', async () => {
    tea.model.script(reply().text('not json'), reply().text('{"a":"still not a number"}'));
    const schema = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'] };
    const { status, json } = await post({
      messages: ask,
      response_format: { type: 'json_schema', json_schema: { name: 'nums', schema, strict: true } },
    });
    expect(status).toBe(422);
    expect(json.error).toMatchObject({ param: 'response_format', code: 'response_format_unmet' });
    expect((json.error as { message: string }).message).toMatch(
      /after one repair round.*a: expected number/s,
    );
    expect(tea.requests).toHaveLength(2);
    for (const r of tea.requests)
      expect(r.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'nums' } });
  });

  it('the same failure streamed: an error event naming response_format', async () => {
    tea.model.script(reply().text('nope'), reply().text('nope again'));
    const res = await fetch(`${tea.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'tea',
        stream: true,
        messages: ask,
        response_format: { type: 'json_object' },
      }),
    });
    const text = await res.text();
    expect(text).toContain('"code":"response_format_unmet"');
    expect(text).toContain('"param":"response_format"');
  });

  it('a new user message on a session whose calls wait answers them with an error result first', async () => {
    tea.model.script(reply().toolCall('get_weather', {}, { id: 'call_w9' }), reply().text('ok'));
    const first = await post({ messages: ask, tools: [fn('get_weather')] });
    const sessionId = first.json.session_id as string;
    expect(first.json.choices).toMatchObject([{ finish_reason: 'tool_calls' }]);
    const next = await post({ session_id: sessionId, messages: [{ role: 'user', content: 'never mind' }] });
    expect(next.status).toBe(200);
    const sent = tea.requests[1]!.messages as { role: string; tool_call_id?: string; content?: string }[];
    const result = sent.find((m) => m.role === 'tool');
    expect(result).toMatchObject({ tool_call_id: 'call_w9' });
    expect(result!.content).toContain('The client sent no result');
    // The call no longer waits: its result now is an unknown call.
    const late = await post({
      session_id: sessionId,
      messages: [{ role: 'tool', tool_call_id: 'call_w9', content: 'x' }],
    });
    expect(late.status).toBe(400);
    expect(late.json.error).toMatchObject({ param: 'messages.0.tool_call_id' });
  });
});
