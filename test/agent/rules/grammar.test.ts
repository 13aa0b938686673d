/** The grammar of the built-in rules, as a table: what is a rule, with which tool and arguments, and what is not. */
import { describe, expect, it } from 'vitest';
import {
  MAX_RULE_INPUT,
  matchRule,
  NO_RULES,
  RULE_COMMANDS,
  type RuleMatch,
  SHELL_RULE,
  splitWords,
} from '../../../src/agent/rules/index.js';

type Row = [input: string, expected: RuleMatch | undefined];
const tool = (rule: string, name: string, args: Record<string, unknown>): RuleMatch => ({
  kind: 'tool',
  rule,
  tool: name,
  args,
});

const TABLE: Row[] = [
  // ! runs bash with the rest of the line, trimmed
  ['!ls', tool('!', 'bash', { command: 'ls' })],
  ['!ls -la src', tool('!', 'bash', { command: 'ls -la src' })],
  ['! ls', tool('!', 'bash', { command: 'ls' })],
  ['!echo "a  b" | wc -c', tool('!', 'bash', { command: 'echo "a  b" | wc -c' })],
  ['!ls\n', tool('!', 'bash', { command: 'ls' })],
  ['!ls   \n\n', tool('!', 'bash', { command: 'ls' })],
  ['!!', tool('!', 'bash', { command: '!' })],
  ['!echo 你好', tool('!', 'bash', { command: 'echo 你好' })],
  // not rules: the model gets them
  ['!', undefined],
  ['!   ', undefined],
  [' !ls', undefined],
  ['\t!ls', undefined],
  ['!ls\nrm -rf x', undefined],
  ['![diagram](img.png)\nexplain this', undefined],
  ['!ls\r\nrm x', undefined],
  ['please !ls', undefined],
  ['', undefined],
  // /read
  ['/read src/a.ts', tool('/read', 'read_file', { path: 'src/a.ts' })],
  ['/read "my file.txt"', tool('/read', 'read_file', { path: 'my file.txt' })],
  ["/read 'my file.txt'", tool('/read', 'read_file', { path: 'my file.txt' })],
  ['/read "say \\"hi\\".txt"', tool('/read', 'read_file', { path: 'say "hi".txt' })],
  ['/read dir/"a b"/c.txt', tool('/read', 'read_file', { path: 'dir/a b/c.txt' })],
  ['/read   spaced.txt   ', tool('/read', 'read_file', { path: 'spaced.txt' })],
  ['/read 文档/说明.md', tool('/read', 'read_file', { path: '文档/说明.md' })],
  [
    '/read',
    { kind: 'usage', rule: '/read', message: '/read takes one argument, got 0. Usage: /read <path>' },
  ],
  [
    '/read my file.txt',
    {
      kind: 'usage',
      rule: '/read',
      message:
        '/read takes one argument, got 2 (quote a path with spaces: "my file.txt"). Usage: /read <path>',
    },
  ],
  [
    '/read "open',
    {
      kind: 'usage',
      rule: '/read',
      message: '/read: the quote " at character 1 is not closed. Usage: /read <path>',
    },
  ],
  ['/readme', undefined],
  ['/READ a', undefined],
  ['/read\na', undefined],
  [' /read a', undefined],
  // /ls
  ['/ls', tool('/ls', 'list_dir', {})],
  ['/ls src', tool('/ls', 'list_dir', { path: 'src' })],
  ['/ls "a b"', tool('/ls', 'list_dir', { path: 'a b' })],
  [
    '/ls a b',
    { kind: 'usage', rule: '/ls', message: expect.stringMatching(/^\/ls takes 0 to 1 arguments, got 2/) },
  ],
  ['/lsof', undefined],
  // /grep
  ['/grep TODO', tool('/grep', 'grep', { pattern: 'TODO' })],
  ['/grep TODO src', tool('/grep', 'grep', { pattern: 'TODO', path: 'src' })],
  ['/grep "def load" src/py', tool('/grep', 'grep', { pattern: 'def load', path: 'src/py' })],
  ['/grep -rf .', tool('/grep', 'grep', { pattern: '-rf', path: '.' })],
  ['/grep --include=x', tool('/grep', 'grep', { pattern: '--include=x' })],
  ['/grep a|b', tool('/grep', 'grep', { pattern: 'a|b' })],
  ['/grep 函数', tool('/grep', 'grep', { pattern: '函数' })],
  [
    '/grep',
    { kind: 'usage', rule: '/grep', message: expect.stringMatching(/^\/grep takes 1 to 2 arguments, got 0/) },
  ],
  ['/grep a b c', { kind: 'usage', rule: '/grep', message: expect.stringMatching(/got 3/) }],
  // /time
  ['/time', tool('/time', 'current_time', {})],
  ['/time Asia/Shanghai', tool('/time', 'current_time', { timezone: 'Asia/Shanghai' })],
  ['/time a b', { kind: 'usage', rule: '/time', message: expect.stringMatching(/got 2/) }],
  ['/timer', undefined],
  // other slash words are no rules here (the faces' own commands, or prompts)
  ['/help', undefined],
  ['/etc/hosts explain', undefined],
  ['/', undefined],
];

describe('the built-in rules', () => {
  it.each(TABLE)('%j', (input, expected) => {
    expect(matchRule(input, NO_RULES)).toEqual(expected);
  });

  it('a prompt longer than MAX_RULE_INPUT is never a rule (a paste)', () => {
    expect(matchRule(`!echo ${'x'.repeat(MAX_RULE_INPUT)}`, NO_RULES)).toBeUndefined();
    expect(matchRule(`!echo ${'x'.repeat(MAX_RULE_INPUT - 6)}`, NO_RULES)).toMatchObject({ tool: 'bash' });
    // A megabyte starting with ! is a prompt for the model, decided without scanning all of it.
    expect(matchRule(`!${'y'.repeat(1 << 20)}`, NO_RULES)).toBeUndefined();
  });

  it('rules_fast_path: false turns every rule off', () => {
    const off = { fastPath: false, user: [] };
    for (const input of ['!ls', '/read a', '/ls', '/grep x', '/time', '/read'])
      expect(matchRule(input, off)).toBeUndefined();
  });

  it('the commands for slash completion have a description each, and hints where they take arguments', () => {
    expect(RULE_COMMANDS.map((c) => c.name)).toEqual(['read', 'ls', 'grep', 'time']);
    for (const c of [...RULE_COMMANDS, SHELL_RULE]) expect(c.description.length).toBeGreaterThan(10);
    expect(RULE_COMMANDS.find((c) => c.name === 'read')?.argumentHint).toBe('<path>');
    expect(SHELL_RULE).toMatchObject({ name: '!', argumentHint: '<command>' });
  });

  it('splits words at spaces; quotes group them; nothing else is special', () => {
    expect(splitWords(`a "b c" 'd "e"' f\\ g`)).toEqual(['a', 'b c', 'd "e"', 'f\\', 'g']);
    expect(splitWords('$(rm x) `id` ; &&')).toEqual(['$(rm', 'x)', '`id`', ';', '&&']);
    expect(splitWords("it's")).toBe("the quote ' at character 3 is not closed");
  });
});
