import { describe, expect, it } from 'vitest';
import { mapOpenAIFinish, OpenAIStreamState, ToolCallAssembler } from '../../src/llm/openai-stream.js';

describe('ToolCallAssembler', () => {
  it('starts a new call when a known index arrives with a different id', () => {
    const tools = new ToolCallAssembler();
    tools.add({ index: 0, id: 'a', function: { name: 'one', arguments: '{"x":1}' } });
    tools.add({ index: 0, id: 'b', function: { name: 'two', arguments: '{"y":2}' } });
    expect(tools.finish().map((c) => [c.id, c.name, c.args])).toEqual([
      ['a', 'one', { x: 1 }],
      ['b', 'two', { y: 2 }],
    ]);
  });

  it('appends index-less argument pieces to the last call and accepts object arguments', () => {
    const tools = new ToolCallAssembler();
    tools.add({ id: 'a', function: { name: 'one', arguments: '{"path":' } });
    tools.add({ function: { arguments: '"x"}' } });
    tools.add({ id: 'b', function: { name: 'two', arguments: { n: 3 } } });
    expect(tools.finish().map((c) => c.args)).toEqual([{ path: 'x' }, { n: 3 }]);
  });

  it('flags a call that never got a name', () => {
    const tools = new ToolCallAssembler();
    tools.add({ index: 0, id: 'a', function: { arguments: '{}' } });
    expect(tools.finish()[0]?.argsError).toMatch(/without a name/);
  });
});

describe('OpenAIStreamState', () => {
  it('rejects a chunk that is not an object', () => {
    expect(() => new OpenAIStreamState('p').handle([1])).toThrow(/not a JSON object/);
  });

  it('ignores null usage and keeps the last real one', () => {
    const state = new OpenAIStreamState('p');
    state.handle({ choices: [{ index: 0, delta: { content: 'a' } }], usage: null });
    state.handle({
      choices: [],
      usage: { prompt_tokens: 2, completion_tokens: 3, prompt_cache_hit_tokens: 1 },
    });
    expect(state.end()).toEqual([
      { type: 'usage', usage: { inputTokens: 2, outputTokens: 3, cachedInputTokens: 1 } },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('maps finish reasons, treating stop with tool calls as tool-calls', () => {
    expect(mapOpenAIFinish('stop', false)).toBe('stop');
    expect(mapOpenAIFinish('stop', true)).toBe('tool-calls');
    expect(mapOpenAIFinish(undefined, true)).toBe('tool-calls');
    expect(mapOpenAIFinish('function_call', false)).toBe('tool-calls');
    expect(mapOpenAIFinish('weird', false)).toBe('other');
  });
});
