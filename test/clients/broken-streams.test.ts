/**
 * A model stream that breaks off mid-answer, which Tea retries, seen through the built
 * `tea serve` by the official clients: the answer they get is the retried one, never the
 * broken fragment glued to it. Whole responses (chat and Responses API) carry only the
 * retried answer; a Responses stream closes the broken message item as `incomplete` and
 * leaves it out of the final response (the Agents SDK's final output); a chat stream, whose
 * sent text cannot be taken back, ends with an error instead of going on.
 */
import { Agent, run, setDefaultOpenAIClient, setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { useTeaServe } from './serve.js';

const tea = useTeaServe();
const client = (): OpenAI => new OpenAI({ apiKey: 'none', baseURL: `${tea.url}/v1`, maxRetries: 0 });

const PARTIAL = 'Partial answer that breaks off somewhere in the middle';
/** A first attempt cut after two chunks of its text, then the retried answer. */
const brokenThen = (answer: string) => [reply().text(PARTIAL).chunkSize(6).cutAfter(3), reply().text(answer)];

beforeAll(() => setTracingDisabled(true));

describe('Responses API', () => {
  it('whole: output_text is the retried answer alone', async () => {
    tea.model.script(...brokenThen('Complete answer.'));
    const r = await client().responses.create({ model: 'tea', input: 'Answer me' });
    expect(r.status).toBe('completed');
    expect(r.output_text).toBe('Complete answer.');
    expect(r.output.map((o) => o.type)).toEqual(['message']);
    expect(tea.requests).toHaveLength(2);
  });

  it('streamed: the broken item closes incomplete, the final response holds the retried answer', async () => {
    tea.model.script(...brokenThen('Complete answer.'));
    const stream = await client().responses.create({ model: 'tea', input: 'Answer me', stream: true });
    const done: OpenAI.Responses.ResponseOutputItem[] = [];
    let final: OpenAI.Responses.Response | undefined;
    let sent = '';
    for await (const e of stream) {
      if (e.type === 'response.output_text.delta') sent += e.delta;
      if (e.type === 'response.output_item.done') done.push(e.item);
      if (e.type === 'response.completed') final = e.response;
    }
    // What was streamed: a fragment of the first attempt, then the whole retried answer.
    expect(sent.endsWith('Complete answer.')).toBe(true);
    expect(PARTIAL.startsWith(sent.slice(0, -'Complete answer.'.length))).toBe(true);
    expect(done.map((i) => (i as { status: string }).status)).toEqual(['incomplete', 'completed']);
    expect(final?.output).toHaveLength(1);
    expect((final!.output[0] as OpenAI.Responses.ResponseOutputMessage).content[0]).toMatchObject({
      text: 'Complete answer.',
    });
  });

  it('text written before a tool call stays; only the broken call’s text goes', async () => {
    tea.model.script(
      reply().text('Looking it up.').toolCall('read_file', { path: 'missing.txt' }, { id: 'call_r1' }),
      ...brokenThen('It is not there.'),
    );
    const r = await client().responses.create({ model: 'tea', input: 'Read missing.txt' });
    const texts = r.output
      .filter((o): o is OpenAI.Responses.ResponseOutputMessage => o.type === 'message')
      .map((m) => (m.content[0] as { text: string }).text);
    expect(texts).toEqual(['Looking it up.', 'It is not there.']);
    expect(r.output_text).not.toContain('Partial');
  });

  it('the Agents SDK streamed run: its final output is the retried answer', async () => {
    setDefaultOpenAIClient(client());
    tea.model.script(...brokenThen('Agent answer, retried.'));
    const agent = new Agent({ name: 'a', instructions: 'You help.', model: 'tea' });
    const streamed = await run(agent, 'Answer me', { stream: true });
    for await (const _ of streamed) {
      // through to the end
    }
    await streamed.completed;
    expect(streamed.finalOutput).toBe('Agent answer, retried.');
  });
});

describe('chat completions', () => {
  it('whole: the retried answer alone', async () => {
    tea.model.script(...brokenThen('Complete answer.'));
    const r = await client().chat.completions.create({
      model: 'tea',
      messages: [{ role: 'user', content: 'Answer me' }],
    });
    expect(r.choices[0]!.message.content).toBe('Complete answer.');
  });

  it('streamed: an error after the fragment, no retried text glued on, the turn stopped', async () => {
    tea.model.script(...brokenThen('Never sent.'));
    const stream = await client().chat.completions.create({
      model: 'tea',
      messages: [{ role: 'user', content: 'Answer me' }],
      stream: true,
    });
    let sent = '';
    const err = await (async () => {
      for await (const chunk of stream) sent += chunk.choices[0]?.delta.content ?? '';
    })().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as Error).message).toMatch(
      /broke off after part of the answer was sent.*send the request again/,
    );
    expect(sent).not.toContain('Never sent.');
    expect(PARTIAL.startsWith(sent)).toBe(true);
    expect(tea.requests).toHaveLength(1);

    // Sent again, as the error says: the turn runs again in its session, the message stored once.
    const again = await client()
      .chat.completions.create({ model: 'tea', messages: [{ role: 'user', content: 'Answer me' }] })
      .withResponse();
    expect(again.data.choices[0]!.message.content).toBe('Never sent.');
    const id = again.response.headers.get('x-tea-session-id');
    const res = await fetch(`${tea.url}/v1/sessions/${id}/messages`);
    const messages = ((await res.json()) as { data: { role: string; parts: unknown[] }[] }).data;
    expect(messages.filter((m) => m.role === 'user')).toHaveLength(1);
    expect(messages.at(-1)).toMatchObject({
      role: 'assistant',
      parts: [{ type: 'text', text: 'Never sent.' }],
    });
  });
});
