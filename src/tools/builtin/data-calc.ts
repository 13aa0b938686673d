/**
 * A small, safe arithmetic evaluator: a tokenizer plus a recursive-descent parser
 * that computes as it parses. No `eval`, no `Function`, no access to anything but
 * the numbers and functions listed here.
 */
import * as z from 'zod';
import { defineTool, type Tool, ToolError } from '../types.js';

/** A problem in the expression, at a 0-based character position. */
export class CalcError extends Error {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
    this.name = 'CalcError';
  }
}

type TokenKind = 'number' | 'name' | 'op' | 'end';

interface Token {
  kind: TokenKind;
  text: string;
  value: number;
  pos: number;
}

const MAX_DEPTH = 100;
const OPERATORS = new Set(['+', '-', '*', '/', '%', '^', '(', ')', ',']);
/** Typographic signs people paste, mapped to the ASCII operator. */
const ALIASES: Record<string, string> = { '×': '*', '·': '*', '÷': '/', '−': '-', '–': '-' };
const NUMBER = /\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?/y;
const NAME = /[A-Za-z_π][A-Za-z0-9_]*/y;

export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const ch = source[i] ?? '';
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    NUMBER.lastIndex = i;
    const number = NUMBER.exec(source);
    if (number) {
      tokens.push({ kind: 'number', text: number[0], value: Number(number[0]), pos: i });
      i += number[0].length;
      continue;
    }
    NAME.lastIndex = i;
    const name = NAME.exec(source);
    if (name) {
      tokens.push({ kind: 'name', text: name[0], value: 0, pos: i });
      i += name[0].length;
      continue;
    }
    if (ch === '*' && source[i + 1] === '*') {
      tokens.push({ kind: 'op', text: '^', value: 0, pos: i });
      i += 2;
      continue;
    }
    const op = ALIASES[ch] ?? ch;
    if (!OPERATORS.has(op)) throw new CalcError(`unexpected character "${ch}"`, i);
    tokens.push({ kind: 'op', text: op, value: 0, pos: i });
    i++;
  }
  tokens.push({ kind: 'end', text: 'end of input', value: 0, pos: source.length });
  return tokens;
}

const CONSTANTS: Record<string, number> = { pi: Math.PI, π: Math.PI, e: Math.E, tau: 2 * Math.PI };

/** Trig results this close to zero are float noise (sin(pi) = 1.2e-16). */
const snap = (x: number): number => (Math.abs(x) < 1e-15 ? 0 : x);

function roundTo(x: number, digits: number): number {
  const rounded = Math.round(Number(`${Math.abs(x)}e${digits}`));
  return Math.sign(x) * Number(`${rounded}e${-digits}`);
}

interface FunctionDef {
  min: number;
  max: number;
  /** Computes the value or returns an error message. */
  apply(args: number[]): number | string;
}

const one = (f: (x: number) => number | string): FunctionDef => ({
  min: 1,
  max: 1,
  apply: (a) => f(a[0] ?? 0),
});

