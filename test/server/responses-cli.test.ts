/**
 * `POST /v1/responses` and `GET /v1/models/{id}` of the built `tea serve`, driven by the
 * official clients: the openai SDK (`responses.create` whole and streamed,
 * `responses.retrieve`, `models.retrieve`) and the OpenAI Agents SDK on its default
 * Responses API, with `previous_response_id` continuing the Tea session.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, run, setDefaultOpenAIClient, setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useTeaServe } from '../support/serve.js';
import { wireMessages, wireText } from '../support/wire.js';

const tea = useTeaServe();

beforeAll(() => setTracingDisabled(true));

function client(url: string): OpenAI {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-unused', maxRetries: 0 });
}

/** `err` is a `model_error` of class `kind` saying `says`, marked not to retry; the model was called once. */
function expectModelError(
  err: unknown,
  kind: abstract new (...args: never[]) => unknown,
  says: string,
): void {
  expect(err).toBeInstanceOf(kind);
  const e = err as InstanceType<typeof OpenAI.APIError>;
  expect(e.code).toBe('model_error');
  expect(e.message).toContain(says);
  expect(e.headers?.get('x-should-retry')).toBe('false');
  expect(tea.model.requests).toHaveLength(1);
}

/** The role:text lines of the scripted model's `n`th request. */
function seen(n: number): string[] {
  return wireMessages(tea.model.requests[n]!.body).map((m) => `${m.role}:${wireText(m)}`);
}

