/**
 * A standard chat client (the openai SDK) that resends the whole conversation each
 * turn without `session_id` keeps one stored session on the built `tea serve`: turns
 * continue the session the conversation was answered in; an edited history branches
 * off into a new one; two requests with one history at once: one runs, the other is a
 * 409 (or, queued, branches). A turn cancelled through the session API is an error to
 * the client, streamed or whole, on chat completions and on the Responses API.
 */
import OpenAI, { APIError } from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useTeaServe } from '../support/serve.js';
import { wireMessages, wireText } from '../support/wire.js';
import { post, sessionIds, stored } from './session-api.js';

const tea = useTeaServe();

function client(url: string, maxRetries = 0): OpenAI {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: 'sk-unused', maxRetries });
}

/** The agent's model requests (chat-completions bodies the scripted model got). */
function modelRequests(): Record<string, unknown>[] {
  return tea.model.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => r.body);
}

/** role:text of the `n`th model request's messages, system messages left out (Tea's own prompt). */
function seen(n: number): string[] {
  return wireMessages(modelRequests()[n]!)
    .filter((m) => m.role !== 'system')
    .map((m) => `${m.role}:${wireText(m)}`);
}

const SYSTEM: ChatCompletionMessageParam = { role: 'system', content: 'You are terse.' };