const FUNCTIONS: Record<string, FunctionDef> = {
  sqrt: one((x) => (x < 0 ? `sqrt of a negative number (${x})` : Math.sqrt(x))),
  abs: one(Math.abs),
  floor: one(Math.floor),
  ceil: one(Math.ceil),
  round: {
    min: 1,
    max: 2,
    apply: ([x = 0, digits = 0]) =>
      Number.isInteger(digits) && Math.abs(digits) <= 15
        ? roundTo(x, digits)
        : 'round digits must be a whole number from -15 to 15',
  },
  min: { min: 1, max: Number.POSITIVE_INFINITY, apply: (a) => Math.min(...a) },
  max: { min: 1, max: Number.POSITIVE_INFINITY, apply: (a) => Math.max(...a) },
  log: {
    min: 1,
    max: 2,
    apply: ([x = 0, base]) => {
      if (x <= 0) return `log of a non-positive number (${x})`;
      if (base === undefined) return Math.log10(x);
      if (base <= 0 || base === 1) return `log base must be positive and not 1 (got ${base})`;
      return Math.log(x) / Math.log(base);
    },
  },
  ln: one((x) => (x <= 0 ? `ln of a non-positive number (${x})` : Math.log(x))),
  log2: one((x) => (x <= 0 ? `log2 of a non-positive number (${x})` : Math.log2(x))),
  log10: one((x) => (x <= 0 ? `log10 of a non-positive number (${x})` : Math.log10(x))),
  exp: one(Math.exp),
  sin: one((x) => snap(Math.sin(x))),
  cos: one((x) => snap(Math.cos(x))),
  tan: one((x) => snap(Math.tan(x))),
  asin: one((x) => (Math.abs(x) > 1 ? `asin needs a value from -1 to 1 (got ${x})` : Math.asin(x))),
  acos: one((x) => (Math.abs(x) > 1 ? `acos needs a value from -1 to 1 (got ${x})` : Math.acos(x))),
  atan: one(Math.atan),
};

export const KNOWN_NAMES = [...Object.keys(FUNCTIONS), 'pi', 'e', 'tau'];

class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  private get current(): Token {
    return this.tokens[this.index] ?? this.tokens[this.tokens.length - 1]!;
  }

  private next(): Token {
    const token = this.current;
    if (token.kind !== 'end') this.index++;
    return token;
  }

  private isOp(text: string): boolean {
    return this.current.kind === 'op' && this.current.text === text;
  }

  private expect(text: string, why: string): void {
    if (!this.isOp(text))
      throw new CalcError(`expected "${text}" ${why} but found ${describe(this.current)}`, this.current.pos);
    this.next();
  }

  parse(): number {
    const value = this.expression();
    if (this.current.kind !== 'end') {
      throw new CalcError(`expected an operator but found ${describe(this.current)}`, this.current.pos);
    }
    return value;
  }

  /** expression := term (('+' | '-') term)* */
  private expression(): number {
    if (++this.depth > MAX_DEPTH)
      throw new CalcError('the expression is nested too deeply', this.current.pos);
    let value = this.term();
    while (this.isOp('+') || this.isOp('-')) {
      const op = this.next().text;
      const right = this.term();
      value = op === '+' ? value + right : value - right;
    }
    this.depth--;
    return value;
  }

  /** term := unary (('*' | '/' | '%') unary)* */
  private term(): number {
    let value = this.unary();
    while (this.isOp('*') || this.isOp('/') || this.isOp('%')) {
      const op = this.next();
      const right = this.unary();
      if (op.text === '*') value *= right;
      else if (right === 0)
        throw new CalcError(op.text === '/' ? 'division by zero' : 'modulo by zero', op.pos);
      else value = op.text === '/' ? value / right : value % right;
    }
    return value;
  }

  /** unary := ('+' | '-') unary | power — so -2^2 is -(2^2). */
  private unary(): number {
    if (this.isOp('-') || this.isOp('+')) {
      if (++this.depth > MAX_DEPTH)
        throw new CalcError('the expression is nested too deeply', this.current.pos);
      const sign = this.next().text === '-' ? -1 : 1;
      const value = sign * this.unary();
      this.depth--;
      return value;
    }
    return this.power();
  }

  /** power := primary ('^' unary)? — right-associative: 2^3^2 is 2^(3^2). */
  private power(): number {
    const base = this.primary();
    if (!this.isOp('^')) return base;
    const op = this.next();
    const exponent = this.unary();
    const value = base ** exponent;
    if (Number.isNaN(value)) throw new CalcError(`${base} ^ ${exponent} is not a real number`, op.pos);
    return value;
  }

  /** primary := number | constant | name '(' args ')' | '(' expression ')' */
  private primary(): number {
    const token = this.next();
    if (token.kind === 'number') return token.value;
    if (token.kind === 'op' && token.text === '(') {
      const value = this.expression();
      this.expect(')', `to close the "(" at position ${token.pos + 1}`);
      return value;
    }
    if (token.kind === 'name') return this.name(token);
    throw new CalcError(`expected a number, a name or "(" but found ${describe(token)}`, token.pos);
  }

  private name(token: Token): number {
    const key = token.text === 'π' ? token.text : token.text.toLowerCase();
    // Own properties only: "constructor" and friends are not functions of ours.
    const fn = Object.hasOwn(FUNCTIONS, key) ? FUNCTIONS[key] : undefined;
    if (fn === undefined) {
      if (Object.hasOwn(CONSTANTS, key)) return CONSTANTS[key] ?? 0;
      throw new CalcError(`unknown name "${token.text}"`, token.pos);
    }
    this.expect('(', `after the function ${key}`);
    const args: number[] = [];
    if (!this.isOp(')')) {
      args.push(this.expression());
      while (this.isOp(',')) {
        this.next();
        args.push(this.expression());
      }
    }
    this.expect(')', `to close the call to ${key}`);
    if (args.length < fn.min || args.length > fn.max) {
      const wanted =
        fn.min === fn.max
          ? `${fn.min}`
          : fn.max === Number.POSITIVE_INFINITY
            ? `at least ${fn.min}`
            : `${fn.min} or ${fn.max}`;
      const noun = wanted.endsWith(' 1') || wanted === '1' ? 'argument' : 'arguments';
      throw new CalcError(`${key} takes ${wanted} ${noun}, got ${args.length}`, token.pos);
    }
    const result = fn.apply(args);
    if (typeof result === 'string') throw new CalcError(result, token.pos);
    return result;
  }
}