describe('POST /v1/responses (openai SDK)', () => {
  it('answers a string input whole: output_text, usage, the session header and body field', async () => {
    const url = await tea.start();
    tea.model.script(reply().text('Hello from Tea').usage(11, 4));
    const { data, response } = await client(url)
      .responses.create({ model: 'tea', input: 'Say hello', instructions: 'Be warm.' })
      .withResponse();
    expect(data.object).toBe('response');
    expect(data.status).toBe('completed');
    expect(data.output_text).toBe('Hello from Tea');
    expect(data.usage).toMatchObject({ input_tokens: 11, output_tokens: 4, total_tokens: 15 });
    expect(data.id).toMatch(/^resp_/);
    const sessionId = response.headers.get('x-tea-session-id');
    expect(sessionId).toBeTruthy();
    expect((data as unknown as { session_id: string }).session_id).toBe(sessionId);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    // The instructions are in the system prompt of this turn's model call.
    const system = seen(0).find((l) => l.startsWith('system:'));
    expect(system).toContain('Be warm.');
    expect(seen(0).at(-1)).toBe('user:Say hello');
    // Kept for GET /v1/responses/{id}.
    const again = await client(url).responses.retrieve(data.id);
    expect(again.output_text).toBe('Hello from Tea');
    expect(again.id).toBe(data.id);
  });

  it('streams the real event sequence with sequence numbers, reasoning and text', async () => {
    const url = await tea.start();
    tea.model.script(reply().thinking('Let me think.').text('Streamed answer here').usage(5, 6));
    const stream = await client(url).responses.create({ model: 'tea', input: 'Stream it', stream: true });
    const events: Array<{ type: string; sequence_number: number } & Record<string, unknown>> = [];
    for await (const e of stream) events.push(e as (typeof events)[number]);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 2)).toEqual(['response.created', 'response.in_progress']);
    expect(types.at(-1)).toBe('response.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    // Reasoning first (its own item), then the message.
    const dedupe = types.filter((t, i) => t !== types[i - 1]);
    expect(dedupe).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.reasoning_text.delta',
      'response.reasoning_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const text = events
      .filter((e) => e.type === 'response.output_text.delta')
      .map((e) => e.delta)
      .join('');
    expect(text).toBe('Streamed answer here');
    const done = events.at(-1) as unknown as { response: OpenAI.Responses.Response };
    expect(done.response.usage?.total_tokens).toBe(11);
    expect(done.response.output.map((o) => o.type)).toEqual(['reasoning', 'message']);
    const reasoning = events.filter((e) => e.type === 'response.reasoning_text.delta').map((e) => e.delta);
    expect(reasoning.join('')).toBe('Let me think.');
  });

  it('the SDK stream helper assembles the final response', async () => {
    const url = await tea.start();
    tea.model.script(reply().text('Helper assembled'));
    const runner = client(url).responses.stream({ model: 'tea', input: 'go' });
    const deltas: string[] = [];
    runner.on('response.output_text.delta', (e) => deltas.push(e.delta));
    const final = await runner.finalResponse();
    expect(final.output_text).toBe('Helper assembled');
    expect(deltas.join('')).toBe('Helper assembled');
  });

  it('previous_response_id continues the session; an earlier id branches off in a fork', async () => {
    const url = await tea.start();
    const oa = client(url);
    tea.model.script(
      reply().text('First answer'),
      reply().text('Second answer'),
      reply().text('Branch answer'),
    );
    const first = await oa.responses.create({
      model: 'tea',
      input: 'First question',
      instructions: 'Rule A',
    });
    const second = await oa.responses
      .create({ model: 'tea', input: 'Second question', previous_response_id: first.id })
      .withResponse();
    expect(second.data.output_text).toBe('Second answer');
    expect(second.data.previous_response_id).toBe(first.id);
    const session = (first as unknown as { session_id: string }).session_id;
    expect(second.response.headers.get('x-tea-session-id')).toBe(session);
    expect(seen(1)).toEqual(expect.arrayContaining(['user:First question', 'assistant:First answer']));
    expect(seen(1).at(-1)).toBe('user:Second question');
    // Instructions hold for their own request only.
    expect(seen(1).join('\n')).not.toContain('Rule A');
    // From the first response again: a fork without the second turn.
    const branch = await oa.responses.create({
      model: 'tea',
      input: 'Other way',
      previous_response_id: first.id,
    });
    const forked = (branch as unknown as { session_id: string }).session_id;
    expect(forked).not.toBe(session);
    expect(seen(2)).toEqual(expect.arrayContaining(['user:First question', 'assistant:First answer']));
    expect(seen(2).join('\n')).not.toContain('Second question');
    // The stored session itself is as it was.
    const listed = (await (await fetch(`${url}/v1/sessions/${session}/messages`)).json()) as {
      data: Array<{ role: string }>;
    };
    expect(listed.data.filter((m) => m.role === 'user')).toHaveLength(2);
  });

  it('store: false runs in a session that is gone afterwards, and cannot be continued', async () => {
    const url = await tea.start();
    tea.model.script(reply().text('Not kept'));
    const { data, response } = await client(url)
      .responses.create({ model: 'tea', input: 'Ephemeral', store: false })
      .withResponse();
    expect(data.output_text).toBe('Not kept');
    expect((data as unknown as { store: boolean }).store).toBe(false);
    const sessionId = response.headers.get('x-tea-session-id');
    const err = await client(url)
      .responses.create({ model: 'tea', input: 'More', previous_response_id: data.id })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('previous_response_not_found');
    const gone = await fetch(`${url}/v1/sessions/${sessionId}`);
    expect(gone.status).toBe(404);
    const notKept = await client(url)
      .responses.retrieve(data.id)
      .catch((e: unknown) => e);
    expect(notKept).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('a model that rejects the request: whole, a 400 model_error nobody retries; streamed, response.failed then an error the SDK throws', async () => {
    const url = await tea.start();
    tea.model.script(
      reply().error(400, { message: 'bad things' }),
      reply().error(400, { message: 'bad things' }),
    );
    // The SDK's own retries (2 by default) would each be a new failing turn: the 400 stops them.
    const retrying = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-unused' });
    const err = await retrying.responses.create({ model: 'tea', input: 'fail' }).catch((e: unknown) => e);
    expectModelError(err, OpenAI.BadRequestError, 'HTTP 400');

    const stream = await client(url).responses.create({ model: 'tea', input: 'fail', stream: true });
    const types: string[] = [];
    let failed: OpenAI.Responses.Response | undefined;
    const thrown = await (async () => {
      for await (const e of stream) {
        types.push(e.type);
        if (e.type === 'response.failed') failed = e.response;
      }
    })().catch((e: unknown) => e);
    expect(types.at(-1)).toBe('response.failed');
    expect(failed?.status).toBe('failed');
    expect(failed?.error?.code).toBe('model_error');
    expect(failed?.error?.message).toContain('bad things');
    // The `error` event after it: the SDK throws, so no client takes the failure for an answer.
    expect(thrown).toBeInstanceOf(OpenAI.APIError);
    expect((thrown as InstanceType<typeof OpenAI.APIError>).message).toContain('bad things');
    expect((thrown as InstanceType<typeof OpenAI.APIError>).code).toBe('model_error');
    expect((thrown as InstanceType<typeof OpenAI.APIError>).type).toBe('invalid_request_error');
  });

  it('a model that is down: a 500 model_error, then a 503 while its circuit is open; the SDK retries neither', async () => {
    // Tea's own retries off (the first 503 is the turn's failure); the circuit opens at once.
    appendFileSync(
      join(tea.home, 'config.yaml'),
      'llm: { max_retries: 0, breaker: { failure_threshold: 1, recovery_s: 600 } }\n',
    );
    const url = await tea.start();
    tea.model.script(reply().error(503, { message: 'overloaded' }));
    // The SDK's default retries: Tea has retried the model already, and says so.
    const retrying = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-unused' });
    const err = await retrying.responses.create({ model: 'tea', input: 'fail' }).catch((e: unknown) => e);
    expectModelError(err, OpenAI.InternalServerError, 'overloaded');

    const paused = await retrying.responses.create({ model: 'tea', input: 'again' }).catch((e: unknown) => e);
    expect(paused).toBeInstanceOf(OpenAI.InternalServerError);
    expect((paused as InstanceType<typeof OpenAI.InternalServerError>).status).toBe(503);
    expect((paused as Error).message).toMatch(/circuit open/);
    expect(tea.model.requests).toHaveLength(1);
  });

  it("a client's own default model (the Agents SDK's, with its reasoning settings) is a 404 naming the profiles", async () => {
    const url = await tea.start();
    const err = await client(url)
      .responses.create({ model: 'gpt-5.1', input: 'hi', reasoning: { effort: 'low' } })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    const e = err as InstanceType<typeof OpenAI.NotFoundError>;
    expect(e.code).toBe('model_not_found');
    expect(e.param).toBe('model');
    expect(e.message).toContain('known profiles are tea');
    expect(tea.model.requests).toHaveLength(0);
  });

  it('temperature and max_output_tokens reach the model and are echoed; top_p is echoed', async () => {
    const url = await tea.start();
    tea.model.script(reply().text('Cool.'));
    const r = await client(url).responses.create({
      model: 'tea',
      input: 'Be brief',
      temperature: 0.2,
      top_p: 0.9,
      max_output_tokens: 50,
    });
    expect([r.temperature, r.top_p, r.max_output_tokens]).toEqual([0.2, 0.9, 50]);
    const sent = tea.model.requests[0]!.body as {
      temperature?: number;
      max_tokens?: number;
      max_completion_tokens?: number;
    };
    expect(sent.temperature).toBe(0.2);
    expect(sent.max_completion_tokens ?? sent.max_tokens).toBe(50);
  });

  it('takes an image part (data URL) to the model with the text', async () => {
    const url = await tea.start();
    tea.model.script(reply().text('A red dot'));
    const png =
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
    const res = await client(url).responses.create({
      model: 'tea',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is this?' },
            { type: 'input_image', image_url: `data:image/png;base64,${png}`, detail: 'auto' },
          ],
        },
      ],
    });
    expect(res.output_text).toBe('A red dot');
    const sent = JSON.stringify(tea.model.requests[0]!.body.messages);
    expect(sent).toContain('What is this?');
    expect(sent).toContain(png);
  });

  it('models.retrieve: tea and the profiles; an unknown id is 404 model_not_found', async () => {
    const url = await tea.start();
    const model = await client(url).models.retrieve('tea');
    expect(model).toMatchObject({ id: 'tea', object: 'model', owned_by: 'tea' });
    const err = await client(url)
      .models.retrieve('no-such-model')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect((err as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  });
});

