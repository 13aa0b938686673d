import { describe, expect, it } from 'vitest';
import { budgetLimit, buildContext } from '../../src/context/build.js';
import {
  DIGEST_ACK,
  DIGEST_HEADER,
  PAIR_HEADER,
  SUMMARY_ACK,
  SUMMARY_HEADER,
} from '../../src/context/format.js';
import { digestOf } from '../../src/context/relevance.js';
import { estimateMessage } from '../../src/context/tokens.js';
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
  results,
  sum,
  textOf,
  tool,
  turn,
  user,
} from './fixtures.js';

describe('L0: the system message', () => {
  it('puts prompt, instructions, resume, memories and skills in one system message, in that order', () => {
    const out = buildContext(
      input({
        system: 'You are Tea.',
        instructions: ['Use tabs.', 'Never push to main.'],
        resume: '- [ ] finish the parser',
        memories: 'The user prefers short answers.',
        skills: 'skill: release-notes',
        recent: [user('hello')],
      }),
      hugeBudget,
      est,
    );
    assertConsistent(out.messages);
    expect(out.messages.map((m) => m.role)).toEqual(['system', 'user']);
    const system = textOf(out.messages[0]);
    const order = [
      'You are Tea.',
      '## Project instructions (1 of 2)\n\nUse tabs.',
      '## Project instructions (2 of 2)\n\nNever push to main.',
      '## Unfinished work\n\n- [ ] finish the parser',
      '## Memories\n\nThe user prefers short answers.',
      '## Skills\n\nskill: release-notes',
    ];
    const positions = order.map((s) => system.indexOf(s));
    expect(positions.every((p) => p >= 0)).toBe(true);
    expect([...positions].sort((a, b) => a - b)).toEqual(positions);
  });

  it('leaves out absent blocks and uses a single heading for one instruction', () => {
    const out = buildContext(input({ instructions: ['Be brief.'], recent: [user('hi')] }), hugeBudget, est);
    expect(textOf(out.messages[0])).toBe('You are Tea.\n\n## Project instructions\n\nBe brief.');
    expect(out.trimmed).toEqual([]);
  });

  it('never trims the instructions, even when the budget is far too small', () => {
    const instructions = ['x'.repeat(9000), 'Rule two.'];
    const recent = [...turn(1, 'y'.repeat(6000)), user('z'.repeat(3000))];
    const out = buildContext(
      input({ instructions, recent, pairs: [pair('p', 'a', 'b')] }),
      exactBudget(50),
      est,
    );
    assertConsistent(out.messages);
    const system = textOf(out.messages[0]);
    expect(system).toContain(instructions[0]);
    expect(system).toContain('Rule two.');
    expect(out.tokens).toBeGreaterThan(out.limit);
    expect(out.trimmed.at(-1)).toBe('cut-last-message');
    expect(out.messages.at(-1)?.role).toBe('user');
  });
});

