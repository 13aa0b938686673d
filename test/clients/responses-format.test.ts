/**
 * Structured output on `POST /v1/responses` of the built `tea serve` (`text.format`
 * json_schema and json_object), driven by the official openai SDK (6.49):
 * `responses.parse()` with `zodTextFormat` and `responses.stream()`, the schema
 * reaching the model, the repair round and the 422 (whole) / `response.failed`
 * (streamed) when the answer still misses it, with function tools in the same request;
 * and the OpenAI Agents SDK's `run()` with an `outputType`, alone and beside a tool.
 */
import { Agent, run, setDefaultOpenAIClient, setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';
import { zodTextFormat } from 'openai/helpers/zod';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { reply } from '../support/script.js';
import { type WireMessage, wireText } from '../support/wire.js';
import { useTeaServe } from './serve.js';
import { weatherAgentTool } from './weather-tool.js';

const tea = useTeaServe();
const client = (): OpenAI => new OpenAI({ apiKey: 'none', baseURL: `${tea.url}/v1`, maxRetries: 0 });

const Weather = z.object({ city: z.string(), celsius: z.number() });
const weatherFormat = zodTextFormat(Weather, 'weather');

const weatherTool: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

/** The response format the scripted model got with request `n`. */
const formatSent = (n: number) => tea.requests[n]!.response_format as Record<string, unknown> | undefined;
const messagesSent = (n: number) => tea.requests[n]!.messages as WireMessage[];
const sessionOf = (r: unknown): string => (r as { session_id: string }).session_id;

async function post(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${tea.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'tea', ...body }),
  });
}

