import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type CallFacts,
  callFacts,
  type PermissionMode,
  PermissionPolicy,
  type PermissionRule,
  parseRule,
} from '../../../src/tools/permissions.js';

let root: string;
let work: string;
let extra: string;

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'tea-shell-decide-'));
  work = path.join(root, 'work');
  extra = path.join(root, 'notes');
  mkdirSync(path.join(work, 'sub'), { recursive: true });
  mkdirSync(extra);
  symlinkSync('/etc', path.join(work, 'etc-link'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const facts = (command: string, over: Partial<CallFacts> = {}): CallFacts => ({
  tool: 'bash',
  approval: 'exec',
  subject: command,
  shell: true,
  cwd: work,
  ...over,
});

async function decide(mode: PermissionMode, rules: string[], command: string, over: Partial<CallFacts> = {}) {
  const policy = new PermissionPolicy(
    mode,
    rules.map((r) => parseRule(r)),
  );
  return policy.decide(facts(command, over));
}
const action = async (
  mode: PermissionMode,
  rules: string[],
  command: string,
  over: Partial<CallFacts> = {},
) => (await decide(mode, rules, command, over)).action;

describe('modes and rules, command by command', () => {
  it('every command needs an allow rule; the one that does not is named, with a rule that would cover it', async () => {
    const d = await decide('ask', ['bash:npm test*'], 'npm test && ls -la src');
    expect(d).toMatchObject({
      action: 'ask',
      part: 'ls -la src',
      suggest: 'ls -la*',
      reason: 'ask mode: exec tools need approval, and no allow rule covers `ls -la src`',
    });
    expect(await action('ask', ['bash:npm test*', 'bash:ls *'], 'npm test && ls -la src')).toBe('allow');
  });

  it('the last matching rule wins for each command', async () => {
    const rules = ['deny:bash', 'bash:npm test*'];
    expect(await action('ask', rules, 'npm test && npm test -- x')).toBe('allow');
    expect(await decide('ask', rules, 'npm test; ls')).toMatchObject({
      action: 'deny',
      reason: 'rule deny bash covers `ls`',
      part: 'ls',
    });
    expect(await action('ask', ['bash:npm test*', 'deny:bash'], 'npm test')).toBe('deny');
  });

  it('deny rules match any form of a command; allow rules only its resolved form', async () => {
    expect(await decide('yolo', ['deny:bash:rm *'], 'echo ok; /opt/bin/rm -rf x')).toMatchObject({
      action: 'deny',
      reason: 'rule deny bash:rm * matches `/opt/bin/rm -rf x`',
    });
    expect(await action('ask', ['bash:npm test*'], './npm test')).toBe('ask');
    expect(await action('ask', ['bash:./npm test*'], './npm test')).toBe('allow');
  });

  it('read-only: rules may allow a command, but never one that changes files, nor a write redirection', async () => {
    expect(await action('read-only', [], 'git status')).toBe('deny');
    expect(await action('read-only', ['bash:git *'], 'git status')).toBe('allow');
    expect(await decide('read-only', ['bash:git *'], 'git status && git commit -m x')).toMatchObject({
      action: 'deny',
      reason: 'read-only mode refuses `git commit -m x`: it changes files',
    });
    expect(await action('read-only', ['bash:*'], 'sed -i s/a/b/ f')).toBe('deny');
    expect(await action('read-only', ['bash:git *'], 'git status > /dev/null 2>&1')).toBe('allow');
    expect(await decide('read-only', ['bash:git *'], 'git status > out.txt')).toMatchObject({
      action: 'deny',
      part: '> out.txt',
    });
    expect(await action('read-only', ['bash'], '$X')).toBe('allow');
    expect(await action('read-only', ['bash:git *'], 'git status; $X')).toBe('deny');
  });

  it('auto-edit lets a command allowed by a rule write inside the workspace, not outside', async () => {
    expect(await action('auto-edit', ['bash:npm test*'], 'npm test > out.log 2>&1')).toBe('allow');
    expect(await action('ask', ['bash:npm test*'], 'npm test > out.log 2>&1')).toBe('ask');
    expect(await action('auto-edit', ['bash:npm test*'], 'npm test > /tmp/out.log')).toBe('ask');
    expect(await action('auto-edit', ['bash:npm test*'], 'npm test > sub/../../out.log')).toBe('ask');
  });

  it('yolo runs anything but what deny rules name; with deny rules, what cannot be read asks', async () => {
    expect(await action('yolo', [], 'curl x | sh; $X; eval "$Y"')).toBe('allow');
    expect(await action('yolo', ['deny:bash:*curl*'], 'wget x | sh')).toBe('allow');
    expect(await action('yolo', ['deny:bash:*curl*'], 'c""url x')).toBe('deny');
    expect(await action('yolo', ['deny:bash:*curl*'], '$X x')).toBe('ask');
    expect(await action('yolo', [], 'echo hi > /etc/x')).toBe('allow');
  });

  it('an allow rule without a pattern allows all of bash, unless a deny or ask pattern could be hidden', async () => {
    expect(await action('ask', ['bash'], 'eval "$X" > /tmp/x')).toBe('allow');
    expect(await action('ask', ['bash', 'deny:bash:rm *'], 'eval "$X"')).toBe('ask');
    expect(await action('ask', ['bash', 'deny:bash:rm *'], 'ls > out.txt')).toBe('allow');
  });

  it('without a workspace, no redirection target is known to be inside', async () => {
    expect(await action('auto-edit', ['bash:npm test*'], 'npm test > out.log', { cwd: undefined })).toBe(
      'ask',
    );
    expect(await action('ask', ['bash:npm test*'], 'npm test > /dev/null', { cwd: undefined })).toBe('allow');
  });
});

describe('paths', () => {
  it('cd into an existing directory of the workspace needs no approval; anywhere else it does', async () => {
    const rules = ['bash:npm test*'];
    expect(await action('ask', rules, 'cd sub && npm test')).toBe('allow');
    expect(await action('ask', rules, 'cd "sub" && cd ./sub && npm test')).toBe('allow');
    // Each target is judged from the workspace, not from where an earlier cd went.
    expect(await action('ask', rules, 'cd sub && cd .. && npm test')).toBe('ask');
    expect(await decide('ask', rules, 'cd /tmp && npm test')).toMatchObject({
      action: 'ask',
      part: 'cd /tmp',
    });
    expect(await action('ask', rules, 'cd .. && npm test')).toBe('ask');
    expect(await action('ask', rules, 'cd missing && npm test')).toBe('ask');
    expect(await action('ask', rules, 'cd etc-link && npm test')).toBe('ask');
    expect(await action('ask', rules, 'cd ~ && npm test')).toBe('ask');
    expect(await action('ask', rules, 'cd && npm test')).toBe('ask');
    expect(await action('ask', [...rules, 'deny:bash:cd *'], 'cd sub && npm test')).toBe('deny');
  });

  it('with CDPATH set, only ./dir, ../dir and /dir forms of cd are known to stay inside', async () => {
    const saved = process.env.CDPATH;
    process.env.CDPATH = '/tmp';
    try {
      expect(await action('ask', ['bash:npm test*'], 'cd sub && npm test')).toBe('ask');
      expect(await action('ask', ['bash:npm test*'], 'cd ./sub && npm test')).toBe('allow');
      expect(await action('ask', ['bash:npm test*'], `cd ${work}/sub && npm test`)).toBe('allow');
    } finally {
      if (saved === undefined) delete process.env.CDPATH;
      else process.env.CDPATH = saved;
    }
    expect(await action('ask', ['bash:npm test*'], 'cd sub && npm test')).toBe('allow');
  });

  it('after a cd, a relative redirection target is not known to be inside', async () => {
    const rules = ['bash:npm test*'];
    expect(await action('auto-edit', rules, 'npm test > log.txt')).toBe('allow');
    expect(await action('auto-edit', rules, 'cd sub && npm test > log.txt')).toBe('ask');
    expect(await action('auto-edit', rules, `cd sub && npm test > ${work}/log.txt`)).toBe('allow');
  });

  it('symlinks, .git and extra roots', async () => {
    const rules = ['bash:echo*'];
    expect(await action('auto-edit', rules, 'echo x > etc-link/passwd')).toBe('ask');
    expect(await action('auto-edit', rules, 'echo x > .git/hooks/pre-commit')).toBe('ask');
    expect(await action('auto-edit', rules, `echo x > ${extra}/n.txt`)).toBe('ask');
    expect(await action('auto-edit', rules, `echo x > ${extra}/n.txt`, { roots: [extra] })).toBe('allow');
    expect(await action('ask', rules, 'echo x < etc-link/passwd')).toBe('ask');
    expect(await action('ask', rules, 'echo x < sub/input.txt')).toBe('allow');
  });
});

describe('session grants', () => {
  it('"always" for a line allows that exact line again, not a longer one, and never past a deny', async () => {
    const policy = new PermissionPolicy('ask', [{ tool: 'bash', pattern: 'rm *', action: 'deny' }]);
    expect((await policy.decide(facts('ls; id'))).action).toBe('ask');
    policy.grant(facts('ls; id'));
    expect((await policy.decide(facts('ls; id'))).action).toBe('allow');
    expect((await policy.decide(facts('ls; id; whoami'))).action).toBe('ask');
    policy.grant(facts('ls; rm -rf x'));
    expect((await policy.decide(facts('ls; rm -rf x'))).action).toBe('deny');
    const readOnly = new PermissionPolicy('read-only');
    readOnly.restoreGrants([{ tool: 'bash', pattern: 'touch x', exact: true, action: 'allow' }]);
    expect((await readOnly.decide(facts('touch x'))).action).toBe('deny');
  });
});

describe('callFacts', () => {
  it('marks shell tools and carries the workspace; a subject that throws is left out', () => {
    const shellTool = {
      name: 'bash',
      approval: 'exec' as const,
      shell: true,
      subject: (a: { command: string }) => a.command,
    };
    expect(callFacts(shellTool, { command: 'ls' }, { cwd: '/w', roots: ['/r'] })).toEqual({
      tool: 'bash',
      approval: 'exec',
      subject: 'ls',
      shell: true,
      cwd: '/w',
      roots: ['/r'],
    });
    const broken = {
      name: 'x',
      approval: 'write' as const,
      subject: () => {
        throw new Error('no');
      },
    };
    expect(callFacts(broken, {})).toEqual({ tool: 'x', approval: 'write' });
  });

  it('a subject of a tool that is not a shell is matched as a whole, as before', async () => {
    const rules: PermissionRule[] = [{ tool: 'bash', pattern: 'npm test*', action: 'allow' }];
    const policy = new PermissionPolicy('ask', rules);
    expect((await policy.decide({ tool: 'bash', approval: 'exec', subject: 'npm test; id' })).action).toBe(
      'allow',
    );
    expect((await policy.decide(facts('npm test; id'))).action).toBe('ask');
  });
});
