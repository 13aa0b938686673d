/**
 * What the built `tea serve` refuses about function tools on `POST /v1/responses`: bad
 * `tools` and `tool_choice` shapes, `function_call_output` items that answer no waiting
 * call, miss one, or repeat one; each a 400 naming the parameter, with no model call,
 * and the waiting turn still continues afterwards.
 */
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useTeaServe } from './serve.js';

const tea = useTeaServe();

interface Answer {
  id: string;
  session_id: string;
  error?: { message: string; param: string | null; code: string | null };
  output: { content: { text: string }[] }[];
}

async function post(body: Record<string, unknown>): Promise<{ status: number; body: Answer }> {
  const res = await fetch(`${tea.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tea', ...body }),
  });
  return { status: res.status, body: (await res.json()) as Answer };
}

const fn = (name: string, more: Record<string, unknown> = {}) => ({
  type: 'function',
  name,
  parameters: { type: 'object', properties: {} },
  ...more,
});
const out = (call_id: string, output: unknown = 'ok') => ({ type: 'function_call_output', call_id, output });

interface Case {
  name: string;
  body: Record<string, unknown>;
  param: string;
  code: string;
  message?: RegExp;
}

const SHAPES: Case[] = [
  {
    name: 'tool without a name',
    body: { tools: [{ type: 'function' }] },
    param: 'tools.0.name',
    code: 'invalid_value',
  },
  {
    name: "chat completions' nested tool",
    body: { tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] },
    param: 'tools.0.name',
    code: 'invalid_value',
    message: /flat/,
  },
  {
    name: 'name with a space',
    body: { tools: [fn('get weather')] },
    param: 'tools.0.name',
    code: 'invalid_value',
  },
  {
    name: 'parameters a string',
    body: { tools: [fn('f', { parameters: 'none' })] },
    param: 'tools.0.parameters',
    code: 'invalid_value',
  },
  {
    name: 'description a number',
    body: { tools: [fn('f', { description: 5 })] },
    param: 'tools.0.description',
    code: 'invalid_value',
  },
  {
    name: 'strict a string',
    body: { tools: [fn('f', { strict: 'yes' })] },
    param: 'tools.0.strict',
    code: 'invalid_value',
  },
  {
    name: 'two tools, one name',
    body: { tools: [fn('f'), fn('f')] },
    param: 'tools.1.name',
    code: 'duplicate_tool_name',
  },
  {
    name: "a name of Tea's own tools",
    body: { tools: [fn('read_file')] },
    param: 'tools.0.name',
    code: 'tool_name_collision',
  },
  {
    name: 'a hosted tool after a function',
    body: { tools: [fn('f'), { type: 'web_search_preview' }] },
    param: 'tools.1.type',
    code: 'unsupported_parameter',
  },
  { name: 'tool_choice any', body: { tool_choice: 'any' }, param: 'tool_choice', code: 'invalid_value' },
  { name: 'tool_choice a number', body: { tool_choice: 5 }, param: 'tool_choice', code: 'invalid_value' },
  {
    name: 'tool_choice function without a name',
    body: { tools: [fn('f')], tool_choice: { type: 'function' } },
    param: 'tool_choice.name',
    code: 'invalid_value',
  },
  {
    name: 'tool_choice naming no tool',
    body: { tools: [fn('f')], tool_choice: { type: 'function', name: 'g' } },
    param: 'tool_choice.name',
    code: 'unknown_tool',
  },
  {
    name: 'tool_choice a hosted tool',
    body: { tool_choice: { type: 'web_search_preview' } },
    param: 'tool_choice.type',
    code: 'unsupported_parameter',
  },
  {
    name: 'output for a call nobody waits for',
    body: { input: [out('call_nobody')] },
    param: 'input.0.call_id',
    code: 'unknown_tool_call',
    message: /any session/,
  },
  {
    name: 'output without call_id',
    body: { input: [{ type: 'function_call_output', output: 'x' }] },
    param: 'input.0.call_id',
    code: 'invalid_value',
  },
  { name: 'output a number', body: { input: [out('c', 5)] }, param: 'input.0.output', code: 'invalid_value' },
  {
    name: 'output with an image part',
    body: { input: [out('c', [{ type: 'input_image', image_url: 'https://x/y.png' }])] },
    param: 'input.0.output.0.type',
    code: 'unsupported_parameter',
  },
  {
    name: 'two outputs for one call',
    body: { input: [out('c'), out('c')] },
    param: 'input.1.call_id',
    code: 'invalid_value',
  },
];

describe('function tools on /v1/responses refuse bad input', () => {
  it('bad tools, tool_choice and function_call_output shapes: 400s naming the parameter, no model call', async () => {
    const got: unknown[] = [];
    for (const c of SHAPES) {
      const res = await post({ input: 'hi', ...c.body });
      got.push({
        name: c.name,
        status: res.status,
        param: res.body.error?.param,
        code: res.body.error?.code,
      });
      if (c.message) expect(res.body.error?.message, c.name).toMatch(c.message);
    }
    expect(got).toEqual(SHAPES.map((c) => ({ name: c.name, status: 400, param: c.param, code: c.code })));
    expect(tea.requests).toHaveLength(0);
  });

  it('outputs that miss a waiting call, answer another session, or come when nothing waits; then the real ones', async () => {
    tea.model.script(
      reply().toolCall('f', { n: 1 }, { id: 'call_1' }).toolCall('f', { n: 2 }, { id: 'call_2' }),
      reply().toolCall('f', {}, { id: 'call_other' }),
      reply().text('Plain answer.'),
    );
    const waiting = await post({ input: 'two calls', tools: [fn('f')] });
    const other = await post({ input: 'another', tools: [fn('f')] });
    const plain = await post({ input: 'no calls' });
    expect([waiting.status, other.status, plain.status]).toEqual([200, 200, 200]);
    const cases: Case[] = [
      {
        name: 'one of two outputs',
        body: { previous_response_id: waiting.body.id, input: [out('call_1')] },
        param: 'input',
        code: 'missing_tool_output',
        message: /call_2 \(f\)/,
      },
      {
        name: "another session's call",
        body: {
          previous_response_id: waiting.body.id,
          input: [out('call_1'), out('call_2'), out('call_other')],
        },
        param: 'input.2.call_id',
        code: 'unknown_tool_call',
        message: new RegExp(`in session ${waiting.body.session_id}`),
      },
      {
        name: 'nothing waits after that response',
        body: { previous_response_id: plain.body.id, input: [out('call_1')] },
        param: 'input.0.call_id',
        code: 'unknown_tool_call',
      },
      {
        name: 'session_id of a session that waits for other calls',
        body: { session_id: other.body.session_id, input: [out('call_1'), out('call_2')] },
        param: 'input.0.call_id',
        code: 'unknown_tool_call',
      },
    ];
    const got: unknown[] = [];
    for (const c of cases) {
      const res = await post(c.body);
      got.push({
        name: c.name,
        status: res.status,
        param: res.body.error?.param,
        code: res.body.error?.code,
      });
      if (c.message) expect(res.body.error?.message, c.name).toMatch(c.message);
    }
    expect(got).toEqual(cases.map((c) => ({ name: c.name, status: 400, param: c.param, code: c.code })));
    expect(tea.requests).toHaveLength(3);

    tea.model.script(reply().text('Both done.'));
    const done = await post({
      previous_response_id: waiting.body.id,
      input: [out('call_2', 'two'), out('call_1', 'one')],
    });
    expect(done.status).toBe(200);
    expect(done.body.output.at(-1)!.content[0]!.text).toBe('Both done.');
    const results = (tea.requests[3]!.messages as { role: string; tool_call_id?: string; content?: string }[])
      .filter((m) => m.role === 'tool')
      .map((m) => [m.tool_call_id, m.content]);
    expect(results).toEqual([
      ['call_1', 'one'],
      ['call_2', 'two'],
    ]);
  });
});