describe('a conversation resent whole continues its session', () => {
  it('three growing-history turns (whole, streamed, whole) are one session with all messages', async () => {
    const url = await tea.start();
    const ai = client(url);
    tea.model.script(reply().text('Answer one'), reply().text('Answer two'), reply().text('Answer three'));
    const messages: ChatCompletionMessageParam[] = [SYSTEM, { role: 'user', content: 'first' }];

    const one = await ai.chat.completions.create({ model: 'tea', messages }).withResponse();
    const id = one.response.headers.get('x-tea-session-id')!;
    // As chat apps do: the SDK's message object goes back as it came.
    messages.push(one.data.choices[0]!.message, { role: 'user', content: 'second' });

    const stream = await ai.chat.completions.create({ model: 'tea', messages, stream: true });
    let text = '';
    let streamedId: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      streamedId = (chunk as unknown as { session_id: string }).session_id;
    }
    expect(text).toBe('Answer two');
    expect(streamedId).toBe(id);
    messages.push({ role: 'assistant', content: text }, { role: 'user', content: 'third' });

    const three = await ai.chat.completions.create({ model: 'tea', messages }).withResponse();
    expect(three.response.headers.get('x-tea-session-id')).toBe(id);
    expect(three.data.choices[0]!.message.content).toBe('Answer three');

    expect(await sessionIds(url)).toEqual([id]);
    expect((await stored(url, id)).filter((m) => !m.startsWith('system:'))).toEqual([
      'user:first',
      'assistant:Answer one',
      'user:second',
      'assistant:Answer two',
      'user:third',
      'assistant:Answer three',
    ]);
    // The model saw the conversation once, in order (not imported again each turn).
    expect(seen(2)).toEqual([
      'user:first',
      'assistant:Answer one',
      'user:second',
      'assistant:Answer two',
      'user:third',
    ]);
  });

  it('a conversation through client tool calls and their results stays one session on the next user turn', async () => {
    const url = await tea.start();
    const ai = client(url);
    const tools = [
      {
        type: 'function' as const,
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
    ];
    tea.model.script(
      reply().toolCall('get_weather', { city: 'Oslo' }, { id: 'call_w1' }),
      reply().text('Sunny in Oslo'),
      reply().text('You are welcome'),
    );
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'weather in Oslo?' }];
    const calls = await ai.chat.completions.create({ model: 'tea', messages, tools }).withResponse();
    const id = calls.response.headers.get('x-tea-session-id')!;
    const call = calls.data.choices[0]!.message;
    expect(call.tool_calls?.[0]?.id).toBe('call_w1');
    messages.push(call, { role: 'tool', tool_call_id: 'call_w1', content: '21 C, clear' });
    const answer = await ai.chat.completions.create({ model: 'tea', messages, tools }).withResponse();
    expect(answer.response.headers.get('x-tea-session-id')).toBe(id);
    messages.push(answer.data.choices[0]!.message, { role: 'user', content: 'thanks' });
    const thanks = await ai.chat.completions.create({ model: 'tea', messages, tools }).withResponse();
    expect(thanks.response.headers.get('x-tea-session-id')).toBe(id);
    expect(thanks.data.choices[0]!.message.content).toBe('You are welcome');
    expect(await sessionIds(url)).toEqual([id]);
    expect(seen(2).at(-1)).toBe('user:thanks');
    expect(seen(2)).toContain('assistant:Sunny in Oslo');
  });

  it('an edited earlier message, or another system prompt, starts a new session with that history', async () => {
    const url = await tea.start();
    const ai = client(url);
    tea.model.script(reply().text('A1'), reply().text('A2'), reply().text('B2'), reply().text('C2'));
    const first = await ai.chat.completions
      .create({ model: 'tea', messages: [SYSTEM, { role: 'user', content: 'first' }] })
      .withResponse();
    const id = first.response.headers.get('x-tea-session-id')!;
    const same = await ai.chat.completions
      .create({
        model: 'tea',
        messages: [
          SYSTEM,
          { role: 'user', content: 'first' },
          { role: 'assistant', content: 'A1' },
          { role: 'user', content: 'second' },
        ],
      })
      .withResponse();
    expect(same.response.headers.get('x-tea-session-id')).toBe(id);

    // The user edited their first message: a branch, primed with the edited history.
    const edited = await ai.chat.completions
      .create({
        model: 'tea',
        messages: [
          SYSTEM,
          { role: 'user', content: 'first, edited' },
          { role: 'assistant', content: 'A1' },
          { role: 'user', content: 'second' },
        ],
      })
      .withResponse();
    const branch = edited.response.headers.get('x-tea-session-id')!;
    expect(branch).not.toBe(id);
    expect(seen(2)).toEqual(['user:first, edited', 'assistant:A1', 'user:second']);

    // The same messages under another system prompt: Tea would otherwise drop the new one.
    const other = await ai.chat.completions
      .create({
        model: 'tea',
        messages: [
          { role: 'system', content: 'You are verbose.' },
          { role: 'user', content: 'first' },
          { role: 'assistant', content: 'A1' },
          { role: 'user', content: 'second' },
        ],
      })
      .withResponse();
    const third = other.response.headers.get('x-tea-session-id')!;
    expect(new Set([id, branch, third]).size).toBe(3);
    expect((await sessionIds(url)).sort()).toEqual([id, branch, third].sort());
    // The original session is as it was: its second turn only.
    expect((await stored(url, id)).filter((m) => !m.startsWith('system:'))).toEqual([
      'user:first',
      'assistant:A1',
      'user:second',
      'assistant:A2',
    ]);
  });

  it('two requests with one history at once: one runs, the other is a 409 session_busy; queued, it branches', async () => {
    const url = await tea.start();
    tea.model.script(reply().text('A1'));
    const firstRes = await post(url, '/v1/chat/completions', {
      model: 'tea',
      messages: [{ role: 'user', content: 'first' }],
    });
    const id = firstRes.headers.get('x-tea-session-id')!;
    const next = (earlier: { role: string; content: string }[], text: string, extra = {}) =>
      post(url, '/v1/chat/completions', {
        model: 'tea',
        messages: [...earlier, { role: 'user', content: text }],
        ...extra,
      });
    const turn1 = [
      { role: 'user', content: 'first' },
      { role: 'assistant', content: 'A1' },
    ];

    tea.model.script(reply().text('the one').holdUntil('race'), reply().text('queued answer'));
    const both = Promise.all([next(turn1, 'a'), next(turn1, 'b')]);
    await tea.model.waitForRequests(2);
    tea.model.release('race');
    const responses = await both;
    expect(responses.map((r) => r.status).sort()).toEqual([200, 409]);
    const refused = responses.find((r) => r.status === 409)!;
    expect(((await refused.json()) as { error: unknown }).error).toMatchObject({
      code: 'session_busy',
      param: 'messages',
    });
    expect(responses.find((r) => r.status === 200)!.headers.get('x-tea-session-id')).toBe(id);
    expect(modelRequests()).toHaveLength(2);

    // Queued: once the running turn went on with the session, this request is a branch of its own.
    const winner = responses[0]!.status === 200 ? 'a' : 'b';
    const turn2 = [...turn1, { role: 'user', content: winner }, { role: 'assistant', content: 'the one' }];
    tea.model.script(reply().text('ran first').holdUntil('q'), reply().text('branched'));
    const running = next(turn2, 'c');
    await tea.model.waitForRequests(3);
    const queued = next(turn2, 'd', { if_busy: 'queue' });
    tea.model.release('q');
    expect((await running).headers.get('x-tea-session-id')).toBe(id);
    const queuedRes = await queued;
    expect(queuedRes.status).toBe(200);
    expect(queuedRes.headers.get('x-tea-session-id')).not.toBe(id);
    expect(seen(3)).toEqual(['user:first', 'assistant:A1', `user:${winner}`, 'assistant:the one', 'user:d']);
  });
});

