/**
 * Function tools on `POST /v1/responses` of the built `tea serve`, driven by the
 * official openai SDK (6.49): `function_call` output items (whole and through the
 * stream helper), `function_call_output` items continuing the same agent turn with
 * `previous_response_id` or as the whole conversation, Tea's own tools beside the
 * client's, `tool_choice`, and `store: false`; and the OpenAI Agents SDK's `run()` with
 * a `tool()` whose `execute` runs in this process (whole, streamed, chained).
 */
import { Agent, run, setDefaultOpenAIClient, setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { type WireMessage, wireText } from '../support/wire.js';
import { useTeaServe } from './serve.js';
import { weatherAgentTool } from './weather-tool.js';

const tea = useTeaServe();
/** The bodies the client sent to `/v1/responses`, newest last. */
const toTea: Record<string, unknown>[] = [];
const client = (): OpenAI =>
  new OpenAI({
    apiKey: 'none',
    baseURL: `${tea.url}/v1`,
    maxRetries: 0,
    fetch: (url, init) => {
      if (String(url).endsWith('/responses') && typeof init?.body === 'string')
        toTea.push(JSON.parse(init.body));
      return fetch(url, init);
    },
  });

const weather: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
};

const sessionOf = (r: unknown): string => (r as { session_id: string }).session_id;
const sent = (n: number): WireMessage[] => tea.requests[n]!.messages as WireMessage[];
const calls = (r: OpenAI.Responses.Response) =>
  r.output.filter((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call');

describe('function tools on /v1/responses (openai SDK)', () => {
  it('a function_call item, then function_call_output with previous_response_id continues the same turn', async () => {
    tea.model.script(
      reply().text('Let me check.').toolCall('get_weather', { city: 'Paris' }, { id: 'call_w1' }),
      reply().text('21 °C in Paris.'),
    );
    const first = await client().responses.create({
      model: 'tea',
      input: 'How warm is Paris?',
      tools: [weather],
    });
    expect(first.status).toBe('completed');
    expect(first.output.map((o) => o.type)).toEqual(['message', 'function_call']);
    expect(first.output_text).toBe('Let me check.');
    const [call] = calls(first);
    expect(call).toMatchObject({
      type: 'function_call',
      call_id: 'call_w1',
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
      status: 'completed',
    });
    expect(call!.id).toMatch(/^fc_/);
    expect(first.tools).toEqual([weather]);
    // The model was offered the client's tool beside Tea's.
    const offered = (tea.requests[0]!.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(offered).toEqual(expect.arrayContaining(['get_weather', 'read_file']));

    const second = await client().responses.create({
      model: 'tea',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'call_w1', output: '{"celsius":21}' }],
      tools: [weather],
    });
    expect(second.output_text).toBe('21 °C in Paris.');
    expect(second.output.map((o) => o.type)).toEqual(['message']);
    expect(sessionOf(second)).toBe(sessionOf(first));
    // The same turn went on: the call and its result, no second user message.
    const messages = sent(1);
    expect(messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_w1',
      content: '{"celsius":21}',
    });
    expect(messages.at(-2)!.tool_calls?.map((c) => c.id)).toEqual(['call_w1']);
    expect(messages.filter((m) => m.role === 'user').map(wireText)).toEqual(['How warm is Paris?']);
    expect(messages.filter((m) => m.role === 'tool')).toHaveLength(1);
  });

  it('the stream helper: function_call items arrive as added, arguments delta and done, item done, then completed', async () => {
    tea.model.script(
      reply()
        .toolCall('get_weather', { city: 'Lima' }, { id: 'call_s1' })
        .toolCall('get_weather', { city: 'Quito' }, { id: 'call_s2' }),
      reply().text('Both warm.'),
    );
    const stream = client().responses.stream({ model: 'tea', input: 'Lima and Quito?', tools: [weather] });
    const types: string[] = [];
    const snapshots: string[] = [];
    stream.on('event', (e) => types.push(e.type));
    stream.on('response.function_call_arguments.delta', (e) => snapshots.push(e.snapshot));
    const first = await stream.finalResponse();
    expect(calls(first).map((c) => [c.call_id, c.arguments, c.status])).toEqual([
      ['call_s1', '{"city":"Lima"}', 'completed'],
      ['call_s2', '{"city":"Quito"}', 'completed'],
    ]);
    expect(snapshots).toEqual(['{"city":"Lima"}', '{"city":"Quito"}']);
    const perCall = [
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
    ];
    expect(types).toEqual([
      'response.created',
      'response.in_progress',
      ...perCall,
      ...perCall,
      'response.completed',
    ]);

    // Outputs as lists of input_text parts, streamed too.
    const next = client().responses.stream({
      model: 'tea',
      previous_response_id: first.id,
      input: [
        { type: 'function_call_output', call_id: 'call_s1', output: [{ type: 'input_text', text: '25' }] },
        { type: 'function_call_output', call_id: 'call_s2', output: '22' },
      ],
      tools: [weather],
    });
    const deltas: string[] = [];
    next.on('response.output_text.delta', (e) => deltas.push(e.delta));
    const final = await next.finalResponse();
    expect(final.output_text).toBe('Both warm.');
    expect(deltas.join('')).toBe('Both warm.');
    expect(sessionOf(final)).toBe(sessionOf(first));
    const results = sent(1).filter((m) => m.role === 'tool');
    expect(results.map((m) => [m.tool_call_id, wireText(m)])).toEqual([
      ['call_s1', '25'],
      ['call_s2', '22'],
    ]);
  });

  it("Tea runs its own tool and stops for the client's one of the same model response", async () => {
    tea.model.script(
      reply()
        .toolCall('list_dir', { path: '.' }, { id: 'call_t1' })
        .toolCall('get_weather', { city: 'Rome' }, { id: 'call_c1' }),
      reply().text('Done.'),
    );
    const first = await client().responses.create({
      model: 'tea',
      input: 'List and weather',
      tools: [weather],
    });
    expect(calls(first).map((c) => c.call_id)).toEqual(['call_c1']);
    const second = await client().responses.create({
      model: 'tea',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'call_c1', output: 'sunny' }],
    });
    expect(second.output_text).toBe('Done.');
    expect(
      sent(1)
        .filter((m) => m.role === 'tool')
        .map((m) => m.tool_call_id),
    ).toEqual(['call_t1', 'call_c1']);
  });

  it('the whole conversation without previous_response_id continues the session that waits for the call', async () => {
    tea.model.script(
      reply().toolCall('get_weather', { city: 'Oslo' }, { id: 'call_o1' }),
      reply().text('Oslo: -3 °C.'),
    );
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'And Oslo?' }];
    const first = await client().responses.create({ model: 'tea', input, tools: [weather] });
    input.push(...(first.output as OpenAI.Responses.ResponseInputItem[]), {
      type: 'function_call_output',
      call_id: 'call_o1',
      output: '{"celsius":-3}',
    });
    const second = await client().responses.create({ model: 'tea', input, tools: [weather] });
    expect(second.output_text).toBe('Oslo: -3 °C.');
    expect(sessionOf(second)).toBe(sessionOf(first));
    expect(sent(1).filter((m) => m.role === 'user')).toHaveLength(1);
    expect(sent(1).at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_o1',
      content: '{"celsius":-3}',
    });
  });

  it('tool_choice required and a named function reach the model on the first call', async () => {
    tea.model.script(
      reply().toolCall('get_weather', { city: 'Bern' }, { id: 'call_r1' }),
      reply().toolCall('get_weather', { city: 'Chur' }, { id: 'call_n1' }),
    );
    const required = await client().responses.create({
      model: 'tea',
      input: 'Weather?',
      tools: [weather],
      tool_choice: 'required',
    });
    expect(required.tool_choice).toBe('required');
    expect(tea.requests[0]!.tool_choice).toBe('required');
    const named = await client().responses.create({
      model: 'tea',
      input: 'Weather in Chur?',
      tools: [weather],
      tool_choice: { type: 'function', name: 'get_weather' },
      parallel_tool_calls: false,
    });
    expect(calls(named).map((c) => c.call_id)).toEqual(['call_n1']);
    expect(named.parallel_tool_calls).toBe(false);
    expect(tea.requests[1]!.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
  });

  it('store: false keeps the session while its calls wait, and drops it after the turn ends', async () => {
    tea.model.script(
      reply().toolCall('get_weather', { city: 'Nice' }, { id: 'call_e1' }),
      reply().text('Nice is nice.'),
    );
    const first = await client().responses.create({
      model: 'tea',
      input: 'Nice?',
      tools: [weather],
      store: false,
    });
    const session = sessionOf(first);
    expect((await fetch(`${tea.url}/v1/sessions/${session}`)).status).toBe(200);
    const second = await client().responses.create({
      model: 'tea',
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'call_e1', output: 'warm' }],
      store: false,
    });
    expect(second.output_text).toBe('Nice is nice.');
    expect(sessionOf(second)).toBe(session);
    expect((await fetch(`${tea.url}/v1/sessions/${session}`)).status).toBe(404);
  });
});

