/**
 * Break-in attempts through the fast path. A rule is a tool call like the model's, so
 * every check applies: the shell-line checks (each piece of a command line), the
 * workspace path checks (`..`, absolute paths, symlinks out), and grep takes its pattern
 * as a pattern, never as an option. Nothing here reaches the model server.
 */
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src/agent/index.js';
import { compileUserRules } from '../../../src/agent/rules/index.js';
import type { SettingsInput } from '../../../src/agent/settings.js';
import { collect, endedCalls, toolRecords } from '../../support/collect.js';
import { createHarness, type Harness } from '../../support/harness.js';
import { reply } from '../../support/script.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  writeFileSync(path.join(h.workspace, 'x'), 'keep me\n');
});
afterEach(async () => {
  expect(h.server.requests.filter((r) => r.path.endsWith('/chat/completions')).length).toBeLessThanOrEqual(1);
  await h.close();
});

const session = (settings: SettingsInput) => h.agent({ settings }).newSession();
const DENY: SettingsInput = { permissionMode: 'ask', approvals: 'deny' }; // tea -p
const ASK: SettingsInput = { permissionMode: 'ask', approvals: 'ask' };

/** Runs a prompt, answering every approval request with `answer`; returns the events and the commands asked about. */
async function run(s: ReturnType<typeof session>, input: string, answer: 'reject' | 'once' = 'reject') {
  const events: AgentEvent[] = [];
  const asked: string[] = [];
  for await (const e of s.prompt(input)) {
    events.push(e);
    if (e.type === 'approval_request') {
      asked.push(String(e.args.command ?? e.subject ?? ''));
      s.approve(e.requestId, answer, 'no');
    }
  }
  return { events, asked, call: endedCalls(events)[0] };
}

const output = (r: { call?: { content: Array<{ type: string; text?: string }> } }): string =>
  (r.call?.content ?? []).map((c) => c.text ?? '').join('');

const CHAINS: Array<[input: string, piece: RegExp]> = [
  ['!ls; rm -rf x', /rm/],
  ['!$(rm x)', /rm/],
  ['!echo `rm x`', /rm/],
  ['!ls && curl http://127.0.0.1:9/steal', /curl/],
  ['!ls | sh -c "rm x"', /sh|rm/],
  ['!true || rm x', /rm/],
];

describe('shell chaining behind !', () => {
  it.each(CHAINS)('print mode (nobody to approve) refuses %j', async (input) => {
    const r = await run(session(DENY), input);
    expect(r.call?.state).toBe('denied');
    expect(output(r)).toMatch(/^\[DENIED\] bash/);
    expect(existsSync(path.join(h.workspace, 'x'))).toBe(true);
    expect(h.server.requests).toHaveLength(0);
  });

  it.each(CHAINS)(
    'ask mode shows the whole line %j before it runs; a rejection stops it',
    async (input, piece) => {
      const r = await run(session(ASK), input, 'reject');
      // The user is asked about the whole line, the dangerous piece in sight.
      expect(r.asked).toEqual([input.slice(1)]);
      expect(r.asked[0]).toMatch(piece);
      expect(r.call?.state).toBe('denied');
      expect(existsSync(path.join(h.workspace, 'x'))).toBe(true);
    },
  );
});

describe('paths behind /read and /ls', () => {
  beforeEach(() => {
    symlinkSync('/etc', path.join(h.workspace, 'etc-link'));
  });

  it.each([
    '/read ../../etc/passwd',
    '/read /etc/passwd',
    '/read etc-link/passwd',
    '/read "../x"',
    '/ls ..',
    '/ls etc-link',
    '/grep root /etc/passwd',
    '/grep root etc-link',
  ])('%s is refused by the path checks', async (input) => {
    const r = await run(session({ permissionMode: 'yolo' }), input);
    expect(r.call?.state).not.toBe('completed');
    expect(output(r)).not.toMatch(/root:/);
    expect(output(r)).toMatch(/outside|not allowed|workspace|DENIED/i);
  });
});

describe('/grep patterns are never options', () => {
  it.each(['--files', '-rf', '-e', '--version', '-f/etc/passwd'])(
    '/grep %s searches for the text',
    async (pattern) => {
      writeFileSync(path.join(h.workspace, 'flags.txt'), `a line with ${pattern} in it\n`);
      writeFileSync(path.join(h.workspace, 'other.txt'), 'nothing here\n');
      const r = await run(session({ permissionMode: 'yolo' }), `/grep -- ${pattern}`.replace('-- ', ''));
      expect(r.call?.args).toEqual({ pattern });
      expect(r.call?.state).toBe('completed');
      expect(output(r)).toContain('flags.txt');
      expect(output(r)).not.toContain('other.txt');
      expect(output(r)).not.toMatch(/root:|ripgrep \d/);
    },
  );
});

describe('user rules', () => {
  const deploy = {
    fastPath: true,
    user: compileUserRules([
      {
        pattern: '^deploy (.+)$',
        tool: 'bash',
        args: { command: './deploy.sh $1' },
        source: 'test: rules[0]',
      },
      {
        pattern: '^部署 (\\S+)$',
        tool: 'bash',
        args: { command: 'echo 部署到 $1' },
        source: 'test: rules[1]',
      },
    ]),
  };

  it('a capture holding $1 or $2 is inserted as it is, never expanded again', async () => {
    const r = await run(session({ ...DENY, rules: deploy }), 'deploy $1$2$0');
    expect(r.call?.args).toEqual({ command: './deploy.sh $1$2$0' });
  });

  it('a capture holding "; rm" is checked by the shell-line checks like any command', async () => {
    const r = await run(session({ ...DENY, rules: deploy }), 'deploy prod; rm -rf x');
    expect(r.call?.args).toEqual({ command: './deploy.sh prod; rm -rf x' });
    expect(r.call?.state).toBe('denied');
    expect(existsSync(path.join(h.workspace, 'x'))).toBe(true);
  });

  it('Chinese text in the pattern, the capture and the output', async () => {
    const r = await run(session({ permissionMode: 'yolo', rules: deploy }), '部署 生产环境');
    expect(r.call?.args).toEqual({ command: 'echo 部署到 生产环境' });
    expect(output(r)).toContain('部署到 生产环境');
  });

  it('a catastrophic pattern is refused when compiled', () => {
    expect(() =>
      compileUserRules([{ pattern: '(a+)+$', tool: 'bash', args: {}, source: 'test: rules[0]' }]),
    ).toThrow(/test: rules\[0\]\.pattern: a repeated group holds a repetition/);
  });

  it('a huge prompt is never matched: it goes to the model', async () => {
    h.server.script(reply().text('a paste'));
    const huge = `deploy ${'a'.repeat(200_000)}`;
    const events = await collect(session({ ...DENY, rules: deploy }).prompt(`!${huge}`));
    expect(toolRecords(events)).toEqual([]);
    expect(h.server.requests).toHaveLength(1);
  });
});

describe('Chinese text behind !', () => {
  it('runs and shows it', async () => {
    mkdirSync(path.join(h.workspace, '文档'));
    writeFileSync(path.join(h.workspace, '文档', '说明.md'), '你好，世界\n');
    const r = await run(session({ permissionMode: 'yolo' }), '/read 文档/说明.md');
    expect(r.call?.state).toBe('completed');
    expect(output(r)).toContain('你好，世界');
    const e = await run(session({ permissionMode: 'yolo' }), '!echo 中文输出');
    expect(output(e)).toContain('中文输出');
  });
});
