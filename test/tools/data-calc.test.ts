import { describe, expect, it } from 'vitest';
import { dataTools } from '../../src/tools/builtin/data.js';
import { CalcError, evaluate, formatNumber } from '../../src/tools/builtin/data-calc.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool, type ToolRunResult } from '../../src/tools/run.js';
import { call, makeCtx } from './helpers.js';

function calculate(expression: string): Promise<ToolRunResult> {
  const registry = new ToolRegistry();
  registry.registerAll(dataTools());
  return runTool(registry, call('calculate', { expression }), makeCtx(process.cwd()));
}

const value = (expression: string): string => formatNumber(evaluate(expression));

describe('calculate', () => {
  it('follows operator precedence and associativity', () => {
    expect(value('2 + 3 * 4')).toBe('14');
    expect(value('(2 + 3) * 4')).toBe('20');
    expect(value('10 - 4 - 3')).toBe('3');
    expect(value('100 / 10 / 5')).toBe('2');
    expect(value('2 ^ 3 ^ 2')).toBe('512');
    expect(value('(2 ^ 3) ^ 2')).toBe('64');
    expect(value('-2 ^ 2')).toBe('-4');
    expect(value('(-2) ^ 2')).toBe('4');
    expect(value('2 ^ -1')).toBe('0.5');
    expect(value('2 * -3')).toBe('-6');
    expect(value('--3')).toBe('3');
    expect(value('7 % 3 + 2 * 3 % 4')).toBe('3');
    expect(value('2 + 3 * 4 ^ 2 / (1 - 5)')).toBe('-10');
  });

  it('reads decimals, exponents, constants and typographic operators', () => {
    expect(value('0.1 + 0.2')).toBe('0.3');
    expect(value('.5 + 1.')).toBe('1.5');
    expect(value('1e3 + 2.5E-1')).toBe('1000.25');
    expect(value('3 × 4 ÷ 2 − 1')).toBe('5');
    expect(value('2 ** 10')).toBe('1024');
    expect(value('2 * PI')).toBe(value('tau'));
    expect(value('π')).toBe('3.14159265359');
    expect(value('e')).toBe('2.71828182846');
    expect(value('1 + 1 =')).toBe('2');
    expect(value('1 / 3')).toBe('0.333333333333');
  });

  it('knows its functions', () => {
    expect(value('sqrt(16) + abs(-3)')).toBe('7');
    expect(value('round(2.345, 2)')).toBe('2.35');
    expect(value('round(1.005, 2)')).toBe('1.01');
    expect(value('round(-2.5)')).toBe('-3');
    expect(value('round(1234, -2)')).toBe('1200');
    expect(value('floor(-1.5) + ceil(1.2)')).toBe('0');
    expect(value('min(3, 1, 2) + max(4, 9)')).toBe('10');
    expect(value('log(1000)')).toBe('3');
    expect(value('log(8, 2)')).toBe('3');
    expect(value('ln(e ^ 2)')).toBe('2');
    expect(value('sin(pi) + cos(0) + tan(pi / 4)')).toBe('2');
    expect(value('sin(pi / 6)')).toBe('0.5');
    expect(value('exp(0) + log2(8) + log10(100)')).toBe('6');
  });

  it('answers the tool call with the expression and result', async () => {
    expect(await calculate(' (3 + 4) * 2^10 ')).toEqual({
      output: '(3 + 4) * 2^10 = 7168',
      isError: false,
      status: 'ok',
    });
  });

  it('points at syntax problems', async () => {
    const r = await calculate('2 + * 3');
    expect(r.status).toBe('error');
    expect(r.output.split('\n').slice(0, 3)).toEqual([
      '[ERROR] expected a number, a name or "(" but found "*" at position 5',
      '  2 + * 3',
      '      ^',
    ]);
    expect(r.output).toMatch(/\nHint: use numbers, \+ - \* \/ % \^, parentheses and the functions sqrt, /);
    expect((await calculate('(1 + 2')).output).toMatch(
      /^\[ERROR\] expected "\)" to close the "\(" at position 1 but found the end of the expression at position 7\n {2}\(1 \+ 2\n {8}\^/,
    );
    expect((await calculate('2 3')).output).toMatch(
      /^\[ERROR\] expected an operator but found "3" at position 3/,
    );
    expect((await calculate('4 $ 2')).output).toMatch(/^\[ERROR\] unexpected character "\$" at position 3/);
    expect((await calculate('sqrt 4')).output).toMatch(
      /^\[ERROR\] expected "\(" after the function sqrt but found "4"/,
    );
    expect((await calculate('   ')).output).toMatch(/^\[ERROR\] the expression is empty at position 1/);
  });

  it('explains math errors instead of returning Infinity or NaN', async () => {
    expect((await calculate('1 / (2 - 2)')).output).toMatch(
      /^\[ERROR\] division by zero at position 3\n {2}1 \/ \(2 - 2\)\n {4}\^/,
    );
    expect((await calculate('5 % 0')).output).toMatch(/^\[ERROR\] modulo by zero at position 3/);
    expect((await calculate('sqrt(-4)')).output).toMatch(
      /^\[ERROR\] sqrt of a negative number \(-4\) at position 1/,
    );
    expect((await calculate('log(0)')).output).toMatch(/^\[ERROR\] log of a non-positive number \(0\)/);
    expect((await calculate('(-8) ^ (1/3)')).output).toMatch(
      /^\[ERROR\] -8 \^ 0.3333333333333333 is not a real number/,
    );
    expect((await calculate('10 ^ 400')).output).toMatch(/^\[ERROR\] the result is too large to represent/);
    expect((await calculate('sqrt(1, 2)')).output).toMatch(/^\[ERROR\] sqrt takes 1 argument, got 2/);
    expect((await calculate('max()')).output).toMatch(/^\[ERROR\] max takes at least 1 argument, got 0/);
    expect((await calculate('round(1, 0.5)')).output).toMatch(
      /^\[ERROR\] round digits must be a whole number/,
    );
  });

  it('evaluates nothing but arithmetic', async () => {
    expect((await calculate('process.exit(1)')).output).toMatch(
      /^\[ERROR\] unexpected character "\." at position 8/,
    );
    expect((await calculate('process')).output).toMatch(/^\[ERROR\] unknown name "process" at position 1/);
    expect((await calculate('log(8, 2, 3)')).output).toMatch(/^\[ERROR\] log takes 1 or 2 arguments, got 3/);
    expect((await calculate('constructor')).output).toMatch(/^\[ERROR\] unknown name "constructor"/);
    expect((await calculate('toString(1)')).output).toMatch(/^\[ERROR\] unknown name "toString"/);
    expect((await calculate('__proto__')).output).toMatch(/^\[ERROR\] unknown name "__proto__"/);
    expect((await calculate('pi(2)')).output).toMatch(/^\[ERROR\] expected an operator but found "\("/);
    expect(() => evaluate(`${'('.repeat(500)}1${')'.repeat(500)}`)).toThrow(CalcError);
    expect(() => evaluate(`${'-'.repeat(500)}1`)).toThrow('nested too deeply');
    expect(value(`${'('.repeat(50)}1${')'.repeat(50)}`)).toBe('1');
  });
});
