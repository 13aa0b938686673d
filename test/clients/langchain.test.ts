/**
 * LangChain's ChatOpenAI (@langchain/openai 1.5.8) against the built `tea serve`:
 * `bindTools` gets `tool_calls` and continues with a ToolMessage; `withStructuredOutput`
 * gets the parsed object.
 */
import { ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { reply } from '../support/script.js';
import { useTeaServe } from './serve.js';

const tea = useTeaServe();
const chat = () =>
  new ChatOpenAI({
    model: 'tea',
    apiKey: 'none',
    maxRetries: 0,
    configuration: { baseURL: `${tea.url}/v1` },
  });

const add = tool(async ({ a, b }: { a: number; b: number }) => String(a + b), {
  name: 'add',
  description: 'Adds two numbers',
  schema: z.object({ a: z.number(), b: z.number() }),
});

describe('LangChain ChatOpenAI against tea serve', () => {
  it('bindTools: the model calls the client tool; a ToolMessage continues the turn', async () => {
    tea.model.script(reply().toolCall('add', { a: 2, b: 3 }, { id: 'call_a1' }), reply().text('2 + 3 = 5'));
    const model = chat().bindTools([add], { tool_choice: 'add' });
    const question = { role: 'user', content: 'What is 2 + 3?' } as const;
    const first = await model.invoke([question]);
    expect(first.tool_calls).toEqual([
      { id: 'call_a1', name: 'add', args: { a: 2, b: 3 }, type: 'tool_call' },
    ]);
    expect(tea.requests[0]!.tool_choice).toEqual({ type: 'function', function: { name: 'add' } });
    const result = await add.invoke(first.tool_calls![0]!);
    expect(result).toBeInstanceOf(ToolMessage);
    const second = await model.invoke([question, first, result]);
    expect(second.content).toBe('2 + 3 = 5');
    const sent = tea.requests[1]!.messages as { role: string; content?: string }[];
    expect(sent.at(-1)).toMatchObject({ role: 'tool', content: '5' });
  });

  it('withStructuredOutput(zod) returns the parsed object', async () => {
    tea.model.script(reply().text('{"title":"Dune","year":1965}'));
    const model = chat().withStructuredOutput(z.object({ title: z.string(), year: z.number() }), {
      name: 'book',
    });
    expect(await model.invoke('A famous novel')).toEqual({ title: 'Dune', year: 1965 });
    expect(tea.requests.at(-1)!.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'book' },
    });
  });
});