describe('OpenAI Agents SDK 0.13 with a function tool, on its default Responses API', () => {
  const agentWithTool = (ran: unknown[]): Agent =>
    new Agent({
      name: 'forecaster',
      instructions: 'You forecast.',
      model: 'tea',
      tools: [weatherAgentTool(ran)],
    });

  it('run() executes the tool in this process and its result reaches the model in the same turn', async () => {
    setTracingDisabled(true);
    setDefaultOpenAIClient(client());
    tea.model.script(
      reply().toolCall('get_weather', { city: 'Riga' }, { id: 'call_a1' }),
      reply().text('Riga is mild.'),
    );
    const ran: unknown[] = [];
    const result = await run(agentWithTool(ran), 'Weather in Riga?');
    expect(result.finalOutput).toBe('Riga is mild.');
    expect(ran).toEqual(['Riga']);
    expect(tea.requests).toHaveLength(2);
    const messages = sent(1);
    expect(messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_a1', content: 'Riga: 19 C' });
    expect(messages.filter((m) => m.role === 'user').map(wireText)).toEqual(['Weather in Riga?']);
    expect(wireText(messages[0]!)).toContain('You forecast.');
    // The SDK sent the whole conversation the second time (no previous_response_id).
    const again = toTea.at(-1)!;
    expect(again.previous_response_id).toBeUndefined();
    expect((again.input as { type?: string }[]).map((i) => i.type ?? 'message')).toEqual([
      'message',
      'function_call',
      'function_call_output',
    ]);
  });

  it('a streamed run does the same', async () => {
    setDefaultOpenAIClient(client());
    tea.model.script(
      reply().toolCall('get_weather', { city: 'Kyiv' }, { id: 'call_a2' }),
      reply().text('Kyiv is cool.'),
    );
    const ran: unknown[] = [];
    const streamed = await run(agentWithTool(ran), 'Weather in Kyiv?', { stream: true });
    const text: string[] = [];
    for await (const t of streamed.toTextStream()) text.push(t);
    await streamed.completed;
    expect(streamed.finalOutput).toBe('Kyiv is cool.');
    expect(text.join('')).toBe('Kyiv is cool.');
    expect(ran).toEqual(['Kyiv']);
    expect(sent(1).at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_a2', content: 'Kyiv: 19 C' });
    expect(sent(1).filter((m) => m.role === 'user')).toHaveLength(1);
  });

  it('a run chained with previousResponseId sends only the outputs; the turn goes on', async () => {
    setDefaultOpenAIClient(client());
    tea.model.script(
      reply().text('Hello.'),
      reply().toolCall('get_weather', { city: 'Tartu' }, { id: 'call_a3' }),
      reply().text('Tartu is fine.'),
    );
    const ran: unknown[] = [];
    const agent = agentWithTool(ran);
    const first = await run(agent, 'Hi');
    const second = await run(agent, 'Weather in Tartu?', { previousResponseId: first.lastResponseId });
    expect(second.finalOutput).toBe('Tartu is fine.');
    expect(ran).toEqual(['Tartu']);
    const users = sent(2)
      .filter((m) => m.role === 'user')
      .map(wireText);
    expect(users).toEqual(['Hi', 'Weather in Tartu?']);
    // Chained: the outputs alone, after the response that asked for them (not the first run's).
    const [asked, outputs] = toTea.slice(-2);
    expect(asked!.previous_response_id).toBe(first.lastResponseId);
    expect(outputs!.previous_response_id).not.toBe(first.lastResponseId);
    expect(outputs!.previous_response_id).toMatch(/^resp_/);
    expect((outputs!.input as { type: string }[]).map((i) => i.type)).toEqual(['function_call_output']);
    expect(sent(2).at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_a3', content: 'Tartu: 19 C' });
  });
});
