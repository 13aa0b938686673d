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
