/**
 * What faces read of sub-agents: nested events flattened, each child's state from
 * the parent's stream, and the heads of a delegation result read back (they must
 * agree with how src/multi writes them).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent, SubagentInfo } from '../../src/agent/events.js';
import { loadConfig } from '../../src/config/load.js';
import type { ChildResult } from '../../src/multi/delegate.js';
import { formatResult } from '../../src/multi/task-tool.js';
import { flatEvent, resultHeads, SubagentTracker, unwrapSubagent } from '../../src/runtime/subagents.js';
import { useTempDirs } from '../store/helpers.js';

const child: SubagentInfo = {
  sessionId: 'aaaaaaaa-1111-2222-3333-444444444444',
  label: 'coder #1',
  role: 'coder',
  depth: 1,
};
const grandchild: SubagentInfo = {
  sessionId: 'bbbbbbbb-1111-2222-3333-444444444444',
  label: 'tester #1',
  role: 'tester',
  depth: 2,
};
const wrap = (event: AgentEvent): AgentEvent => ({ type: 'subagent', callId: 'call_1', agent: child, event });
const wrap2 = (event: AgentEvent): AgentEvent =>
  wrap({ type: 'subagent', callId: 'call_in_child', agent: grandchild, event });

function result(status: ChildResult['status']): ChildResult {
  return {
    label: 'reviewer #12',
    role: 'reviewer',
    description: 'x',
    status,
    text: 'answer',
    sessionId: 'cccccccc-1111-2222-3333-444444444444',
    usage: { inputTokens: 1000, outputTokens: 234 },
    costUsd: 0,
  };
}

describe('resultHeads', () => {
  it('reads every status the task tool writes', () => {
    const cases: Array<[ChildResult['status'], string]> = [
      ['completed', 'done'],
      ['budget', 'budget'],
      ['timeout', 'timeout'],
      ['max_iterations', 'max turns'],
      ['error', 'failed'],
      ['cancelled', 'cancelled'],
    ];
    for (const [status, shown] of cases) {
      expect(resultHeads(`## Task 1: x\n${formatResult(result(status))}`)).toEqual([
        { label: 'reviewer #12', status: shown, tokens: 1234, session: 'cccccccc' },
      ]);
    }
  });
});

describe('flatEvent and unwrapSubagent', () => {
  it('flattens a grandchild’s event to the grandchild, under the child’s call', () => {
    const inner: AgentEvent = { type: 'text_delta', text: 'hi' };
    expect(flatEvent(wrap2(inner))).toEqual({
      type: 'text_delta',
      text: 'hi',
      parent: {
        callId: 'call_in_child',
        sessionId: grandchild.sessionId,
        label: 'tester #1',
        role: 'tester',
        depth: 2,
      },
    });
    expect(unwrapSubagent(wrap2(inner)).path.map((p) => p.label)).toEqual(['coder #1', 'tester #1']);
    expect(flatEvent(inner)).toBe(inner);
  });
});

describe('SubagentTracker', () => {
  it('follows each child: start, tool, approval, tokens, and an end the result names', () => {
    const t = new SubagentTracker();
    const rec = (state: 'awaiting_approval' | 'running' | 'completed') =>
      ({
        type: 'tool_update',
        record: {
          callId: 'c9',
          turnId: 't',
          name: 'write_file',
          args: {},
          state,
          title: 'write_file',
          kind: 'edit',
          content: [],
          createdAt: 0,
          ...(state === 'completed' ? { finishedAt: 1 } : {}),
        },
      }) as AgentEvent;
    expect(t.feed(wrap({ type: 'turn_start', sessionId: child.sessionId, turnId: 't', input: 'x' }))).toEqual(
      [expect.objectContaining({ change: 'start' })],
    );
    t.feed(wrap({ type: 'usage', model: 'm', usage: { inputTokens: 10, outputTokens: 5 }, costUsd: 0.5 }));
    t.feed(wrap(rec('awaiting_approval')));
    expect(t.get(child.sessionId)).toMatchObject({
      status: 'waiting for approval',
      tokens: 15,
      costUsd: 0.5,
    });
    t.feed(wrap(rec('running')));
    expect(t.get(child.sessionId)).toMatchObject({ status: 'running', tool: 'write_file' });
    t.feed(wrap(rec('completed')));
    expect(t.get(child.sessionId)?.tool).toBeUndefined();
    // A grandchild has its own state.
    t.feed(wrap2({ type: 'usage', model: 'm', usage: { inputTokens: 1, outputTokens: 1 }, costUsd: 0 }));
    expect(t.get(grandchild.sessionId)).toMatchObject({
      tokens: 2,
      ref: { depth: 2, callId: 'call_in_child' },
    });
    // Stopped from outside: `stopping` until the call's result says it was its time limit.
    t.feed(
      wrap({
        type: 'done',
        sessionId: child.sessionId,
        reason: 'cancelled',
        text: '',
        usage: { inputTokens: 10, outputTokens: 5 },
        costUsd: 0,
      }),
    );
    expect(t.get(child.sessionId)?.status).toBe('stopping');
    const head = `[sub-agent coder #1 · stopped by its time limit: a partial result · 15 tokens · session aaaaaaaa]`;
    const changes = t.feed({
      type: 'tool_update',
      record: {
        callId: 'call_1',
        turnId: 't',
        name: 'task',
        args: {},
        state: 'completed',
        title: 'task',
        kind: 'other',
        content: [{ type: 'text', text: head }],
        createdAt: 0,
        finishedAt: 1,
      },
    });
    expect(changes.map((c) => [c.state.ref.label, c.state.status])).toEqual([['coder #1', 'timeout']]);
    // The session's own end: a child never heard of again was stopped with it.
    t.feed({
      type: 'done',
      sessionId: 'p',
      reason: 'cancelled',
      text: '',
      usage: { inputTokens: 0, outputTokens: 0 },
      costUsd: 0,
    });
    expect(t.get(grandchild.sessionId)?.status).toBe('cancelled');
    expect(t.running()).toEqual([]);
  });
});

describe('the README’s sub-agent limits', () => {
  const tempDir = useTempDirs();
  it('load as the config they say', async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### Sub-agents\n'));
    const yaml = /```yaml\n([\s\S]*?)\n```/.exec(section)?.[1];
    expect(yaml).toContain('subagents:');
    const home = path.join(tempDir(), 'home');
    mkdirSync(home);
    writeFileSync(path.join(home, 'config.yaml'), yaml ?? '');
    const config = await loadConfig({ home, cwd: home, env: {}, detectOllama: false });
    expect(config.subagents).toEqual({
      maxParallel: 4,
      maxTasksPerCall: 6,
      maxDepth: 1,
      timeoutMs: 300_000,
      maxTokens: 200_000,
      maxCostUsd: 0.5,
    });
  });
});
