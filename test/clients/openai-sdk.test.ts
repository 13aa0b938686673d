/**
 * The official `openai` SDK (6.49) against the built `tea serve`: structured output
 * with `chat.completions.parse()` + `zodResponseFormat`, and client tools, whole and
 * streamed, with `runTools()` and a manual loop.
 */
import OpenAI from 'openai';
import { zodFunction, zodResponseFormat } from 'openai/helpers/zod';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { reply } from '../support/script.js';
import { useTeaServe } from './serve.js';

const tea = useTeaServe();
const client = (): OpenAI => new OpenAI({ apiKey: 'none', baseURL: `${tea.url}/v1`, maxRetries: 0 });

const Weather = z.object({ city: z.string(), celsius: z.number() });
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'The weather in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

type Msgs = OpenAI.Chat.Completions.ChatCompletionMessageParam[];

describe('openai SDK 6.49 against tea serve', () => {
  it('parse() with zodResponseFormat returns the parsed object; the model got response_format', async () => {
    tea.model.script(reply().text('{"city":"Paris","celsius":21}'));
    const done = await client().chat.completions.parse({
      model: 'tea',
      messages: [{ role: 'user', content: 'Weather in Paris as JSON' }],
      response_format: zodResponseFormat(Weather, 'weather'),
    });
    expect(done.choices[0]!.message.parsed).toEqual({ city: 'Paris', celsius: 21 });
    const sent = tea.requests.at(-1)!;
    expect(sent.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'weather', strict: true },
    });
  });

  it('repairs an answer that misses the schema once, then parses it', async () => {
    tea.model.script(
      reply().text('It is 21 degrees in Paris.'),
      reply().text('```json\n{"city":"Paris","celsius":21}\n```'),
    );
    const done = await client().chat.completions.parse({
      model: 'tea',
      messages: [{ role: 'user', content: 'Weather in Paris' }],
      response_format: zodResponseFormat(Weather, 'weather'),
    });
    expect(done.choices[0]!.message.parsed).toEqual({ city: 'Paris', celsius: 21 });
    expect(tea.requests).toHaveLength(2);
    const repair = JSON.stringify(tea.requests[1]!.messages);
    expect(repair).toContain('must be JSON matching the output schema');
    expect(tea.requests[1]!.response_format).toBeDefined();
  });

  it('a manual tool loop: tool_calls with finish_reason tool_calls, then role tool continues the same turn', async () => {
    tea.model.script(
      reply().text('Let me check.').toolCall('get_weather', { city: 'Paris' }, { id: 'call_w1' }),
      reply().text('21 °C in Paris.'),
    );
    const messages: Msgs = [{ role: 'user', content: 'How warm is Paris?' }];
    const first = await client().chat.completions.create({
      model: 'tea',
      messages,
      tools: [weatherTool],
      tool_choice: 'auto',
    });
    const choice = first.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    const call = choice.message.tool_calls![0]!;
    expect(call).toMatchObject({ id: 'call_w1', type: 'function', function: { name: 'get_weather' } });
    expect(JSON.parse((call as { function: { arguments: string } }).function.arguments)).toEqual({
      city: 'Paris',
    });
    // The model was offered the client's tool beside Tea's, with the tool choice.
    const offered = (tea.requests[0]!.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(offered).toContain('get_weather');
    expect(offered).toContain('read_file');
    expect(tea.requests[0]!.tool_choice).toBe('auto');

    messages.push(choice.message, { role: 'tool', tool_call_id: call.id, content: '{"celsius":21}' });
    const second = await client().chat.completions.create({ model: 'tea', messages, tools: [weatherTool] });
    expect(second.choices[0]!.message.content).toBe('21 °C in Paris.');
    expect(second.choices[0]!.finish_reason).toBe('stop');
    const sessionOf = (r: unknown) => (r as { session_id: string }).session_id;
    expect(sessionOf(second)).toBe(sessionOf(first));
    // The continued turn: the model got the call and its result, and no new user message.
    const sent = tea.requests[1]!.messages as { role: string; content?: unknown; tool_call_id?: string }[];
    expect(sent.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_w1', content: '{"celsius":21}' });
    expect(sent.filter((m) => m.role === 'user')).toHaveLength(1);
    // One result for the call: recovery left the waiting call to the client.
    expect(sent.filter((m) => m.role === 'tool')).toHaveLength(1);
  });

  it('runTools() runs the client tool and ends with the answer (streamed)', async () => {
    tea.model.script(
      reply().toolCall('get_weather', { city: 'Oslo' }, { id: 'call_o1' }),
      reply().text('Oslo: -3 °C.'),
    );
    let ran: unknown;
    const runner = client().chat.completions.runTools({
      model: 'tea',
      stream: true,
      messages: [{ role: 'user', content: 'And Oslo?' }],
      tools: [
        zodFunction({
          name: 'get_weather',
          parameters: z.object({ city: z.string() }),
          function: (args: { city: string }) => {
            ran = args;
            return { celsius: -3 };
          },
        }),
      ],
    });
    expect(await runner.finalContent()).toBe('Oslo: -3 °C.');
    expect(ran).toEqual({ city: 'Oslo' });
    const last = tea.requests.at(-1)!.messages as { role: string; content?: unknown }[];
    expect(last.at(-1)).toMatchObject({ role: 'tool', content: '{"celsius":-3}' });
  });

  it('Tea runs its own tool and then stops for the client tool the same response asked for', async () => {
    tea.model.script(
      reply()
        .toolCall('list_dir', { path: '.' }, { id: 'call_t1' })
        .toolCall('get_weather', { city: 'Rome' }, { id: 'call_c1' }),
      reply().text('Done.'),
    );
    const messages: Msgs = [{ role: 'user', content: 'List and weather' }];
    const first = await client().chat.completions.create({ model: 'tea', messages, tools: [weatherTool] });
    const calls = first.choices[0]!.message.tool_calls!;
    expect(calls.map((c) => c.id)).toEqual(['call_c1']);
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: 'call_c1', content: 'sunny' });
    const second = await client().chat.completions.create({ model: 'tea', messages, tools: [weatherTool] });
    expect(second.choices[0]!.message.content).toBe('Done.');
    const sent = tea.requests[1]!.messages as { role: string; tool_call_id?: string }[];
    expect(sent.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['call_t1', 'call_c1']);
  });
});

