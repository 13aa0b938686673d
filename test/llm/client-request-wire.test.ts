/** Tool choice and response format in the request bodies of both wires. */
import { describe, expect, it } from 'vitest';
import { buildAnthropicBody } from '../../src/llm/anthropic-wire.js';
import { buildOpenAIBody } from '../../src/llm/openai-wire.js';
import type { Message, ModelInfo, ToolSpec } from '../../src/llm/types.js';

const info = (over: Partial<ModelInfo> = {}): ModelInfo => ({
  profile: 'main_model',
  provider: 'openai',
  model: 'gpt-4o',
  baseUrl: 'http://127.0.0.1:1/v1',
  contextWindow: 128_000,
  maxOutputTokens: 4096,
  ...over,
});
const messages: Message[] = [
  { role: 'system', parts: [{ type: 'text', text: 'You are Tea.' }] },
  { role: 'user', parts: [{ type: 'text', text: 'hi' }] },
];
const tools: ToolSpec[] = [{ name: 'f', description: 'F', parameters: { type: 'object', properties: {} } }];
const schema = { type: 'object', properties: { a: { type: 'number' } } };

describe('OpenAI wire', () => {
  it('sends tool_choice with tools only, a named one as a function', () => {
    expect(buildOpenAIBody(info(), { messages, tools, toolChoice: { name: 'f' } }).tool_choice).toEqual({
      type: 'function',
      function: { name: 'f' },
    });
    expect(buildOpenAIBody(info(), { messages, tools, toolChoice: 'required' }).tool_choice).toBe('required');
    expect(
      buildOpenAIBody(info(), { messages, tools: [], toolChoice: 'required' }).tool_choice,
    ).toBeUndefined();
  });

  it('sends response_format as OpenAI spells it', () => {
    const body = buildOpenAIBody(info(), {
      messages,
      responseFormat: { type: 'json_schema', name: 'n', schema, strict: true },
    });
    expect(body.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'n', schema, strict: true },
    });
    expect(
      buildOpenAIBody(info(), { messages, responseFormat: { type: 'json_object' } }).response_format,
    ).toEqual({
      type: 'json_object',
    });
  });
});

describe('Anthropic wire', () => {
  const claude = info({ provider: 'anthropic', model: 'claude-x', baseUrl: 'http://127.0.0.1:1' });

  it('maps tool choices: required is any, a name is tool, auto and none stay', () => {
    const choice = (toolChoice: Parameters<typeof buildAnthropicBody>[1]['toolChoice']) =>
      buildAnthropicBody(claude, { messages, tools, ...(toolChoice ? { toolChoice } : {}) }, undefined)
        .tool_choice;
    expect(choice('required')).toEqual({ type: 'any' });
    expect(choice({ name: 'f' })).toEqual({ type: 'tool', name: 'f' });
    expect(choice('none')).toEqual({ type: 'none' });
    expect(choice(undefined)).toBeUndefined();
  });

  it('a forced tool choice goes without extended thinking (Anthropic refuses both)', () => {
    expect(
      buildAnthropicBody(claude, { messages, tools, toolChoice: 'required' }, 2048).thinking,
    ).toBeUndefined();
    expect(buildAnthropicBody(claude, { messages, tools, toolChoice: 'auto' }, 2048).thinking).toEqual({
      type: 'enabled',
      budget_tokens: 2048,
    });
  });

  it('asks for the response format in the system prompt, after the system text', () => {
    const body = buildAnthropicBody(
      claude,
      { messages, responseFormat: { type: 'json_schema', name: 'n', schema } },
      undefined,
    );
    expect(body.system).toMatch(/^You are Tea\.\n\nResponse format: .*single JSON value/s);
    expect(body.system).toContain(JSON.stringify(schema));
    const plain = buildAnthropicBody(
      claude,
      { messages: messages.slice(1), responseFormat: { type: 'json_object' } },
      undefined,
    );
    expect(plain.system).toMatch(/^Response format: .*It must be a JSON object\.$/s);
  });
});
