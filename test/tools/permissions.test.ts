import { describe, expect, it } from 'vitest';
import {
  type CallFacts,
  type PermissionMode,
  PermissionPolicy,
  parseRule,
} from '../../src/tools/permissions.js';
import type { ApprovalClass } from '../../src/tools/types.js';

const act = async (policy: PermissionPolicy, call: CallFacts) => (await policy.decide(call)).action;

const classes: ApprovalClass[] = ['none', 'write', 'exec', 'network'];

describe('permission modes', () => {
  it.each([
    ['read-only', ['allow', 'deny', 'deny', 'ask']],
    ['ask', ['allow', 'ask', 'ask', 'ask']],
    ['auto-edit', ['allow', 'allow', 'ask', 'ask']],
    ['yolo', ['allow', 'allow', 'allow', 'allow']],
  ] as const)('%s mode', async (mode, expected) => {
    const policy = new PermissionPolicy(mode as PermissionMode);
    expect(await Promise.all(classes.map((approval) => act(policy, { tool: 't', approval })))).toEqual(
      expected,
    );
  });
});

describe('read-only is a floor no rule lowers', () => {
  it.each([
    ['an allow rule for the tool', [{ tool: 'write_file', action: 'allow' }], 'write_file', 'write'],
    ['an allow rule for every tool', [{ tool: '*', action: 'allow' }], 'edit_file', 'write'],
    [
      'an allow rule with a matching path',
      [{ tool: 'write_*', pattern: '*.txt', action: 'allow' }],
      'write_file',
      'write',
    ],
    ['an ask rule', [{ tool: 'apply_patch', action: 'ask' }], 'apply_patch', 'write'],
    ['an allow rule for an exec tool', [{ tool: 'mcp__x__run', action: 'allow' }], 'mcp__x__run', 'exec'],
  ] as const)('%s: still refused', async (_what, rules, tool, approval) => {
    const policy = new PermissionPolicy(
      'read-only',
      rules.map((r) => ({ ...r })),
    );
    const decision = await policy.decide({ tool, approval, subject: 'out.txt' });
    expect(decision.action).toBe('deny');
    expect(decision.reason).toMatch(/read-only mode refuses .* whatever the rules say/);
  });

  it('a session grant does not lower it either, and reads and network keep their rules', async () => {
    const policy = new PermissionPolicy('read-only', [{ tool: 'web_fetch', action: 'allow' }]);
    policy.grant({ tool: 'write_file', approval: 'write', subject: 'a.txt' });
    expect(await act(policy, { tool: 'write_file', approval: 'write', subject: 'a.txt' })).toBe('deny');
    expect(await act(policy, { tool: 'web_fetch', approval: 'network', subject: 'https://x' })).toBe('allow');
    expect(await act(policy, { tool: 'read_file', approval: 'none', subject: 'a.txt' })).toBe('allow');
  });
});

describe('rules', () => {
  it('the last matching rule wins over the mode and earlier rules', async () => {
    const policy = new PermissionPolicy('ask', [
      { tool: 'bash', action: 'deny' },
      { tool: 'bash', pattern: 'npm test*', action: 'allow' },
    ]);
    expect(
      await policy.decide({ tool: 'bash', approval: 'exec', subject: 'npm test -- --watch' }),
    ).toMatchObject({
      action: 'allow',
      reason: 'rule allow bash:npm test*',
    });
    expect(await act(policy, { tool: 'bash', approval: 'exec', subject: 'rm -rf /' })).toBe('deny');
    // A rule with a pattern never matches a call without a subject.
    expect(
      await act(new PermissionPolicy('yolo', [{ tool: 'x', pattern: '*', action: 'deny' }]), {
        tool: 'x',
        approval: 'none',
      }),
    ).toBe('allow');
  });

  it('matches tool names by glob and path subjects by whole path or file name', async () => {
    const policy = new PermissionPolicy('yolo', [
      { tool: 'write_*', pattern: '*.env', action: 'deny' },
      { tool: '*', pattern: 'secrets/**', action: 'ask' },
    ]);
    expect(await act(policy, { tool: 'write_file', approval: 'write', subject: 'config/.env' })).toBe('deny');
    expect(await act(policy, { tool: 'write_file', approval: 'write', subject: '.env' })).toBe('deny');
    expect(await act(policy, { tool: 'write_file', approval: 'write', subject: 'env.txt' })).toBe('allow');
    expect(await act(policy, { tool: 'read_file', approval: 'none', subject: 'secrets/a/b.txt' })).toBe(
      'ask',
    );
    expect(await act(policy, { tool: 'read_file', approval: 'none', subject: 'src/secrets/b.txt' })).toBe(
      'allow',
    );
  });

  it('session grants allow the exact subject only, and win over rules', async () => {
    const policy = new PermissionPolicy('ask', [{ tool: 'bash', action: 'ask' }]);
    const rule = policy.grant({ tool: 'bash', approval: 'exec', subject: 'ls *.ts' });
    expect(rule).toEqual({ tool: 'bash', pattern: 'ls *.ts', exact: true, action: 'allow' });
    expect(await act(policy, { tool: 'bash', approval: 'exec', subject: 'ls *.ts' })).toBe('allow');
    expect(await act(policy, { tool: 'bash', approval: 'exec', subject: 'ls a.ts' })).toBe('ask');
    const restored = new PermissionPolicy('ask');
    restored.restoreGrants([rule]);
    expect(await act(restored, { tool: 'bash', approval: 'exec', subject: 'ls *.ts' })).toBe('allow');
  });
});

describe('parseRule', () => {
  it('reads tool, tool:pattern and action prefixes', async () => {
    expect(parseRule('git_commit')).toEqual({ tool: 'git_commit', action: 'allow' });
    expect(parseRule('bash:npm run *')).toEqual({ tool: 'bash', pattern: 'npm run *', action: 'allow' });
    expect(parseRule('deny:write_file:*.env')).toEqual({
      tool: 'write_file',
      pattern: '*.env',
      action: 'deny',
    });
    expect(parseRule('bash:git log --format=%h:%s')).toEqual({
      tool: 'bash',
      pattern: 'git log --format=%h:%s',
      action: 'allow',
    });
    expect(() => parseRule(':x')).toThrow(/expected tool or tool:pattern/);
  });
});