function describe(token: Token): string {
  return token.kind === 'end' ? 'the end of the expression' : `"${token.text}"`;
}

/** Evaluates an arithmetic expression; throws CalcError with the position of a problem. */
export function evaluate(expression: string): number {
  const source = expression.replace(/=\s*$/, '');
  if (source.trim() === '') throw new CalcError('the expression is empty', 0);
  const value = new Parser(tokenize(source)).parse();
  if (Number.isNaN(value)) throw new CalcError('the result is not a number', 0);
  if (!Number.isFinite(value)) throw new CalcError('the result is too large to represent', 0);
  return value;
}

/** Twelve significant digits hide float noise: 0.1 + 0.2 shows as 0.3. */
export function formatNumber(value: number): string {
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  const rounded = Number(value.toPrecision(12));
  return String(Object.is(rounded, -0) ? 0 : rounded);
}

/** The error message with the expression and a caret under the problem. */
function explain(expression: string, error: CalcError): string {
  const line = expression.replace(/\s/g, ' ');
  return `${error.message} at position ${error.position + 1}\n  ${line}\n  ${' '.repeat(error.position)}^`;
}

export function calculateTool(): Tool {
  return defineTool({
    name: 'calculate',
    description:
      'Evaluate an arithmetic expression exactly and safely: + - * / % ^ (right-associative), parentheses, ' +
      'pi, e, sqrt abs round floor ceil min max log (base 10, or log(x, base)) ln exp sin cos tan (radians).',
    parameters: z.object({
      expression: z.string().min(1).max(2000).describe('e.g. "(3 + 4) * 2^10 / sqrt(2)"'),
    }),
    category: 'data',
    keywords: [
      'calculate',
      'math',
      'compute',
      'arithmetic',
      'sum',
      'percent',
      'formula',
      '计算',
      '算',
      '数学',
    ],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 5000,
    subject: (args) => args.expression,
    async execute(args) {
      try {
        return `${args.expression.trim()} = ${formatNumber(evaluate(args.expression))}`;
      } catch (error) {
        if (!(error instanceof CalcError)) throw error;
        throw new ToolError(
          explain(args.expression, error),
          `use numbers, + - * / % ^, parentheses and the functions ${KNOWN_NAMES.join(', ')}`,
        );
      }
    },
  });
}