describe('a turn cancelled through the session API is an error to the client', () => {
  async function cancelWhenRunning(url: string): Promise<string> {
    await tea.model.waitForRequests(1);
    const [id] = await sessionIds(url);
    const res = await post(url, `/v1/sessions/${id}/cancel`, {});
    expect(await res.json()).toEqual({ cancelled: true });
    return id!;
  }

  it('chat completions streamed: the SDK throws turn_cancelled; whole: 400 turn_cancelled, not retried', async () => {
    const url = await tea.start();
    // The default retries: a retried cancel would run the turn again.
    const ai = client(url, 2);
    tea.model.script(reply().text('never').holdUntil('never'));
    const stream = await ai.chat.completions.create({
      model: 'tea',
      messages: [{ role: 'user', content: 'long' }],
      stream: true,
    });
    const read = (async () => {
      for await (const _ of stream) {
        // reading until the error
      }
    })();
    await cancelWhenRunning(url);
    const err = await read.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).code).toBe('turn_cancelled');
    expect((err as APIError).message).toContain('the turn was cancelled');

    tea.model.reset();
    tea.model.script(reply().text('never').holdUntil('whole'));
    const ids = new Set(await sessionIds(url));
    const whole = ai.chat.completions.create({
      model: 'tea',
      messages: [{ role: 'user', content: 'long, whole' }],
    });
    await tea.model.waitForRequests(1);
    const id = (await sessionIds(url)).find((s) => !ids.has(s))!;
    expect(await (await post(url, `/v1/sessions/${id}/cancel`, {})).json()).toEqual({ cancelled: true });
    const wholeErr = await whole.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(wholeErr).toBeInstanceOf(APIError);
    expect((wholeErr as APIError).status).toBe(400);
    expect((wholeErr as APIError).code).toBe('turn_cancelled');
    expect(modelRequests()).toHaveLength(1);
    expect(await sessionIds(url)).toHaveLength(2);
  });

  it('responses streamed: response.failed with status cancelled; whole: 400 turn_cancelled', async () => {
    const url = await tea.start();
    const ai = client(url, 2);
    tea.model.script(reply().text('never').holdUntil('never'));
    const stream = await ai.responses.create({ model: 'tea', input: 'long', stream: true });
    const types: string[] = [];
    let last: { type: string; response?: { status: string; error: { code: string } | null } } | undefined;
    const read = (async () => {
      for await (const e of stream) {
        types.push(e.type);
        last = e as typeof last;
      }
    })();
    await cancelWhenRunning(url);
    // The error event after response.failed: the SDK throws, so the partial text is no answer.
    const thrown = await read.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(thrown).toBeInstanceOf(APIError);
    expect((thrown as APIError).code).toBe('turn_cancelled');
    expect(types).not.toContain('response.completed');
    expect(last?.type).toBe('response.failed');
    expect(last?.response?.status).toBe('cancelled');
    expect(last?.response?.error?.code).toBe('turn_cancelled');

    tea.model.reset();
    tea.model.script(reply().text('never').holdUntil('whole'));
    const ids = new Set(await sessionIds(url));
    const whole = ai.responses.create({ model: 'tea', input: 'long, whole' });
    await tea.model.waitForRequests(1);
    const id = (await sessionIds(url)).find((s) => !ids.has(s))!;
    expect(await (await post(url, `/v1/sessions/${id}/cancel`, {})).json()).toEqual({ cancelled: true });
    const err = await whole.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).status).toBe(400);
    expect((err as APIError).code).toBe('turn_cancelled');
    expect(modelRequests()).toHaveLength(1);
  });
});
