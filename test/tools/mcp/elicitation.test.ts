/** The answers an elicitation form takes (elicitation.ts), and the refusals of sampling requests Tea cannot honour. */
import { describe, expect, it } from 'vitest';
import { parseAnswer, withDefaults } from '../../../src/tools/mcp/elicitation.js';
import { McpAnswerError, samplingMessages } from '../../../src/tools/mcp/sampling.js';

describe('elicitation answers', () => {
  it('parses each field type and says what is wrong with a bad answer', () => {
    expect(parseAnswer({ type: 'integer', minimum: 1, maximum: 100 }, ' 42 ')).toBe(42);
    expect(() => parseAnswer({ type: 'integer' }, '4.5')).toThrow('answer with a whole number');
    expect(() => parseAnswer({ type: 'number', maximum: 10 }, '11')).toThrow('the most allowed is 10');
    expect(parseAnswer({ type: 'boolean' }, 'Yes')).toBe(true);
    expect(() => parseAnswer({ type: 'boolean' }, 'maybe')).toThrow('answer yes or no');
    expect(parseAnswer({ type: 'string', enum: ['active', 'inactive'] }, 'INACTIVE')).toBe('inactive');
    expect(parseAnswer({ type: 'string', oneOf: [{ const: 'r', title: 'Red' }] }, 'Red')).toBe('r');
    expect(() => parseAnswer({ type: 'string', enum: ['a', 'b'] }, 'c')).toThrow('choose one of: a, b');
    expect(() => parseAnswer({ type: 'string', format: 'email' }, 'nope')).toThrow(
      'answer with an email address',
    );
    expect(parseAnswer({ type: 'array', items: { type: 'string', enum: ['x', 'y'] } }, 'x, y')).toEqual([
      'x',
      'y',
    ]);
  });

  it('fills the fields an answer leaves out with their defaults, and keeps the given ones', () => {
    const schema = {
      type: 'object' as const,
      properties: {
        name: { type: 'string' as const, default: 'John Doe' },
        age: { type: 'integer' as const, default: 30 },
        note: { type: 'string' as const },
      },
    };
    expect(withDefaults(schema, { name: 'Ada' })).toEqual({ name: 'Ada', age: 30 });
  });
});

describe('sampling messages', () => {
  it('takes text and user images; refuses audio with an error the server sees', () => {
    const messages = samplingMessages({
      systemPrompt: 'Be brief.',
      maxTokens: 10,
      messages: [
        { role: 'user', content: { type: 'text', text: 'hi' } },
        { role: 'user', content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] },
      ],
    });
    expect(messages.map((m) => m.role)).toEqual(['system', 'user', 'user']);
    expect(messages[2]!.parts[0]).toEqual({ type: 'image', mediaType: 'image/png', data: 'AAAA' });
    const audio = () =>
      samplingMessages({
        maxTokens: 10,
        messages: [{ role: 'user', content: { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' } }],
      });
    expect(audio).toThrow(McpAnswerError);
    expect(audio).toThrow('this request has audio content in a user message');
  });
});