describe('OpenAI Agents SDK on its default Responses API', () => {
  it('run(), a streamed run, and a run continuing with previousResponseId', async () => {
    const url = await tea.start();
    setDefaultOpenAIClient(client(url));
    const agent = new Agent({ name: 'helper', instructions: 'You help.', model: 'tea' });
    tea.model.script(
      reply().text('Agent answer'),
      reply().text('Streamed agent answer'),
      reply().text('Continued'),
    );
    const first = await run(agent, 'task one');
    expect(first.finalOutput).toBe('Agent answer');
    expect(first.lastResponseId).toMatch(/^resp_/);

    const streamed = await run(agent, 'task two', { stream: true });
    const text: string[] = [];
    for await (const event of streamed.toTextStream()) text.push(event);
    await streamed.completed;
    expect(streamed.finalOutput).toBe('Streamed agent answer');
    expect(text.join('')).toBe('Streamed agent answer');

    const next = await run(agent, 'task three', { previousResponseId: first.lastResponseId });
    expect(next.finalOutput).toBe('Continued');
    // The history of the first run arrived with the third request, not the second run's.
    expect(seen(2)).toEqual(expect.arrayContaining(['user:task one', 'assistant:Agent answer']));
    expect(seen(2).join('\n')).not.toContain('task two');
    expect(seen(2).at(-1)).toBe('user:task three');
    expect(seen(2).find((l) => l.startsWith('system:'))).toContain('You help.');
  });
});
