/**
 * Sub-agents keep their roles whatever the parent's work mode: a child's request has
 * no work-mode line, its role's tools (not the parent mode's view), and its session no
 * work mode; the parent's mode only bounds the child's permission mode, as any parent's does.
 */
import { describe, expect, it } from 'vitest';
import { reply } from '../support/script.js';
import { collect, isChild, isFirstCall, systemOf, task, toolNames, useDelegation } from './helpers.js';

const { model, runtimeIn } = useDelegation();

describe('sub-agents under a work mode', () => {
  it('a review-mode parent’s general-purpose child runs its role, with no mode line and its own tools', async () => {
    const { rt } = await runtimeIn('permissions: { mode: yolo }\ntools: { loading: all }');
    model().respond((body) => {
      if (isChild(body)) return reply().text('child done');
      if (isFirstCall(body)) return reply().toolCall('task', task(1));
      return reply().text('done');
    });
    const parent = rt.sessions.create();
    parent.setWorkMode('review');
    await collect(parent.prompt('check part 1'));
    const first = model().requests.find((r) => !isChild(r.body))!;
    expect(systemOf(first.body)).toContain('\nWork mode: review — ');
    expect(toolNames(first.body)).not.toContain('bash');
    expect(toolNames(first.body)).toContain('task');
    const child = model().requests.find((r) => isChild(r.body))!;
    expect(systemOf(child.body)).not.toContain('Work mode:');
    // The general role's tools, bash among them, though the parent's mode offers none.
    expect(toolNames(child.body)).toContain('bash');
    // The parent's permission mode (review's read-only) is still the child's ceiling.
    expect(systemOf(child.body)).toContain('Permission mode: read-only');
    const childRow = rt.sessions.list({ children: true }).find((s) => s.parentId === parent.id)!;
    expect(rt.sessions.workMode(childRow.id)).toBeNull();
    expect(() => rt.sessions.setWorkMode(childRow.id, 'develop')).toThrow(
      /sub-agent's \(role .*\): it has no work mode/,
    );
  });
});
