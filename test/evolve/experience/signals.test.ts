import { describe, expect, it } from 'vitest';
import {
  nonTrivialPlan,
  outcomeOf,
  readSignals,
  type TaskSignals,
} from '../../../src/evolve/experience/signals.js';
import {
  bashStatus,
  isTestCommand,
  outputShowsFailure,
  testPassed,
} from '../../../src/evolve/experience/test-commands.js';
import type { Message } from '../../../src/llm/types.js';

const TEST_COMMANDS = [
  'npm test',
  'npm t',
  'npm run test',
  'npm run test:unit -- --run',
  'pnpm test',
  'yarn test',
  'bun test',
  'npx vitest run test/foo.test.ts',
  'npx --yes vitest',
  'vitest run',
  'jest --ci',
  './node_modules/.bin/jest',
  'CI=1 npm test',
  'cd packages/core && npm test',
  'npm install && npm test | tail -20',
  'pytest -x tests/',
  'python -m pytest',
  'python3 -m unittest discover',
  'uv run pytest',
  'poetry run pytest -q',
  'go test ./...',
  'cargo test --all',
  'cargo nextest run',
  'mvn -q test',
  './gradlew test',
  'make test',
  'make -C build check',
  'node --test test/',
  'deno test',
  'dotnet test',
  'bundle exec rspec',
  '(npm test)',
];

const NOT_TEST_COMMANDS = [
  'cat test.txt',
  'ls tests/',
  'mkdir test',
  'grep -rn vitest .',
  'npm install vitest',
  'yarn add -D jest',
  'echo npm test',
  'git commit -m "add test"',
  'node build.js',
  'npm run build',
  'cargo build',
  'go vet ./...',
  'python script.py --test-mode',
];

describe('isTestCommand', () => {
  it.each(TEST_COMMANDS)('%j runs tests', (command) => expect(isTestCommand(command)).toBe(true));
  it.each(NOT_TEST_COMMANDS)('%j does not', (command) => expect(isTestCommand(command)).toBe(false));
});

describe('test results', () => {
  it('reads the bash status line', () => {
    expect(bashStatus('exit code: 1\nFAIL x')).toEqual({ exitCode: 1, output: 'FAIL x' });
    expect(bashStatus('exit code: 0\n(no output)')).toEqual({ exitCode: 0, output: '(no output)' });
    expect(bashStatus('killed: timeout after 2m\npartial')).toEqual({ exitCode: null, output: 'partial' });
    expect(bashStatus('[ERROR] denied')).toEqual({ exitCode: null, output: '' });
  });

  it.each([
    ['exit code: 0\n Test Files  3 passed (3)\n      Tests  12 passed (12)', false, true],
    ['exit code: 1\n Test Files  1 failed | 2 passed (3)', false, false],
    // A pipe hides the exit code; the summary still tells.
    ['exit code: 0\n Tests  2 failed | 10 passed (12)', false, false],
    ['exit code: 0\nTests:       1 failed, 4 passed, 5 total', false, false],
    ['exit code: 0\n=== 3 passed, 1 failed in 0.12s ===', false, false],
    ['exit code: 0\n--- FAIL: TestParse (0.00s)\nFAIL\texample.com/p\t0.01s', false, false],
    ['exit code: 0\ntest result: FAILED. 3 passed; 1 failed', false, false],
    ['exit code: 0\n  5 passing (20ms)\n  1 failing', false, false],
    ['exit code: 0\n=== 5 passed, 0 failed in 0.1s ===', false, true],
    ['killed: timeout after 2m\n...', false, false],
    ['[ERROR] bash was denied', true, false],
  ])('%j (error %s) passed: %s', (result, isError, passed) => {
    expect(testPassed(result, isError)).toBe(passed);
  });

  it('a count of zero is no failure', () => {
    expect(outputShowsFailure('Tests  0 failed | 3 passed')).toBe(false);
  });
});

let id = 0;
/** An assistant call and its result, as a prompt's messages hold them. */
function call(name: string, args: Record<string, unknown>, output: string, isError = false): Message[] {
  id += 1;
  const callId = `c${id}`;
  return [
    { role: 'assistant', parts: [{ type: 'tool-call', id: callId, name, args }] },
    { role: 'tool', parts: [{ type: 'tool-result', callId, name, output, isError }] },
  ];
}

const user = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });
const answer = (text: string): Message => ({ role: 'assistant', parts: [{ type: 'text', text }] });