describe('streamed tool calls on the wire', () => {
  it('a first delta with index, id, type and name, then the arguments; finish_reason tool_calls; session_id continues', async () => {
    tea.model.script(
      reply()
        .toolCall('get_weather', { city: 'Lima' }, { id: 'call_s1' })
        .toolCall('get_weather', { city: 'Quito' }, { id: 'call_s2' }),
      reply().text('Both warm.'),
    );
    const res = await fetch(`${tea.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'tea',
        stream: true,
        messages: [{ role: 'user', content: 'Lima and Quito?' }],
        tools: [weatherTool],
      }),
    });
    const chunks = (await res.text())
      .split('\n\n')
      .filter((f) => f.startsWith('data: {'))
      .map(
        (f) =>
          JSON.parse(f.slice(6)) as {
            session_id: string;
            choices: { delta: Record<string, unknown>; finish_reason: string | null }[];
          },
      );
    const deltas = chunks.flatMap((c) => c.choices.map((ch) => ch.delta)).filter((d) => d.tool_calls);
    expect(deltas.map((d) => d.tool_calls)).toEqual([
      [{ index: 0, id: 'call_s1', type: 'function', function: { name: 'get_weather', arguments: '' } }],
      [{ index: 0, function: { arguments: '{"city":"Lima"}' } }],
      [{ index: 1, id: 'call_s2', type: 'function', function: { name: 'get_weather', arguments: '' } }],
      [{ index: 1, function: { arguments: '{"city":"Quito"}' } }],
    ]);
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');
    // The results continue the turn, named by session_id alone (no earlier messages).
    const sessionId = chunks[0]!.session_id;
    const next = await client().chat.completions.create({
      model: 'tea',
      session_id: sessionId,
      messages: [
        { role: 'tool', tool_call_id: 'call_s1', content: '25' },
        { role: 'tool', tool_call_id: 'call_s2', content: '22' },
      ],
    } as OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming);
    expect(next.choices[0]!.message.content).toBe('Both warm.');
    const sent = tea.requests[1]!.messages as { role: string; tool_call_id?: string }[];
    expect(sent.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual(['call_s1', 'call_s2']);
  });
});

describe('streamed structured output', () => {
  it('streams only the checked answer: a refused first answer and its repair stay out of the stream', async () => {
    tea.model.script(reply().text('Sure! Here it is.'), reply().text('{"city":"Bern","celsius":12}'));
    const stream = client().chat.completions.stream({
      model: 'tea',
      messages: [{ role: 'user', content: 'Weather in Bern' }],
      response_format: zodResponseFormat(Weather, 'weather'),
    });
    const done = await stream.finalChatCompletion();
    expect(done.choices[0]!.message.content).toBe('{"city":"Bern","celsius":12}');
    expect(done.choices[0]!.message.parsed).toEqual({ city: 'Bern', celsius: 12 });
    expect(tea.requests).toHaveLength(2);
  });
});

describe('structured output with client tools', () => {
  const ask = {
    model: 'tea',
    messages: [{ role: 'user' as const, content: 'Weather in Oslo' }],
    tools: [zodFunction({ name: 'get_weather', parameters: z.object({ city: z.string() }) })],
    response_format: zodResponseFormat(Weather, 'weather'),
  };

  it('text the model writes beside a client call is not the answer: parse() gets the calls only', async () => {
    tea.model.script(
      reply().text('Let me look that up.').toolCall('get_weather', { city: 'Oslo' }, { id: 'call_o' }),
    );
    const first = await client().chat.completions.parse(ask);
    expect(first.choices[0]!.finish_reason).toBe('tool_calls');
    expect(first.choices[0]!.message.content).toBeNull();
    expect(first.choices[0]!.message.tool_calls?.map((c) => c.id)).toEqual(['call_o']);
  });

  it('the same streamed: no content before the tool call deltas', async () => {
    tea.model.script(
      reply().text('Let me look that up.').toolCall('get_weather', { city: 'Oslo' }, { id: 'call_s' }),
    );
    const done = await client().chat.completions.stream(ask).finalChatCompletion();
    expect(done.choices[0]!.finish_reason).toBe('tool_calls');
    expect(done.choices[0]!.message.content ?? null).toBeNull();
    expect(done.choices[0]!.message.tool_calls?.map((c) => c.id)).toEqual(['call_s']);
  });
});

describe('a model that fails the turn', () => {
  // The SDK's default retries: each retry of a failure no retry can fix would be a new turn.
  const retrying = (): OpenAI => new OpenAI({ apiKey: 'none', baseURL: `${tea.url}/v1` });

  it('rejecting the request (a 4xx): a 400 model_error with x-should-retry false, not retried', async () => {
    tea.model.script(reply().error(401, { message: 'invalid api key' }));
    const err = await retrying()
      .chat.completions.create({ model: 'tea', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const e = err as InstanceType<typeof OpenAI.BadRequestError>;
    expect(e.code).toBe('model_error');
    expect(e.message).toMatch(/HTTP 401.*check the API key/);
    expect(e.headers?.get('x-should-retry')).toBe('false');
    expect(tea.requests).toHaveLength(1);
  });

  it('streamed: the SDK throws the error chunk (model_error)', async () => {
    tea.model.script(reply().error(400, { message: 'context too long' }));
    const stream = await retrying().chat.completions.create({
      model: 'tea',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    const err = await (async () => {
      for await (const _ of stream) {
        // until the error
      }
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as InstanceType<typeof OpenAI.APIError>).message).toContain('context too long');
    // Rejected by the model, as on a whole response: the client's request, not a server fault.
    expect((err as InstanceType<typeof OpenAI.APIError>).type).toBe('invalid_request_error');
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('model_error');
    expect(tea.requests).toHaveLength(1);
  });
});
