import { describe, expect, it } from 'vitest';
import { buildContext } from '../../src/context/build.js';
import { DIGEST_HEADER, PAIR_HEADER } from '../../src/context/format.js';
import { estimateMessage } from '../../src/context/tokens.js';
import { cutHead, cutText } from '../../src/context/trim.js';
import type { ContextInput, TrimStep } from '../../src/context/types.js';
import type { Message } from '../../src/llm/types.js';
import {
  assertConsistent,
  assistant,
  call,
  est,
  exactBudget,
  hugeBudget,
  input,
  pair,
  result,
  sum,
  textOf,
  tool,
  user,
} from './fixtures.js';

const STEPS: TrimStep[] = [
  'drop-pairs',
  'placeholder-tool-output',
  'drop-reasoning',
  'cut-long-text',
  'drop-old-turns',
  'cut-last-message',
];

const THINK = 'think '.repeat(40);
const OUTPUT = 'o'.repeat(600);
const LONG_ANSWER = 'A'.repeat(5000);
const QUESTION = 'Q'.repeat(5000);
const placeholder = (n: number): string => `[tool result omitted: 600 chars — c${n}]`;

/**
 * The messages of one scenario after the first `steps` trim steps, written out
 * by hand: one L2 pair, seven complete turns (thinking on every call, a 5,000
 * character answer in turn 6, thinking on the last answer) and a 5,000 character
 * new question. `dropped` is how many old turns step 5 removed.
 */
function scenario(steps: number, dropped = 3): Message[] {
  const out: Message[] = [{ role: 'system', parts: [{ type: 'text', text: 'You are Tea.' }] }];
  if (steps < 1) out.push(user(`${PAIR_HEADER}\nalpha question`), assistant('alpha answer'));
  for (let n = steps >= 5 ? dropped + 1 : 1; n <= 7; n++) {
    const oldOutput = n <= 5 || steps >= 2;
    let answer = n === 6 ? LONG_ANSWER : `answer ${n}`;
    if (n === 6 && steps >= 4) answer = `${'A'.repeat(4096)}\n… [cut 904 chars]`;
    out.push(
      user(`question ${n}`),
      steps >= 3
        ? assistant('', { calls: [call(`c${n}`)] })
        : assistant('', { thinking: THINK, calls: [call(`c${n}`)] }),
      tool(result(`c${n}`, oldOutput ? placeholder(n) : OUTPUT)),
      n === 7 ? assistant(answer, { thinking: 'final thought' }) : assistant(answer),
    );
  }
  out.push(user(QUESTION));
  return out;
}

function scenarioInput(): ContextInput {
  const recent: Message[] = [];
  for (let n = 1; n <= 7; n++) {
    recent.push(
      user(`question ${n}`),
      assistant('', { thinking: THINK, calls: [call(`c${n}`)] }),
      tool(result(`c${n}`, OUTPUT)),
      n === 7
        ? assistant('answer 7', { thinking: 'final thought' })
        : assistant(n === 6 ? LONG_ANSWER : `answer ${n}`),
    );
  }
  recent.push(user(QUESTION));
  return input({ pairs: [pair('p', 'alpha question', 'alpha answer')], recent });
}

