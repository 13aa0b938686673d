import { describe, expect, it } from 'vitest';
import { classifyReaction, REACTION_WINDOW } from '../../../src/evolve/experience/reaction.js';

/** [the user's next message, the reaction it holds to the previous answer]. */
const TABLE: Array<[string, 'negative' | 'positive' | 'neutral']> = [
  // Complaints, English
  ["that's wrong", 'negative'],
  ['That is wrong.', 'negative'],
  ["it doesn't work", 'negative'],
  ['Doesn’t work', 'negative'],
  ['still failing', 'negative'],
  ['The tests are still failing', 'negative'],
  ['still getting the same error', 'negative'],
  ['No. It does not compile.', 'negative'],
  ["Why doesn't it work?", 'negative'],
  ['wrong file, I meant b.txt', 'negative'],
  ["that's not what I asked for", 'negative'],
  ['you broke the build', 'negative'],
  ['Thanks, but it still fails', 'negative'],
  ['nope', 'negative'],
  ['nothing works', 'negative'],
  ["I can't get it to run", 'negative'],
  ['The fix works but the docs are wrong', 'negative'],
  // Complaints, Chinese
  ['不对', 'negative'],
  ['还是不行', 'negative'],
  ['错了，应该是 b.txt', 'negative'],
  ['测试还是报错', 'negative'],
  ['不行了', 'negative'],
  ['谢谢，但是还是不对', 'negative'],
  ['没有解决', 'negative'],
  // Praise and confirmation
  ['thanks!', 'positive'],
  ['It works, thank you', 'positive'],
  ["no, don't worry, it works", 'positive'],
  ['No. Don’t worry, it works now.', 'positive'],
  ['it failed at first but works now', 'positive'],
  ['perfect', 'positive'],
  ['LGTM', 'positive'],
  ['nothing is wrong, all green', 'positive'],
  ['no longer failing, great', 'positive'],
  ['no problem, thanks', 'positive'],
  ['Thanks! Now add a README', 'positive'],
  ['好了', 'positive'],
  ['好了，谢谢', 'positive'],
  ['可以了', 'positive'],
  ['没问题', 'positive'],
  ['不错', 'positive'],
  // Neither: a next task, a question, nothing said about the answer
  ['now add a README', 'neutral'],
  ['is it working now?', 'neutral'],
  ['does it work?', 'neutral'],
  ['好了吗？', 'neutral'],
  ['correct the typo in the README', 'neutral'],
  ['fix the wrong date format in report.py', 'neutral'],
  ['Can you make it work with Python 3.8?', 'neutral'],
  ['', 'neutral'],
  ['   ', 'neutral'],
  ['read notes.txt', 'neutral'],
  ['帮我写一个脚本', 'neutral'],
];

describe('classifyReaction', () => {
  it.each(TABLE)('%j → %s', (message, expected) => {
    expect(classifyReaction(message)).toBe(expected);
  });

  it('reads only the start of a long message: a new task that mentions a failure deep inside is no reaction', () => {
    const task = `Please write a migration for the orders table and a test for it. ${'Keep the schema tidy. '.repeat(12)}`;
    expect(task.length).toBeGreaterThan(REACTION_WINDOW);
    expect(classifyReaction(`${task} The old one is wrong and still failing.`)).toBe('neutral');
    expect(classifyReaction(`Still failing. ${task}`)).toBe('negative');
  });
});