describe('L3: summaries', () => {
  it('adds the summaries as a user message and an assistant acknowledgement after the system message', () => {
    const out = buildContext(
      input({
        summaries: { semantic: 'We use SQLite.', toolChain: 'Ran the tests twice.' },
        recent: [user('next')],
      }),
      hugeBudget,
      est,
    );
    assertConsistent(out.messages);
    expect(out.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    const memory = textOf(out.messages[1]);
    expect(memory.startsWith(SUMMARY_HEADER)).toBe(true);
    expect(memory.indexOf('We use SQLite.')).toBeLessThan(memory.indexOf('Ran the tests twice.'));
    expect(textOf(out.messages[2])).toBe(SUMMARY_ACK);
  });

  it('includes only the summaries that exist, and nothing when there are none', () => {
    const one = buildContext(
      input({ summaries: { toolChain: 'grep, then edit' }, recent: [user('q')] }),
      hugeBudget,
      est,
    );
    expect(textOf(one.messages[1])).toContain('grep, then edit');
    expect(textOf(one.messages[1])).not.toContain('Background');
    const none = buildContext(input({ summaries: { semantic: '  ' }, recent: [user('q')] }), hugeBudget, est);
    expect(none.messages.map((m) => m.role)).toEqual(['system', 'user']);
  });
});

describe('L2: relevant history pairs', () => {
  const relevant = pair(
    'a',
    'The parser tokenizer crashes on empty input',
    'Fixed the tokenizer bug in parser module',
    { reasoning: `Looked at the lexer. ${'r'.repeat(2000)}`, files: ['src/parser.ts', 'src/lexer.ts'] },
  );
  const loose = pair(
    'b',
    'Write release notes for version two',
    'Release notes drafted, mentioning parser speedups, changelog, contributors, documentation, installer, website, translations',
  );
  const unrelated = pair('c', 'What is the weather forecast in Paris', 'Sunny tomorrow');
  const chinese = pair('d', '数据库连接池应该如何重构', '建议把连接池拆成独立模块');

  it('includes relevant pairs in full, loosely related ones as digests, and leaves the rest out', () => {
    const out = buildContext(
      input({
        pairs: [unrelated, loose, relevant, chinese],
        recent: [user('Fix the tokenizer bug in the parser module')],
      }),
      hugeBudget,
      est,
    );
    assertConsistent(out.messages);
    expect(out.pairsFull).toBe(1);
    expect(out.pairsDigest).toBe(1);
    expect(out.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
    ]);
    expect(textOf(out.messages[1])).toBe(`${DIGEST_HEADER}\n- ${digestOf(loose)}`);
    expect(textOf(out.messages[2])).toBe(DIGEST_ACK);
    expect(textOf(out.messages[3])).toBe(`${PAIR_HEADER}\n${relevant.user}`);
    const answer = textOf(out.messages[4]);
    expect(answer).toContain(relevant.assistant);
    expect(answer).toContain('Files: src/parser.ts, src/lexer.ts');
    expect(answer).toContain('Looked at the lexer.');
    expect(answer.length).toBeLessThan(relevant.reasoning.length);
    const all = out.messages.map(textOf).join('\n');
    expect(all).not.toContain('weather');
    expect(all).not.toContain('数据库');
  });

  it('matches Chinese words and keeps full pairs in chronological order', () => {
    const older = pair('e', '连接池的超时设置', '超时改为三十秒，连接池大小为十');
    const out = buildContext(
      input({ pairs: [older, unrelated, chinese], recent: [user('请重构数据库连接池的代码')] }),
      hugeBudget,
      est,
    );
    assertConsistent(out.messages);
    const texts = out.messages.map(textOf);
    expect(texts).toContain(`${PAIR_HEADER}\n${chinese.user}`);
    expect(texts.join('\n')).not.toContain('weather');
    const fullUsers = texts.filter((t) => t.startsWith(PAIR_HEADER));
    expect(fullUsers.at(-1)).toBe(`${PAIR_HEADER}\n${chinese.user}`);
    expect(out.pairsFull).toBe(fullUsers.length);
  });

  it('always includes the best pair in full when none is relevant', () => {
    const out = buildContext(
      input({ pairs: [unrelated], recent: [user('rename the variable')] }),
      hugeBudget,
      est,
    );
    expect(out.pairsFull).toBe(1);
    expect(out.pairsDigest).toBe(0);
    expect(textOf(out.messages[1])).toBe(`${PAIR_HEADER}\n${unrelated.user}`);
    expect(textOf(out.messages[2])).toBe(unrelated.assistant);
  });
});

