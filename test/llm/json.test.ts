import { describe, expect, it } from 'vitest';
import { parseToolArgs } from '../../src/llm/json.js';

describe('parseToolArgs', () => {
  it('parses valid JSON objects without repair', () => {
    expect(parseToolArgs('{"path":"a.txt","n":2}')).toEqual({
      args: { path: 'a.txt', n: 2 },
      repaired: false,
    });
  });

  it('treats an empty or blank string as no arguments', () => {
    expect(parseToolArgs('')).toEqual({ args: {}, repaired: false });
    expect(parseToolArgs('  \n')).toEqual({ args: {}, repaired: false });
  });

  it.each([
    ['trailing comma', '{"a":1,}', { a: 1 }],
    ['single quotes', "{'a': 'x'}", { a: 'x' }],
    ['cut-off object', '{"path": "a.txt"', { path: 'a.txt' }],
    ['unquoted keys', '{a:1}', { a: 1 }],
    ['code fence', '```json\n{"a":1}\n```', { a: 1 }],
  ])('repairs %s', (_label, raw, expected) => {
    const result = parseToolArgs(raw);
    expect(result.args).toEqual(expected);
    expect(result.repaired).toBe(true);
    expect(result.error).toBeUndefined();
  });

  it.each([
    ['an array', '[1,2]', /must be a JSON object, got an array/],
    ['a number', '42', /got a number/],
    ['null', 'null', /got null/],
    ['a string', '"str"', /got a string/],
    ['prose', 'hello world', /got a string: hello world/],
  ])('rejects %s with a clear error and empty args', (_label, raw, message) => {
    const result = parseToolArgs(raw);
    expect(result.args).toEqual({});
    expect(result.repaired).toBe(false);
    expect(result.error).toMatch(message);
  });

  it('reports unrepairable text with the reason and a preview of the input', () => {
    const result = parseToolArgs('{{{');
    expect(result.args).toEqual({});
    expect(result.error).toMatch(/^tool arguments are not valid JSON \(.+\): \{\{\{$/);
  });

  it('keeps error previews short for huge inputs', () => {
    const result = parseToolArgs(`[${'1,'.repeat(5000)}1]`);
    expect(result.error).toBeDefined();
    expect(result.error!.length).toBeLessThan(300);
  });
});
