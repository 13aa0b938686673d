import { describe, expect, it } from 'vitest';
import { registerMemoryTool } from '../../src/agent/agent.js';
import { memoryTool } from '../../src/agent/memory-tool.js';
import { MEMORY_TOOL_INFO, MEMORY_TOOL_PARAMETERS } from '../../src/agent/memory-tool-info.js';
import type { LongTermMemory } from '../../src/memory/api.js';
import { infoOf } from '../../src/tools/builtin/catalogue.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { buildSpec } from '../../src/tools/schema.js';

const unused = {} as LongTermMemory;

describe('the memory tool by its facts', () => {
  it('has the facts and the JSON schema of the tool itself (edit both together)', () => {
    const tool = memoryTool(unused, () => []);
    expect(infoOf(tool)).toEqual(infoOf(MEMORY_TOOL_INFO));
    expect(buildSpec(tool).parameters).toEqual(MEMORY_TOOL_PARAMETERS);
  });

  it('is offered without loading its code, and loads once when first called', async () => {
    const registry = new ToolRegistry();
    registerMemoryTool(registry, unused, () => []);
    expect(registry.get('memory')).toEqual(MEMORY_TOOL_INFO);
    expect(registry.specs(['memory'])[0]!.parameters).toEqual(MEMORY_TOOL_PARAMETERS);
    expect(registry.loaded('memory')).toBeUndefined();
    const [a, b] = await Promise.all([registry.load('memory'), registry.load('memory')]);
    expect(a).toBe(b);
    expect(a?.parameters.safeParse({ action: 'search', query: 'x' }).success).toBe(true);
    expect(a?.parameters.safeParse({ action: 'forget' }).success).toBe(false);
  });
});
