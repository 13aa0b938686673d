/**
 * Parsing JSON with an error that says where: `JSON.parse` does not always report
 * a position, so on failure a small scanner walks the text to find the first fault.
 */
import { ToolError } from '../types.js';

interface Fault {
  pos: number;
  message: string;
}

/** Unwinds the scanner from the first fault. */
class FaultFound extends Error {
  constructor(
    readonly pos: number,
    message: string,
  ) {
    super(message);
  }
}

/** Finds the first syntax error in `text`, or undefined when it is valid JSON. */
export function findJsonFault(text: string): Fault | undefined {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\n\r'.includes(text[i] ?? '')) i++;
  };
  const fail = (message: string): never => {
    throw new FaultFound(i, message);
  };
  const found = (): string => (i >= text.length ? 'the end of the input' : JSON.stringify(text[i]));
  const literal = (word: string): void => {
    if (text.startsWith(word, i)) i += word.length;
    else fail(`unexpected ${found()}; expected a value`);
  };
  const string = (): void => {
    i++;
    while (i < text.length) {
      const ch = text[i] ?? '';
      if (ch === '"') {
        i++;
        return;
      }
      if (ch === '\\') {
        const esc = text[i + 1] ?? '';
        if (esc === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) i += 6;
        else if ('"\\/bfnrt'.includes(esc) && esc !== '') i += 2;
        else fail('invalid escape in a string');
        continue;
      }
      if (ch < ' ') fail('unescaped control character (e.g. a newline) in a string');
      i++;
    }
    fail('unterminated string');
  };
  const number = (): void => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (m === null) fail(`unexpected ${found()}; expected a value`);
    i += m?.[0].length ?? 0;
  };
  const value = (): void => {
    ws();
    const ch = text[i];
    if (ch === '{') container('}', true);
    else if (ch === '[') container(']', false);
    else if (ch === '"') string();
    else if (ch === 't') literal('true');
    else if (ch === 'f') literal('false');
    else if (ch === 'n') literal('null');
    else if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) number();
    else if (ch === "'") fail('strings must use double quotes');
    else fail(`unexpected ${found()}; expected a value`);
  };
  const container = (close: string, isObject: boolean): void => {
    i++;
    ws();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      if (isObject) {
        ws();
        if (text[i] !== '"') fail(`expected a double-quoted property name but found ${found()}`);
        string();
        ws();
        if (text[i] !== ':') fail(`expected ":" after a property name but found ${found()}`);
        i++;
      }
      value();
      ws();
      if (text[i] === ',') {
        i++;
        ws();
        if (text[i] === close) fail(`trailing comma before "${close}"`);
        continue;
      }
      if (text[i] === close) {
        i++;
        return;
      }
      fail(`expected "," or "${close}" but found ${found()}`);
    }
  };
  try {
    value();
    ws();
    if (i < text.length) fail(`unexpected ${found()} after the JSON value`);
    return undefined;
  } catch (error) {
    if (error instanceof FaultFound) return { pos: error.pos, message: error.message };
    return undefined; // e.g. nesting too deep for the scanner; the caller keeps JSON.parse's message
  }
}

/** 1-based line and column of an offset. */
export function lineColumn(text: string, pos: number): { line: number; column: number } {
  const before = text.slice(0, pos);
  const line = before.split('\n').length;
  return { line, column: pos - before.lastIndexOf('\n') };
}

/** Parses JSON; on failure throws a ToolError naming the line, column and problem. */
export function parseJson(text: string, source: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(body);
  } catch (error) {
    const hint = 'fix the JSON at that spot (double quotes, no trailing commas, no comments)';
    if (body.trim() === '') throw new ToolError(`${source} is empty, not JSON`, 'pass a JSON document');
    const fault = findJsonFault(body);
    if (fault === undefined) {
      const detail = error instanceof Error ? error.message.slice(0, 200) : String(error);
      throw new ToolError(`${source} is not valid JSON: ${detail}`, hint);
    }
    const { line, column } = lineColumn(body, fault.pos);
    const lineText = body.split('\n')[line - 1] ?? '';
    const from = Math.max(0, column - 40);
    const excerpt = lineText.slice(from, column + 40);
    throw new ToolError(
      `${source} is not valid JSON: ${fault.message} at line ${line}, column ${column}\n  ${excerpt}\n  ${' '.repeat(column - 1 - from)}^`,
      hint,
    );
  }
}
