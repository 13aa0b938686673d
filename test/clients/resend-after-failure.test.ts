/**
 * The same request sent again after its turn failed (an SDK's automatic retry, or a user
 * pressing retry in a chat app) runs that turn again in the session it failed in, on the
 * built `tea serve`: one session with the message stored once, not a new session per
 * attempt. Chat completions (openai SDK, AI SDK with its own retries) and the Responses
 * API (the Agents SDK). A changed message is another conversation: a new session.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { Agent, run, setDefaultOpenAIClient, setTracingDisabled } from '@openai/agents';
import { generateText } from 'ai';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useTeaServe } from '../support/serve.js';
import { post, sessionIds, stored } from './session-api.js';

const tea = useTeaServe();

beforeAll(() => setTracingDisabled(true));

const client = (url: string): OpenAI => new OpenAI({ baseURL: `${url}/v1`, apiKey: 'none', maxRetries: 0 });
const failing = () => reply().error(400, { message: 'context too long' });

describe('chat completions', () => {
  it('the same conversation after a failure: that session, the message stored once', async () => {
    const url = await tea.start();
    tea.model.script(reply().text('Answer one'), failing(), reply().text('Answer two'));
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'first' }];
    const one = await client(url).chat.completions.create({ model: 'tea', messages });
    messages.push(one.choices[0]!.message, { role: 'user', content: 'second' });
    const err = await client(url)
      .chat.completions.create({ model: 'tea', messages })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);

    const again = await client(url).chat.completions.create({ model: 'tea', messages }).withResponse();
    expect(again.data.choices[0]!.message.content).toBe('Answer two');
    const ids = await sessionIds(url);
    expect(ids).toEqual([again.response.headers.get('x-tea-session-id')]);
    expect(await stored(url, ids[0]!)).toEqual([
      'user:first',
      'assistant:Answer one',
      'user:second',
      'assistant:Answer two',
    ]);
  });

  it("the AI SDK's own retry of a 500 lands in the same session", async () => {
    // Tea's own retries off: the model's 503 is the request's 500, which the AI SDK retries.
    appendFileSync(
      join(tea.home, 'config.yaml'),
      'llm: { max_retries: 0, breaker: { failure_threshold: 5 } }\n',
    );
    const url = await tea.start();
    tea.model.script(reply().error(503, { message: 'overloaded' }), reply().text('Made it.'));
    const ai = createOpenAICompatible({ name: 'tea', baseURL: `${url}/v1`, apiKey: 'none' });
    const result = await generateText({ model: ai.chatModel('tea'), prompt: 'Try hard', maxRetries: 1 });
    expect(result.text).toBe('Made it.');
    const ids = await sessionIds(url);
    expect(ids).toHaveLength(1);
    expect(await stored(url, ids[0]!)).toEqual(['user:Try hard', 'assistant:Made it.']);
  });

  it('the same request after a cancelled turn runs it again there; a changed message starts a new session', async () => {
    const url = await tea.start();
    tea.model.script(
      reply().text('never').holdUntil('never'),
      reply().text('Done now.'),
      reply().text('Other.'),
    );
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'long job' }];
    const whole = client(url).chat.completions.create({ model: 'tea', messages });
    await tea.model.waitForRequests(1);
    const [id] = await sessionIds(url);
    expect(await (await post(url, `/v1/sessions/${id}/cancel`, {})).json()).toEqual({ cancelled: true });
    await expect(whole).rejects.toMatchObject({ code: 'turn_cancelled' });

    const again = await client(url).chat.completions.create({ model: 'tea', messages }).withResponse();
    expect(again.data.choices[0]!.message.content).toBe('Done now.');
    expect(again.response.headers.get('x-tea-session-id')).toBe(id);
    expect((await stored(url, id!)).filter((l) => l === 'user:long job')).toHaveLength(1);

    // Another request altogether (a one-message conversation Tea never failed on): its own session.
    await client(url).chat.completions.create({
      model: 'tea',
      messages: [{ role: 'user', content: 'short job' }],
    });
    expect(await sessionIds(url)).toHaveLength(2);
  });
});

describe('what a resend does not do', () => {
  /** Tea's own retries off, the circuit opening at the first failure. */
  const fragile = () =>
    appendFileSync(
      join(tea.home, 'config.yaml'),
      'llm: { max_retries: 0, breaker: { failure_threshold: 1, recovery_s: 600 } }\n',
    );

  it('wake a model its circuit breaker paused: the resend waits like any call (503), in the same session', async () => {
    fragile();
    const url = await tea.start();
    tea.model.script(reply().error(503, { message: 'overloaded' }), reply().text('never'));
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'ping' }];
    const first = await client(url)
      .chat.completions.create({ model: 'tea', messages })
      .catch((e: unknown) => e);
    expect((first as { status: number }).status).toBe(500);
    const again = await client(url)
      .chat.completions.create({ model: 'tea', messages })
      .withResponse()
      .catch((e: unknown) => e);
    expect((again as { status: number }).status).toBe(503);
    expect((again as Error).message).toMatch(/circuit open/);
    expect(tea.model.requests).toHaveLength(1);
    expect(await sessionIds(url)).toHaveLength(1);
  });

  it('continue a turn that stored part of an answer: the resend starts a new session', async () => {
    appendFileSync(join(tea.home, 'config.yaml'), 'llm: { max_retries: 0 }\n');
    const url = await tea.start();
    tea.model.script(
      reply().text('A fragment of an answer that breaks').chunkSize(6).cutAfter(3),
      reply().text('Whole answer.'),
    );
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'explain' }];
    const first = await client(url)
      .chat.completions.create({ model: 'tea', messages })
      .catch((e: unknown) => e);
    expect((first as { status: number }).status).toBe(500);
    const [broken] = await sessionIds(url);
    // The model's fragment stays where it was written (the session keeps what a model streamed).
    expect((await stored(url, broken!)).at(-1)).toMatch(/^assistant:A fragment/);
    const again = await client(url).chat.completions.create({ model: 'tea', messages }).withResponse();
    expect(again.data.choices[0]!.message.content).toBe('Whole answer.');
    const fresh = again.response.headers.get('x-tea-session-id');
    expect(fresh).not.toBe(broken);
    expect(await stored(url, fresh!)).toEqual(['user:explain', 'assistant:Whole answer.']);
  });

  it('a model that rate-limits Tea past its retries is a 429 (x-should-retry: false)', async () => {
    fragile();
    const url = await tea.start();
    tea.model.script(reply().error(429, { message: 'slow down' }));
    const err = await client(url)
      .chat.completions.create({ model: 'tea', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.RateLimitError>).code).toBe('model_error');
    expect((err as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('x-should-retry')).toBe('false');
  });
});

describe('Responses API', () => {
  it('the Agents SDK run again after a failed one: the same session, the message stored once', async () => {
    const url = await tea.start();
    setDefaultOpenAIClient(client(url));
    tea.model.script(failing(), reply().text('Fine now.'));
    const agent = new Agent({ name: 'a', instructions: 'You help.', model: 'tea' });
    const err = await run(agent, 'Summarise the plan').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const second = await run(agent, 'Summarise the plan');
    expect(second.finalOutput).toBe('Fine now.');
    const ids = await sessionIds(url);
    expect(ids).toHaveLength(1);
    expect(await stored(url, ids[0]!)).toEqual(['user:Summarise the plan', 'assistant:Fine now.']);
  });
});