describe('progressive trim, one strategy at a time', () => {
  it('builds the untrimmed scenario as written', () => {
    const out = buildContext(scenarioInput(), hugeBudget, est);
    assertConsistent(out.messages);
    expect(out.messages).toEqual(scenario(0));
    expect(out.trimmed).toEqual([]);
  });

  for (let k = 1; k <= 5; k++) {
    it(`stops after step ${k} (${STEPS[k - 1]}) when that is exactly enough`, () => {
      const expected = scenario(k);
      const limit = sum(expected);
      expect(limit).toBeLessThan(sum(scenario(k - 1)));
      const out = buildContext(scenarioInput(), exactBudget(limit), est);
      assertConsistent(out.messages);
      expect(out.trimmed).toEqual(STEPS.slice(0, k));
      expect(out.messages).toEqual(expected);
      expect(out.tokens).toBe(limit);
    });
  }

  it('drops old turns one at a time, oldest first, keeping each call with its result', () => {
    const expected = scenario(5, 1);
    const out = buildContext(scenarioInput(), exactBudget(sum(expected)), est);
    assertConsistent(out.messages);
    expect(out.trimmed).toEqual(STEPS.slice(0, 5));
    expect(out.messages).toEqual(expected);
    expect(textOf(out.messages[1])).toBe('question 2');
  });

  it('finally cuts the middle of the last message to what fits, keeping its start and end', () => {
    const before = scenario(5);
    const limit = sum(before.slice(0, -1)) + 300;
    const out = buildContext(scenarioInput(), exactBudget(limit), est);
    assertConsistent(out.messages);
    expect(out.trimmed).toEqual(STEPS);
    expect(out.messages.slice(0, -1)).toEqual(before.slice(0, -1));
    const last = textOf(out.messages.at(-1));
    const m = /^(Q+)\n… \[cut (\d+) chars\]\n(Q+)$/.exec(last);
    expect(m).not.toBeNull();
    const [head, cut, tail] = [m![1]!.length, Number(m![2]), m![3]!.length];
    expect(head + tail).toBeGreaterThan(1000);
    expect(head + cut + tail).toBe(5000);
    expect(head - tail).toBeLessThanOrEqual(1);
    expect(out.tokens).toBe(limit);
  });

  it('cuts a pasted 5 MB message to within 1% of what fits with a handful of estimates', () => {
    const line = 'The deploy of billing-api failed at 03:14 (E1234). 部署计费服务失败了，请检查日志。\n';
    const pasted = line.repeat(Math.ceil((5 * 1024 * 1024) / line.length));
    let longEstimates = 0;
    const counting = (m: Message): number => {
      if (textOf(m).length > 10_000) longEstimates++;
      return estimateMessage(m);
    };
    const limit = 64_000;
    const out = buildContext(input({ recent: [user(pasted)] }), exactBudget(limit), counting);
    expect(out.trimmed).toContain('cut-last-message');
    expect(out.tokens).toBeLessThanOrEqual(limit);
    expect(out.tokens).toBeGreaterThan(limit * 0.98);
    // the whole message once, then a few tries of the cut: not a binary search over all of it
    expect(longEstimates).toBeLessThanOrEqual(6);
    const last = textOf(out.messages.at(-1));
    expect(last.startsWith(line)).toBe(true);
    expect(last.endsWith(line)).toBe(true);
  });

  it('returns an over-budget result when even the last cut is not enough', () => {
    const out = buildContext(
      { ...scenarioInput(), instructions: ['Always answer in English.'] },
      exactBudget(20),
      est,
    );
    assertConsistent(out.messages);
    expect(out.trimmed).toEqual(STEPS);
    expect(out.tokens).toBeGreaterThan(out.limit);
    expect(textOf(out.messages[0])).toContain('Always answer in English.');
    expect(out.messages.at(-1)?.role).toBe('user');
    expect(textOf(out.messages.at(-1))).toBe('\n… [cut 5000 chars]');
  });

  it('skips steps that have nothing to do and records only the ones that changed something', () => {
    const recent = [user('x'.repeat(3000)), assistant('y'.repeat(3000)), user('z'.repeat(400))];
    const base = buildContext(input({ recent }), hugeBudget, est);
    // no L2, no tool output, no thinking, nothing over 4,096 chars, fewer than 5 turns
    const out = buildContext(input({ recent }), exactBudget(base.tokens - 50), est);
    assertConsistent(out.messages);
    expect(out.trimmed).toEqual(['cut-last-message']);
    expect(out.messages.slice(0, -1)).toEqual(base.messages.slice(0, -1));
    expect(out.tokens).toBe(base.tokens - 50);
  });
});

describe('drop-pairs order', () => {
  const loose = pair(
    'b',
    'Write release notes for version two',
    'Release notes drafted, mentioning parser speedups, changelog, contributors, documentation, installer, website, translations',
  );
  const first = pair(
    'a1',
    'The parser tokenizer crashes on empty input',
    'Fixed the tokenizer bug in parser module',
  );
  const second = pair(
    'a2',
    'The parser tokenizer bug again, module level',
    'Fixed the parser tokenizer module bug for real',
  );
  const args = input({
    pairs: [first, loose, second],
    recent: [user('Fix the tokenizer bug in the parser module')],
  });

  it('drops the digest block first', () => {
    const base = buildContext(args, hugeBudget, est);
    expect([base.pairsFull, base.pairsDigest]).toEqual([2, 1]);
    expect(textOf(base.messages[1]).startsWith(DIGEST_HEADER)).toBe(true);
    const out = buildContext(args, exactBudget(base.tokens - sum(base.messages.slice(1, 3))), est);
    assertConsistent(out.messages);
    expect(out.trimmed).toEqual(['drop-pairs']);
    expect([out.pairsFull, out.pairsDigest]).toEqual([2, 0]);
    expect(out.messages).toEqual([base.messages[0], ...base.messages.slice(3)]);
  });

  it('then drops full pairs oldest first', () => {
    const base = buildContext(args, hugeBudget, est);
    const out = buildContext(args, exactBudget(base.tokens - sum(base.messages.slice(1, 5))), est);
    assertConsistent(out.messages);
    expect(out.trimmed).toEqual(['drop-pairs']);
    expect([out.pairsFull, out.pairsDigest]).toEqual([1, 0]);
    expect(textOf(out.messages[1])).toBe(`${PAIR_HEADER}\n${second.user}`);
    expect(out.messages.length).toBe(4);
  });
});

describe('cut helpers', () => {
  it('cuts text to its head with a note and never splits a surrogate pair', () => {
    expect(cutText('abcdef', 10)).toBe('abcdef');
    expect(cutText('abcdef', 4)).toBe('abcd\n… [cut 2 chars]');
    expect(cutText('a😀b', 2)).toBe('a\n… [cut 3 chars]');
  });

  it('keeps a head across text parts and tool output in order', () => {
    const m: Message = { role: 'tool', parts: [result('c', 'hello world')] };
    expect(cutHead(m, 5).parts[0]).toMatchObject({ output: 'hello\n… [cut 6 chars]', callId: 'c' });
    const u: Message = {
      role: 'user',
      parts: [
        { type: 'text', text: 'abc' },
        { type: 'text', text: 'defg' },
      ],
    };
    expect(cutHead(u, 5).parts).toEqual([
      { type: 'text', text: 'abc' },
      { type: 'text', text: 'de\n… [cut 2 chars]' },
    ]);
  });
});
