/**
 * The OpenAI Agents SDK (0.13, default Responses API) against the built `tea serve`,
 * where a turn does not simply succeed, and across turns: a run whose turn is cancelled
 * through the session API, or whose model fails, or whose answer misses its outputType,
 * throws once (it never takes the failure for a final answer, nor runs the turn again);
 * and a run given the last run's `history` (no previousResponseId) continues the same
 * Tea session, tool calls included.
 */
import { Agent, run, setDefaultOpenAIClient, setTracingDisabled, user } from '@openai/agents';
import OpenAI from 'openai';
import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { reply } from '../support/script.js';
import { wireText } from '../support/wire.js';
import { useTeaServe } from './serve.js';
import { weatherAgentTool } from './weather-tool.js';

const tea = useTeaServe();

/** Every `/v1/responses` body the SDK sent, and the session each response named. */
const toTea: Record<string, unknown>[] = [];
const sessionsSeen: string[] = [];

beforeAll(() => setTracingDisabled(true));

function client(): OpenAI {
  return new OpenAI({
    apiKey: 'none',
    baseURL: `${tea.url}/v1`,
    // The SDK's default: a failure it retries would show as a second turn.
    maxRetries: 2,
    fetch: async (url, init) => {
      if (String(url).endsWith('/responses') && typeof init?.body === 'string')
        toTea.push(JSON.parse(init.body));
      const res = await fetch(url, init);
      const id = res.headers.get('x-tea-session-id');
      if (id) sessionsSeen.push(id);
      return res;
    },
  });
}

async function sessionCount(): Promise<number> {
  const res = await fetch(`${tea.url}/v1/sessions?limit=100`);
  return ((await res.json()) as { data: unknown[] }).data.length;
}

/** What a streamed run ends with: the error its events or its `completed` threw (undefined: none). */
async function failureOf(streamed: AsyncIterable<unknown> & { completed: Promise<void> }): Promise<unknown> {
  try {
    for await (const _ of streamed) {
      // until the end or the error
    }
    await streamed.completed;
  } catch (e) {
    return e;
  }
  return undefined;
}

const userLines = (n: number): string[] =>
  (tea.requests[n]!.messages as { role: string }[])
    .filter((m) => m.role === 'user')
    .map((m) => wireText(m as never));

describe('Agents SDK: a turn that fails is an error, once', () => {
  it('a streamed run cancelled through the session API after some text throws turn_cancelled', async () => {
    setDefaultOpenAIClient(client());
    tea.model.script(reply().text('The first part, and then').chunkSize(10).hangAfter(2));
    const agent = new Agent({ name: 'writer', instructions: 'You write.', model: 'tea' });
    const streamed = await run(agent, 'Write a long story', { stream: true });
    let cancelled = false;
    const read = (async () => {
      for await (const e of streamed) {
        if (!cancelled && e.type === 'raw_model_stream_event' && e.data.type === 'output_text_delta') {
          cancelled = true;
          const res = await fetch(`${tea.url}/v1/sessions/${sessionsSeen.at(-1)}/cancel`, { method: 'POST' });
          expect(await res.json()).toEqual({ cancelled: true });
        }
      }
    })();
    const thrown = await read.then(
      () => undefined,
      (e: unknown) => e,
    );
    const completed = await streamed.completed.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(cancelled).toBe(true);
    const error = thrown ?? completed ?? streamed.error;
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/cancelled/);
    // Not a final answer, and not run again.
    expect(streamed.finalOutput).toBeUndefined();
    expect(tea.requests).toHaveLength(1);
  });

  it('a model that rejects the request: run() throws once, one model call, one session', async () => {
    setDefaultOpenAIClient(client());
    const before = await sessionCount();
    tea.model.script(reply().error(400, { message: 'context too long' }));
    const agent = new Agent({ name: 'a', instructions: 'You help.', model: 'tea' });
    const err = await run(agent, 'hello').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as Error).message).toContain('context too long');
    expect(tea.requests).toHaveLength(1);
    expect(await sessionCount()).toBe(before + 1);

    tea.model.reset();
    tea.model.script(reply().error(400, { message: 'context too long' }));
    const error = await failureOf(await run(agent, 'hello again', { stream: true }));
    expect(String((error as Error).message)).toContain('context too long');
    expect(tea.requests).toHaveLength(1);
    expect(await sessionCount()).toBe(before + 2);
  });

  it('a streamed run whose answer misses its outputType after the repair throws response_format_unmet, once', async () => {
    setDefaultOpenAIClient(client());
    const before = await sessionCount();
    tea.model.script(reply().text('warm'), reply().text('still warm'));
    const agent = new Agent({
      name: 'w',
      instructions: 'You report weather.',
      model: 'tea',
      outputType: z.object({ celsius: z.number() }),
    });
    const streamed = await run(agent, 'Weather in Oslo?', { stream: true });
    const error = await failureOf(streamed);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error).message)).toMatch(/after one repair round/);
    expect(streamed.finalOutput).toBeUndefined();
    // The turn and its repair: two model calls, one session (the SDK did not run it again).
    expect(tea.requests).toHaveLength(2);
    expect(await sessionCount()).toBe(before + 1);
  });
});

describe('Agents SDK: a run given the last run’s history continues the session', () => {
  it('history with a tool call and its output: the second run is the same session, nothing stored twice', async () => {
    setDefaultOpenAIClient(client());
    const ran: string[] = [];
    const agent = new Agent({
      name: 'forecaster',
      instructions: 'You forecast.',
      model: 'tea',
      tools: [weatherAgentTool(ran)],
    });
    tea.model.script(
      reply().toolCall('get_weather', { city: 'Riga' }, { id: 'call_h1' }),
      reply().text('Riga is mild.'),
      reply().text('Tomorrow too.'),
    );
    const before = await sessionCount();
    const first = await run(agent, 'Weather in Riga?');
    expect(first.finalOutput).toBe('Riga is mild.');
    const firstSession = sessionsSeen.at(-1);

    const second = await run(agent, [...first.history, user('And tomorrow?')]);
    expect(second.finalOutput).toBe('Tomorrow too.');
    expect(toTea.at(-1)!.previous_response_id).toBeUndefined();
    expect(sessionsSeen.at(-1)).toBe(firstSession);
    expect(await sessionCount()).toBe(before + 1);
    // The model saw the first exchange once, the tool's result included, then the new question.
    expect(userLines(2)).toEqual(['Weather in Riga?', 'And tomorrow?']);
    const tools = (tea.requests[2]!.messages as { role: string; tool_call_id?: string }[]).filter(
      (m) => m.role === 'tool',
    );
    expect(tools.map((m) => m.tool_call_id)).toEqual(['call_h1']);
    expect(ran).toEqual(['Riga']);
  });

  it('an edited history branches off into a new session primed with it', async () => {
    setDefaultOpenAIClient(client());
    const agent = new Agent({ name: 'a', instructions: 'You help.', model: 'tea' });
    tea.model.script(reply().text('Four.'), reply().text('Six.'));
    const first = await run(agent, 'Two plus two?');
    const firstSession = sessionsSeen.at(-1);
    const edited = [user('Three plus three?'), ...first.history.slice(1), user('Sure?')];
    const second = await run(agent, edited);
    expect(second.finalOutput).toBe('Six.');
    expect(sessionsSeen.at(-1)).not.toBe(firstSession);
    expect(userLines(1)).toEqual(['Three plus three?', 'Sure?']);
  });
});
