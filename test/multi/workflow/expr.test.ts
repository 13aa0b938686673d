/** The expression language of conditions and templates: what it computes, and what it refuses. */
import { describe, expect, it } from 'vitest';
import { evalExpr, type Scope } from '../../../src/multi/workflow/expr-eval.js';
import { ExprError } from '../../../src/multi/workflow/expr-parse.js';
import { render, renderDeep } from '../../../src/multi/workflow/template.js';

const scope: Scope = {
  state: { files: ['a.ts', 'b.ts'], score: 7, verdict: 'approve', empty: [], nested: { deep: { x: 1 } } },
  input: { path: 'src/', mode: 'FULL' },
  nodes: { scan: { output: 'found 2', status: 'completed' } },
  loop: { index: 1, count: 3 },
};

describe('expressions', () => {
  it.each([
    ['len(state.files) > 1', true],
    ["state.verdict == 'approve' && state.score >= 7", true],
    ["state.verdict != 'approve' || state.score < 5", false],
    ['not (state.score > 8) and true', true],
    ["state.score > 5 ? 'good' : 'bad'", 'good'],
    ['state.files[1]', 'b.ts'],
    ['state.files[-1]', 'b.ts'],
    ["state['score'] * 2 + 1", 15],
    ['state.files.length', 2],
    ['state.nested.deep.x', 1],
    ['state.missing.deeper', null],
    ['state.empty', []],
    ['!state.empty', true],
    ["contains(state.files, 'a.ts')", true],
    ["contains(nodes.scan.output, 'found')", true],
    ["lower(input.mode) == 'full'", true],
    ["join(state.files, ' + ')", 'a.ts + b.ts'],
    ["'round ' + (loop.index + 1) + ' of ' + loop.count", 'round 2 of 3'],
    ["state.files + ['c.ts']", ['a.ts', 'b.ts', 'c.ts']],
    ["default(state.none, 'fallback')", 'fallback'],
    ["number('42') + 1", 43],
    ['state.files == ["a.ts", "b.ts"]', true],
    ['state.score === 7', true],
  ])('%s → %j', (src, expected) => {
    expect(evalExpr(src, scope)).toEqual(expected);
  });

  it.each([
    ['state.constructor', /'constructor' cannot be read/],
    ['state.__proto__', /'__proto__' cannot be read/],
    ['process.exit(1)', /unexpected '\(' at column 13/],
    ['process', /unknown name 'process'/],
    ["eval('1')", /unknown function 'eval'/],
    ['toString()', /unknown function 'toString'/],
    ['state.files - 1', /'-' needs two numbers/],
    ['1 +', /ends too early/],
    ['a = 1', /unexpected character '='/],
    ['`x`', /unexpected character '`'/],
    ["'open", /unterminated string/],
  ])('refuses %s', (src, message) => {
    expect(() => evalExpr(src, scope)).toThrow(ExprError);
    expect(() => evalExpr(src, scope)).toThrow(message);
  });
});

describe('templates', () => {
  it('a lone {{ }} gives the value itself; text around it gives text (objects as JSON)', () => {
    expect(render('{{state.files}}', scope)).toEqual(['a.ts', 'b.ts']);
    expect(render('{{ state.score }}', scope)).toBe(7);
    expect(render('Review {{input.path}} ({{len(state.files)}} files)', scope)).toBe('Review src/ (2 files)');
    expect(render('{{state.nested}}!', scope)).toBe('{\n  "deep": {\n    "x": 1\n  }\n}!');
    expect(render('no templates here', scope)).toBe('no templates here');
    expect(render('{{state.none}}', scope)).toBeNull();
    expect(render('[{{state.none}}]', scope)).toBe('[]');
    expect(render((s) => `fn ${String(s.state.score)}`, scope)).toBe('fn 7');
  });

  it('renders every string of tool arguments', () => {
    expect(
      renderDeep({ path: '{{input.path}}x.ts', lines: ['{{state.score}}', 3], on: true }, scope),
    ).toEqual({
      path: 'src/x.ts',
      lines: [7, 3],
      on: true,
    });
  });
});
