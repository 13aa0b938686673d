import { describe, expect, it } from 'vitest';
import { type PermissionMode, PermissionPolicy, parseRule } from '../../src/tools/permissions.js';
import type { ApprovalClass } from '../../src/tools/types.js';

const classes: ApprovalClass[] = ['none', 'write', 'exec', 'network'];

describe('permission modes', () => {
  it.each([
    ['read-only', ['allow', 'deny', 'deny', 'ask']],
    ['ask', ['allow', 'ask', 'ask', 'ask']],
    ['auto-edit', ['allow', 'allow', 'ask', 'ask']],
    ['yolo', ['allow', 'allow', 'allow', 'allow']],
  ] as const)('%s mode', (mode, expected) => {
    const policy = new PermissionPolicy(mode as PermissionMode);
    expect(classes.map((approval) => policy.decide({ tool: 't', approval }).action)).toEqual(expected);
  });
});

describe('rules', () => {
  it('the last matching rule wins over the mode and earlier rules', () => {
    const policy = new PermissionPolicy('ask', [
      { tool: 'bash', action: 'deny' },
      { tool: 'bash', pattern: 'npm test*', action: 'allow' },
    ]);
    expect(policy.decide({ tool: 'bash', approval: 'exec', subject: 'npm test -- --watch' })).toMatchObject({
      action: 'allow',
      reason: 'rule allow bash:npm test*',
    });
    expect(policy.decide({ tool: 'bash', approval: 'exec', subject: 'rm -rf /' }).action).toBe('deny');
    // A rule with a pattern never matches a call without a subject.
    expect(
      new PermissionPolicy('yolo', [{ tool: 'x', pattern: '*', action: 'deny' }]).decide({
        tool: 'x',
        approval: 'none',
      }).action,
    ).toBe('allow');
  });

  it('matches tool names by glob and path subjects by whole path or file name', () => {
    const policy = new PermissionPolicy('yolo', [
      { tool: 'write_*', pattern: '*.env', action: 'deny' },
      { tool: '*', pattern: 'secrets/**', action: 'ask' },
    ]);
    expect(policy.decide({ tool: 'write_file', approval: 'write', subject: 'config/.env' }).action).toBe(
      'deny',
    );
    expect(policy.decide({ tool: 'write_file', approval: 'write', subject: '.env' }).action).toBe('deny');
    expect(policy.decide({ tool: 'write_file', approval: 'write', subject: 'env.txt' }).action).toBe('allow');
    expect(policy.decide({ tool: 'read_file', approval: 'none', subject: 'secrets/a/b.txt' }).action).toBe(
      'ask',
    );
    expect(policy.decide({ tool: 'read_file', approval: 'none', subject: 'src/secrets/b.txt' }).action).toBe(
      'allow',
    );
  });

  it('session grants allow the exact subject only, and win over rules', () => {
    const policy = new PermissionPolicy('ask', [{ tool: 'bash', action: 'ask' }]);
    const rule = policy.grant({ tool: 'bash', approval: 'exec', subject: 'ls *.ts' });
    expect(rule).toEqual({ tool: 'bash', pattern: 'ls *.ts', exact: true, action: 'allow' });
    expect(policy.decide({ tool: 'bash', approval: 'exec', subject: 'ls *.ts' }).action).toBe('allow');
    expect(policy.decide({ tool: 'bash', approval: 'exec', subject: 'ls a.ts' }).action).toBe('ask');
    const restored = new PermissionPolicy('ask');
    restored.restoreGrants([rule]);
    expect(restored.decide({ tool: 'bash', approval: 'exec', subject: 'ls *.ts' }).action).toBe('allow');
  });
});

describe('parseRule', () => {
  it('reads tool, tool:pattern and action prefixes', () => {
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