describe('L1: recent turns', () => {
  it('replaces tool output older than the last 3 user turns with placeholders and leaves the input untouched', () => {
    const recent = [1, 2, 3, 4, 5].flatMap((n) => turn(n, `output ${n} `.repeat(10)));
    const before = structuredClone(recent);
    const out = buildContext(input({ recent }), hugeBudget, est);
    assertConsistent(out.messages);
    expect(recent).toEqual(before);
    const outs = results(out.messages);
    expect(outs.map((r) => r.output)).toEqual([
      '[tool result omitted: 90 chars — c1]',
      '[tool result omitted: 90 chars — c2]',
      'output 3 '.repeat(10),
      'output 4 '.repeat(10),
      'output 5 '.repeat(10),
    ]);
    expect(outs[0]).toMatchObject({ callId: 'c1', name: 'read_file', isError: false });
    // unchanged messages keep their identity (cached estimates stay valid)
    expect(out.messages.at(-1)).toBe(recent.at(-1));
    expect(out.messages.length).toBe(1 + recent.length);
    expect(out.trimmed).toEqual([]);
  });

  it('keeps isError on placeholders', () => {
    const recent: Message[] = [
      user('q1'),
      assistant('', { calls: [call('bad', 'bash')] }),
      tool(result('bad', 'exit 1: boom', true, 'bash')),
      ...turn(2),
      ...turn(3),
      ...turn(4),
    ];
    const out = buildContext(input({ recent }), hugeBudget, est);
    expect(results(out.messages)[0]).toEqual({
      type: 'tool-result',
      callId: 'bad',
      name: 'bash',
      output: '[tool result omitted: 12 chars — bad]',
      isError: true,
    });
  });

  it('removes orphaned results and calls, and assistant messages left empty', () => {
    const recent: Message[] = [
      user('start'),
      tool(result('ghost', 'no call for me')),
      assistant('Let me look.', { calls: [call('k1'), call('lost')] }),
      tool(result('k1', 'file body')),
      assistant('', { thinking: 'hmm', calls: [call('gone')] }),
      tool(result('k1', 'a second result for k1')),
      user('and now?'),
    ];
    const out = buildContext(input({ recent }), hugeBudget, est);
    assertConsistent(out.messages);
    expect(out.messages.slice(1)).toEqual([
      user('start'),
      assistant('Let me look.', { calls: [call('k1')] }),
      tool(result('k1', 'file body')),
      user('and now?'),
    ]);
  });
});

describe('budget and result', () => {
  it('computes the limit from window, output reserve and trim share', () => {
    expect(budgetLimit({ contextWindow: 10_000, maxOutput: 2_000 })).toBe(6400);
    expect(budgetLimit({ contextWindow: 10_000, maxOutput: 2_000, trimAt: 0.5 })).toBe(4000);
    expect(budgetLimit({ contextWindow: 1_000, maxOutput: 2_000 })).toBe(0);
  });

  it('reports the estimate of exactly the messages it returns and is deterministic', () => {
    const args = input({
      instructions: ['Be kind.'],
      summaries: { semantic: 'Earlier: set up CI.' },
      pairs: [pair('p', 'set up CI pipeline', 'CI runs on push')],
      recent: [...turn(1), ...turn(2), user('is the CI pipeline green?')],
    });
    const a = buildContext(args, hugeBudget, est);
    const b = buildContext(args, hugeBudget, est);
    expect(a.tokens).toBe(sum(a.messages));
    expect(b).toEqual(a);
    expect(a.limit).toBe(100_000_000);
    assertConsistent(a.messages);
  });

  it('keeps a 500-turn session under the limit with the real estimator and the new message intact', () => {
    const recent: Message[] = [];
    for (let n = 1; n <= 500; n++) {
      recent.push(
        ...turn(n, `line ${n}\n`.repeat(40 + (n % 7) * 30), { thinking: `thinking about step ${n}` }),
      );
    }
    const question = user('What did we change in the parser? 解析器改了什么？');
    recent.push(question);
    const pairs = Array.from({ length: 40 }, (_, i) =>
      pair(`t${i}`, `parser change ${i}`, `changed parser ${i}`),
    );
    const budget = { contextWindow: 32_000, maxOutput: 4_000 };
    const out = buildContext(
      input({ instructions: ['Keep it short.'], pairs, recent }),
      budget,
      estimateMessage,
    );
    assertConsistent(out.messages);
    expect(out.tokens).toBeLessThanOrEqual(out.limit);
    expect(out.limit).toBe(22_400);
    expect(out.messages.at(-1)).toBe(question);
    expect(textOf(out.messages[0])).toContain('Keep it short.');
    expect(out.trimmed.length).toBeGreaterThan(0);
    expect(out.tokens).toBe(out.messages.reduce((n, m) => n + estimateMessage(m), 0));
  });
});