/** The SSE events of a streamed response, in order. */
async function events(res: Response): Promise<Record<string, unknown>[]> {
  return (await res.text())
    .split('\n\n')
    .map((frame) => frame.split('\n').find((l) => l.startsWith('data: ')))
    .filter((l): l is string => l !== undefined)
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

describe('text.format on /v1/responses (openai SDK)', () => {
  it('parse() with zodTextFormat: output_parsed, the text echoed, the schema sent to the model', async () => {
    tea.model.script(reply().text('{"city":"Paris","celsius":21}'));
    const done = await client().responses.parse({
      model: 'tea',
      input: 'Weather in Paris as JSON',
      text: { format: weatherFormat },
    });
    expect(done.status).toBe('completed');
    expect(done.output_parsed).toEqual({ city: 'Paris', celsius: 21 });
    expect(done.output_text).toBe('{"city":"Paris","celsius":21}');
    expect(done.text).toEqual({
      format: {
        type: 'json_schema',
        name: 'weather',
        schema: weatherFormat.schema,
        description: null,
        strict: true,
      },
    });
    const kept = await client().responses.retrieve(done.id);
    expect(kept.text).toEqual(done.text);
    expect(tea.requests).toHaveLength(1);
    expect(formatSent(0)).toEqual({
      type: 'json_schema',
      json_schema: { name: 'weather', schema: weatherFormat.schema, strict: true },
    });
  });

  it('streamed: one text delta, the checked answer; a refused first answer and the repair stay out', async () => {
    tea.model.script(
      reply().thinking('Recall Bern.').text('Sure! It is 12 degrees in Bern.'),
      reply().text('```json\n{"city":"Bern","celsius":12}\n```'),
    );
    const stream = client().responses.stream({
      model: 'tea',
      input: 'Weather in Bern',
      text: { format: weatherFormat },
    });
    const types: string[] = [];
    const deltas: string[] = [];
    stream.on('event', (e) => types.push(e.type));
    stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
    const done = await stream.finalResponse();
    expect(done.output_parsed).toEqual({ city: 'Bern', celsius: 12 });
    // The fenced answer goes out as its JSON alone.
    expect(deltas).toEqual(['{"city":"Bern","celsius":12}']);
    expect(done.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
    expect(types.filter((t) => t === 'response.output_item.added')).toHaveLength(2);
    expect(types.at(-1)).toBe('response.completed');
    expect(tea.requests).toHaveLength(2);
    expect(formatSent(1)).toMatchObject({ type: 'json_schema', json_schema: { name: 'weather' } });
    expect(wireText(messagesSent(1).at(-1)!)).toContain('must be JSON matching the output schema');
  });

  it('a repair round for invalid JSON, then one for the wrong shape is too many: 422 response_format_unmet', async () => {
    tea.model.script(
      reply().text('{"city": "Rome", celsius: 20'),
      reply().text('{"city":"Rome","celsius":20}'),
    );
    const repaired = await client().responses.parse({
      model: 'tea',
      input: 'Weather in Rome',
      text: { format: weatherFormat },
    });
    expect(repaired.output_parsed).toEqual({ city: 'Rome', celsius: 20 });
    expect(wireText(messagesSent(1).at(-1)!)).toMatch(/not valid JSON/);

    tea.model.script(reply().text('{"city":"Rome"}'), reply().text('{"city":"Rome","celsius":"warm"}'));
    const res = await post({ input: 'Weather in Rome again', text: { format: weatherFormat } });
    expect(res.status).toBe(422);
    const { error } = (await res.json()) as { error: Record<string, unknown> };
    expect(error).toMatchObject({ code: 'response_format_unmet', param: 'text.format' });
    expect(error.message).toMatch(/does not match text\.format after one repair round.*celsius/s);
    // Both model calls carried the schema; the repair named what was missing.
    expect(tea.requests).toHaveLength(4);
    expect(formatSent(2)).toMatchObject({ type: 'json_schema' });
    expect(formatSent(3)).toMatchObject({ type: 'json_schema' });
    expect(wireText(messagesSent(3).at(-1)!)).toMatch(/celsius/);
  });

  it('streamed, an answer still wrong after the repair ends with response.failed, no text, then an error event', async () => {
    tea.model.script(reply().text('twelve degrees'), reply().text('still twelve degrees'));
    const res = await post({ input: 'Weather in Bern', stream: true, text: { format: weatherFormat } });
    expect(res.status).toBe(200);
    const list = await events(res);
    expect(list.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.failed',
      'error',
    ]);
    const failed = list.at(-2)!.response as { status: string; error: Record<string, unknown>; output: [] };
    expect(failed.status).toBe('failed');
    expect(failed.error.code).toBe('response_format_unmet');
    expect(failed.error.message).toMatch(/after one repair round/);
    expect(failed.output).toEqual([]);
    // The error event, in both shapes clients read: its own fields and an `error` object.
    const error = list.at(-1)!;
    expect(error).toMatchObject({ code: 'response_format_unmet', param: 'text.format' });
    expect(error.error).toMatchObject({
      type: 'invalid_request_error',
      code: 'response_format_unmet',
      param: 'text.format',
    });
    expect(error.sequence_number).toBe(3);
  });

  it('json_object: the model gets it; an answer that is no object is repaired', async () => {
    tea.model.script(reply().text('[1, 2]'), reply().text('{"items":[1,2]}'));
    const res = await post({ input: 'Two numbers as JSON', text: { format: { type: 'json_object' } } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as OpenAI.Responses.Response;
    expect(body.text).toEqual({ format: { type: 'json_object' } });
    expect(body.output).toHaveLength(1);
    expect((body.output[0] as OpenAI.Responses.ResponseOutputMessage).content[0]).toMatchObject({
      text: '{"items":[1,2]}',
    });
    expect(formatSent(0)).toEqual({ type: 'json_object' });
    expect(tea.requests).toHaveLength(2);
  });

  it('with a function tool: function_call items only, then the output continues to the structured answer', async () => {
    tea.model.script(
      reply().text('Let me check.').toolCall('get_weather', { city: 'Oslo' }, { id: 'call_f1' }),
      reply().text('{"city":"Oslo","celsius":-3}'),
    );
    const first = await client().responses.parse({
      model: 'tea',
      input: 'Weather in Oslo',
      tools: [weatherTool],
      text: { format: weatherFormat },
    });
    // The text beside the call is not the answer: parse() would choke on it.
    expect(first.output.map((o) => o.type)).toEqual(['function_call']);
    expect(first.output_parsed).toBeNull();
    expect(formatSent(0)).toMatchObject({ type: 'json_schema' });
    const second = await client().responses.parse({
      model: 'tea',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'call_f1', output: '-3' }],
      tools: [weatherTool],
      text: { format: weatherFormat },
    });
    expect(second.output_parsed).toEqual({ city: 'Oslo', celsius: -3 });
    expect(sessionOf(second)).toBe(sessionOf(first));
    expect(messagesSent(1).at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_f1', content: '-3' });
    expect(formatSent(1)).toMatchObject({ type: 'json_schema', json_schema: { name: 'weather' } });
  });
});

const Forecast = z.object({ city: z.string(), summary: z.string() });

describe('OpenAI Agents SDK 0.13 with outputType, on its default Responses API', () => {
  it('run() ends with finalOutput as the parsed object', async () => {
    setTracingDisabled(true);
    setDefaultOpenAIClient(client());
    tea.model.script(reply().text('{"city":"Riga","summary":"mild"}'));
    const agent = new Agent({ name: 'forecaster', model: 'tea', outputType: Forecast });
    const result = await run(agent, 'Forecast for Riga');
    expect(result.finalOutput).toEqual({ city: 'Riga', summary: 'mild' });
    expect(formatSent(0)).toMatchObject({ type: 'json_schema', json_schema: { name: 'output' } });
  });

  it('a streamed run: the text stream is the checked JSON alone, after a repair round', async () => {
    setDefaultOpenAIClient(client());
    tea.model.script(reply().text('Riga: mild.'), reply().text('{"city":"Riga","summary":"mild"}'));
    const agent = new Agent({ name: 'forecaster', model: 'tea', outputType: Forecast });
    const streamed = await run(agent, 'Forecast for Riga', { stream: true });
    const text: string[] = [];
    for await (const t of streamed.toTextStream()) text.push(t);
    await streamed.completed;
    expect(text.join('')).toBe('{"city":"Riga","summary":"mild"}');
    expect(streamed.finalOutput).toEqual({ city: 'Riga', summary: 'mild' });
    expect(tea.requests).toHaveLength(2);
  });

  it('with a function tool: the tool runs in this process, then the structured final answer', async () => {
    setDefaultOpenAIClient(client());
    tea.model.script(
      reply().toolCall('get_weather', { city: 'Kyiv' }, { id: 'call_g1' }),
      reply().text('{"city":"Kyiv","summary":"cool, 9 C"}'),
    );
    const ran: string[] = [];
    const agent = new Agent({
      name: 'forecaster',
      model: 'tea',
      outputType: Forecast,
      tools: [weatherAgentTool(ran, 9)],
    });
    const result = await run(agent, 'Forecast for Kyiv');
    expect(result.finalOutput).toEqual({ city: 'Kyiv', summary: 'cool, 9 C' });
    expect(ran).toEqual(['Kyiv']);
    expect(tea.requests).toHaveLength(2);
    expect(messagesSent(1).at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_g1',
      content: 'Kyiv: 9 C',
    });
    for (const n of [0, 1]) expect(formatSent(n)).toMatchObject({ type: 'json_schema' });
  });
});

const BAD: { name: string; text: unknown; param: string; code: string }[] = [
  { name: 'format not an object', text: { format: 'json' }, param: 'text.format', code: 'invalid_value' },
  {
    name: 'unknown type',
    text: { format: { type: 'grammar' } },
    param: 'text.format.type',
    code: 'invalid_value',
  },
  {
    name: 'json_schema without a name',
    text: { format: { type: 'json_schema', schema: { type: 'object' } } },
    param: 'text.format.name',
    code: 'invalid_value',
  },
  {
    name: 'a name with a space',
    text: { format: { type: 'json_schema', name: 'my format', schema: { type: 'object' } } },
    param: 'text.format.name',
    code: 'invalid_value',
  },
  {
    name: 'schema not an object',
    text: { format: { type: 'json_schema', name: 'f', schema: 'object' } },
    param: 'text.format.schema',
    code: 'invalid_value',
  },
  {
    name: 'a schema zod cannot use',
    text: { format: { type: 'json_schema', name: 'f', schema: { type: 'no-such-type' } } },
    param: 'text.format.schema',
    code: 'invalid_schema',
  },
  {
    name: 'strict not a boolean',
    text: { format: { type: 'json_schema', name: 'f', schema: {}, strict: 'yes' } },
    param: 'text.format.strict',
    code: 'invalid_value',
  },
  {
    name: "chat completions' nested json_schema",
    text: { format: { type: 'json_schema', json_schema: { name: 'f', schema: {} } } },
    param: 'text.format.json_schema',
    code: 'unknown_parameter',
  },
  {
    name: 'json_object with a schema',
    text: { format: { type: 'json_object', schema: {} } },
    param: 'text.format.schema',
    code: 'unknown_parameter',
  },
  { name: 'verbosity', text: { verbosity: 'low' }, param: 'text.verbosity', code: 'unsupported_parameter' },
  { name: 'unknown text key', text: { style: 'x' }, param: 'text.style', code: 'unknown_parameter' },
];

describe('bad text.format shapes', () => {
  it('each is a 400 naming text.format.<key>, with no model call', async () => {
    const got: Record<string, unknown>[] = [];
    for (const c of BAD) {
      const res = await post({ input: 'x', text: c.text });
      const { error } = (await res.json()) as { error: { param: string; code: string; message: string } };
      got.push({ name: c.name, status: res.status, param: error.param, code: error.code });
      expect(error.message.length, c.name).toBeGreaterThan(10);
    }
    expect(got).toEqual(BAD.map((c) => ({ name: c.name, status: 400, param: c.param, code: c.code })));
    expect(tea.requests).toHaveLength(0);
  });
});