describe('readSignals and outcomeOf', () => {
  it('collects calls, errors, test runs, plans and skills', () => {
    const messages = [
      user('fix the parser'),
      ...call(
        'todo_write',
        { todos: [1, 2, 3, 4].map((n) => ({ content: `s${n}`, status: 'pending' })) },
        'ok',
      ),
      ...call('read_file', { path: 'missing.ts' }, '[ERROR] no such file', true),
      ...call('bash', { command: 'npm test' }, 'exit code: 1\nTests  1 failed'),
      ...call('skill', { name: 'fix-parsers' }, 'body'),
      ...call('edit_file', { path: 'p.ts' }, 'edited'),
      ...call('bash', { command: 'npm test' }, 'exit code: 0\nTests  3 passed'),
      answer('Fixed.'),
    ];
    const s = readSignals(messages, 'completed', 'Fixed.');
    expect(s).toMatchObject({
      toolCalls: 6,
      okCalls: 5,
      errors: 1,
      lastError: { tool: 'read_file', message: '[ERROR] no such file' },
      planItems: 4,
      skills: ['fix-parsers'],
      tools: ['bash', 'edit_file', 'skill', 'todo_write'],
      tests: [
        { command: 'npm test', passed: false },
        { command: 'npm test', passed: true },
      ],
      gaveUp: false,
    });
    expect(outcomeOf(s)).toBe('succeeded');
  });

  const base: TaskSignals = {
    reason: 'completed',
    toolCalls: 0,
    okCalls: 0,
    tools: [],
    errors: 0,
    tests: [],
    planItems: 0,
    skills: [],
    gaveUp: false,
  };
  it.each<[string, Partial<TaskSignals>, string]>([
    ['a plain answer', {}, 'succeeded'],
    ['cancelled', { reason: 'cancelled' }, 'abandoned'],
    ['a model error', { reason: 'error' }, 'failed'],
    ['the iteration limit', { reason: 'max_iterations' }, 'failed'],
    ['a budget', { reason: 'budget' }, 'failed'],
    ['a doom loop', { reason: 'doom_loop' }, 'failed'],
    ['the last test run failed', { tests: [{ command: 'npm test', passed: false }] }, 'failed'],
    [
      'an early failing run, then a passing one',
      {
        tests: [
          { command: 'npm test', passed: false },
          { command: 'npm test', passed: true },
        ],
      },
      'succeeded',
    ],
    ['a tool error it got past', { errors: 1, toolCalls: 2, okCalls: 1 }, 'succeeded'],
    ['gave up after errors', { errors: 2, gaveUp: true }, 'failed'],
    ['"could not" with nothing going wrong', { gaveUp: true }, 'succeeded'],
  ])('%s → %s', (_label, over, expected) => {
    expect(outcomeOf({ ...base, ...over })).toBe(expected);
  });

  it.each([
    ['I could not fix the failing test; the fixture is missing.', true],
    ["I wasn't able to get the tests passing.", true],
    ['The tests are still failing after three attempts.', true],
    ['无法修复这个问题。', true],
    ['All tests pass now.', false],
    ['I could not find any problem: the code is fine.', false],
  ])('gave up: %j → %s', (text, expected) => {
    expect(readSignals([answer(text)], 'completed', text).gaveUp).toBe(expected);
  });
});

describe('nonTrivialPlan', () => {
  const signals = (messages: Message[]) => readSignals(messages, 'completed', 'done');
  it('a todo list of 3 items is a plan', () => {
    const m = call(
      'todo_write',
      { todos: [1, 2, 3].map((n) => ({ content: `${n}`, status: 'pending' })) },
      'ok',
    );
    expect(nonTrivialPlan(signals(m), m)).toBe(true);
  });
  it('a plan of 2 steps and one read is not', () => {
    const m = [
      ...call('plan', { goal: 'g', steps: [1, 2].map((n) => ({ step: `${n}`, status: 'pending' })) }, 'ok'),
      ...call('read_file', { path: 'a' }, 'a'),
    ];
    expect(nonTrivialPlan(signals(m), m)).toBe(false);
  });
  it('4 successful calls across 2 working tools are', () => {
    const m = [
      ...call('read_file', { path: 'a' }, 'a'),
      ...call('edit_file', { path: 'a' }, 'ok'),
      ...call('bash', { command: 'npm test' }, 'exit code: 0'),
      ...call('read_file', { path: 'b' }, 'b'),
    ];
    expect(nonTrivialPlan(signals(m), m)).toBe(true);
  });
  it('4 calls of one tool, or errors and bookkeeping calls, are not', () => {
    const one = [1, 2, 3, 4].flatMap((n) => call('read_file', { path: `${n}` }, 'x'));
    expect(nonTrivialPlan(signals(one), one)).toBe(false);
    const mixed = [
      ...call('read_file', { path: 'a' }, 'a'),
      ...call('edit_file', { path: 'a' }, '[ERROR] no match', true),
      ...call('todo_read', {}, '(empty)'),
      ...call('tool_search', { query: 'x' }, 'found'),
      ...call('bash', { command: 'ls' }, 'exit code: 0'),
    ];
    expect(nonTrivialPlan(signals(mixed), mixed)).toBe(false);
  });
});
