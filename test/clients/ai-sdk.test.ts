/**
 * The AI SDK (ai 6 + @ai-sdk/openai-compatible) against the built `tea serve`: a
 * client tool with `execute` over several steps (`stopWhen`), `toolChoice: 'required'`,
 * and structured output with `Output.object` (json_schema) and `generateObject` (json_object).
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { generateObject, generateText, Output, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { reply } from '../support/script.js';
import { useTeaServe } from './serve.js';

const tea = useTeaServe();
const provider = (structured: boolean) =>
  createOpenAICompatible({
    name: 'tea',
    baseURL: `${tea.url}/v1`,
    apiKey: 'none',
    supportsStructuredOutputs: structured,
  });

describe('AI SDK 6 (openai-compatible) against tea serve', () => {
  it('runs a client tool with execute over two steps with toolChoice required', async () => {
    tea.model.script(
      reply().toolCall('lookup_price', { item: 'tea' }, { id: 'call_p1' }),
      reply().text('Tea costs 3 EUR.'),
    );
    const seen: unknown[] = [];
    const result = await generateText({
      model: provider(false).chatModel('tea'),
      prompt: 'What does tea cost?',
      toolChoice: 'required',
      // The SDK checks every step against the tool choice: the answer step lets the model choose.
      prepareStep: ({ stepNumber }) => (stepNumber > 0 ? { toolChoice: 'auto' } : {}),
      stopWhen: stepCountIs(2),
      maxRetries: 0,
      tools: {
        lookup_price: tool({
          description: 'The price of an item',
          inputSchema: z.object({ item: z.string() }),
          execute: async ({ item }) => {
            seen.push(item);
            return { eur: 3 };
          },
        }),
      },
    });
    expect(seen).toEqual(['tea']);
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]!.finishReason).toBe('tool-calls');
    expect(result.text).toBe('Tea costs 3 EUR.');
    const [first, second] = tea.requests;
    expect(first!.tool_choice).toBe('required');
    expect(second!.tool_choice).toBe('auto');
    const offered = (first!.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(offered).toContain('lookup_price');
    const last = (second!.messages as { role: string; tool_call_id?: string; content?: string }[]).at(-1)!;
    expect(last).toMatchObject({ role: 'tool', tool_call_id: 'call_p1' });
    expect(JSON.parse(last.content!)).toEqual({ eur: 3 });
  });

  it('toolChoice required on every step: each request forces its first model call, as on OpenAI', async () => {
    tea.model.script(
      reply().toolCall('lookup_price', { item: 'tea' }, { id: 'call_r1' }),
      reply().toolCall('lookup_price', { item: 'milk' }, { id: 'call_r2' }),
    );
    const result = await generateText({
      model: provider(false).chatModel('tea'),
      prompt: 'Prices of tea and milk?',
      toolChoice: 'required',
      stopWhen: stepCountIs(2),
      maxRetries: 0,
      tools: {
        lookup_price: tool({
          description: 'The price of an item',
          inputSchema: z.object({ item: z.string() }),
          execute: async () => ({ eur: 3 }),
        }),
      },
    });
    expect(result.steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'tool-calls']);
    expect(tea.requests.map((r) => r.tool_choice)).toEqual(['required', 'required']);
  });

  it('streams a client tool call (streamText) and continues after its result', async () => {
    tea.model.script(
      reply().toolCall('lookup_price', { item: 'milk' }, { id: 'call_p2' }),
      reply().text('Milk: 1 EUR.'),
    );
    const result = streamText({
      model: provider(false).chatModel('tea'),
      prompt: 'Milk price?',
      stopWhen: stepCountIs(3),
      maxRetries: 0,
      tools: {
        lookup_price: tool({
          inputSchema: z.object({ item: z.string() }),
          execute: async () => ({ eur: 1 }),
        }),
      },
    });
    expect(await result.text).toBe('Milk: 1 EUR.');
    const calls = (await result.steps)[0]!.toolCalls;
    expect(calls.map((c) => [c.toolCallId, c.toolName, c.input])).toEqual([
      ['call_p2', 'lookup_price', { item: 'milk' }],
    ]);
  });

  it('Output.object with a json_schema response format', async () => {
    tea.model.script(reply().text('{"name":"Ada","age":36}'));
    const result = await generateText({
      model: provider(true).chatModel('tea'),
      prompt: 'A person',
      maxRetries: 0,
      output: Output.object({ schema: z.object({ name: z.string(), age: z.number() }) }),
    });
    expect(result.output).toEqual({ name: 'Ada', age: 36 });
    expect(tea.requests.at(-1)!.response_format).toMatchObject({ type: 'json_schema' });
  });

  it('generateObject on json_object mode', async () => {
    tea.model.script(reply().text('{"colors":["red","green"]}'));
    const result = await generateObject({
      model: provider(false).chatModel('tea'),
      prompt: 'Two colors',
      maxRetries: 0,
      schema: z.object({ colors: z.array(z.string()) }),
    });
    expect(result.object).toEqual({ colors: ['red', 'green'] });
    expect(tea.requests.at(-1)!.response_format).toEqual({ type: 'json_object' });
  });
});
