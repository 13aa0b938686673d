/**
 * The management tools are registered by facts (info.ts) before their code loads:
 * those facts and JSON Schemas must be what the loaded tools have (manage.ts), and
 * the classes they declare are the ones the design says (saving a tool is `exec`).
 */
import { describe, expect, it } from 'vitest';
import { infoOf } from '../../../src/tools/builtin/catalogue.js';
import { type PermissionMode, PermissionPolicy } from '../../../src/tools/permissions.js';
import { ToolRegistry } from '../../../src/tools/registry.js';
import { buildSpec } from '../../../src/tools/schema.js';
import type { ApprovalClass } from '../../../src/tools/types.js';
import { APPROVAL_CLASSES, covers, join } from '../../../src/tools/user/classes.js';
import { MANAGE_PARAMETERS, MANAGE_TOOL_INFO, MANAGE_TOOL_NAMES } from '../../../src/tools/user/info.js';
import { manageTool } from '../../../src/tools/user/manage.js';

describe('the management tools', () => {
  it.each(MANAGE_TOOL_NAMES)('%s: registered facts and schema agree with its code', (name) => {
    const tool = manageTool(name, { registry: new ToolRegistry(), home: '/nonexistent' });
    expect(infoOf(tool)).toEqual(infoOf(MANAGE_TOOL_INFO[name]));
    expect(buildSpec(tool).parameters).toEqual(MANAGE_PARAMETERS[name]);
  });

  it('saving a tool needs exec approval; rollback write; listing none', () => {
    expect(MANAGE_TOOL_INFO.tool_create.approval).toBe('exec');
    expect(MANAGE_TOOL_INFO.tool_update.approval).toBe('exec');
    expect(MANAGE_TOOL_INFO.tool_rollback.approval).toBe('write');
    expect(MANAGE_TOOL_INFO.tool_versions).toMatchObject({ approval: 'none', readOnly: true });
  });
});

const MODES: PermissionMode[] = ['read-only', 'ask', 'auto-edit', 'yolo'];
const RANK = { allow: 0, ask: 1, deny: 2 } as const;

/** Whether class `a` is treated at least as strictly as `b` in every mode of the real policy. */
async function atLeastAsStrict(a: ApprovalClass, b: ApprovalClass): Promise<boolean> {
  for (const mode of MODES) {
    const policy = new PermissionPolicy(mode);
    const [x, y] = await Promise.all([
      policy.check({ tool: 't', approval: a }),
      policy.check({ tool: 't', approval: b }),
    ]);
    if (RANK[x.action] < RANK[y.action]) return false;
  }
  return true;
}

describe('approval classes: covers and join follow the permission policy', () => {
  it('covers(a, b) exactly when the policy treats a at least as strictly as b in every mode', async () => {
    for (const a of APPROVAL_CLASSES)
      for (const b of APPROVAL_CLASSES)
        expect([a, b, covers(a, b)]).toEqual([a, b, await atLeastAsStrict(a, b)]);
  });

  it('write and network do not cover each other, so needing both needs exec', () => {
    expect(covers('write', 'network')).toBe(false);
    expect(covers('network', 'write')).toBe(false);
    expect(join('write', 'network')).toBe('exec');
    expect(join('none', 'write')).toBe('write');
    expect(join('exec', 'none')).toBe('exec');
  });
});
