import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { builtinTools } from '../../src/tools/builtin/all.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { defineTool, type Tool } from '../../src/tools/types.js';

function fakeTool(name: string, parameters: z.ZodType = z.object({})): Tool {
  return defineTool({
    name,
    description: `the ${name} tool`,
    parameters,
    category: 'test',
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    execute: async () => 'ok',
  });
}

describe('ToolRegistry', () => {
  it('registers, looks up and lists tools in order', () => {
    const registry = new ToolRegistry();
    registry.registerAll([fakeTool('alpha'), fakeTool('beta')]);
    expect(registry.names()).toEqual(['alpha', 'beta']);
    expect(registry.has('alpha')).toBe(true);
    expect(registry.has('gamma')).toBe(false);
    expect(registry.get('beta')?.description).toBe('the beta tool');
    expect(registry.get('gamma')).toBeUndefined();
    expect(registry.list().map((t) => t.name)).toEqual(['alpha', 'beta']);
    expect(registry.unregister('alpha')).toBe(true);
    expect(registry.names()).toEqual(['beta']);
    expect(() => registry.specs(['alpha'])).toThrow(/Unknown tool "alpha"/);
  });

  it('rejects duplicate names, bad names and non-object schemas', () => {
    const registry = new ToolRegistry();
    registry.register(fakeTool('alpha'));
    expect(() => registry.register(fakeTool('alpha'))).toThrow(/Duplicate tool name "alpha"/);
    expect(() => registry.register(fakeTool('has space'))).toThrow(/Invalid tool name/);
    expect(() => registry.register(fakeTool('str', z.string()))).toThrow(/must be a z\.object/);
    expect(registry.names()).toEqual(['alpha']);
  });

  it('generates an OpenAI/Anthropic-shaped JSON schema for every builtin', () => {
    const registry = new ToolRegistry();
    registry.registerAll(builtinTools());
    const specs = registry.specs();
    expect(specs.map((s) => s.name)).toEqual(
      expect.arrayContaining(['bash', 'edit_file', 'glob', 'grep', 'list_dir', 'read_file', 'write_file']),
    );
    expect(specs.length).toBeGreaterThanOrEqual(45);
    for (const spec of specs) {
      const params = spec.parameters;
      expect(params.type, spec.name).toBe('object');
      expect(params.$schema, spec.name).toBeUndefined();
      expect(typeof params.properties, spec.name).toBe('object');
      expect(Array.isArray(params.required), spec.name).toBe(true);
      const props = Object.keys(params.properties as object);
      for (const req of params.required as string[]) expect(props, spec.name).toContain(req);
      expect(spec.description.length, spec.name).toBeGreaterThan(40);
      // Nothing zod-specific or huge leaks into what the model reads.
      expect(JSON.stringify(params)).not.toContain(String(Number.MAX_SAFE_INTEGER));
    }
    const read = registry.specs(['read_file'])[0]!.parameters;
    expect(read.required).toEqual(['path']);
    expect(read.properties).toMatchObject({
      path: { type: 'string' },
      offset: { type: 'integer', minimum: 1 },
      limit: { type: 'integer' },
    });
    const edit = registry.specs(['edit_file'])[0]!.parameters;
    expect(edit.required).toEqual(['path']);
    expect(Object.keys(edit.properties as object)).toEqual(
      expect.arrayContaining(['old_string', 'new_string', 'edits']),
    );
    const list = registry.specs(['list_dir'])[0]!.parameters;
    expect(list.required).toEqual([]);
  });

  it('caches specs: the same frozen objects every call, in the order asked', () => {
    const registry = new ToolRegistry();
    registry.registerAll(builtinTools());
    const first = registry.specs();
    const second = registry.specs();
    expect(second).not.toBe(first);
    for (const [i, spec] of first.entries()) expect(second[i]).toBe(spec);
    expect(Object.isFrozen(first[0]!.parameters)).toBe(true);
    const picked = registry.specs(['grep', 'bash']);
    expect(picked.map((s) => s.name)).toEqual(['grep', 'bash']);
    expect(picked[0]).toBe(first.find((s) => s.name === 'grep'));
  });

  it('suggests the closest names', () => {
    const registry = new ToolRegistry();
    registry.registerAll(builtinTools());
    expect(registry.closest('read')[0]).toBe('read_file');
    expect(registry.closest('readFile')[0]).toBe('read_file');
    expect(registry.closest('file_read')[0]).toBe('read_file');
    expect(registry.closest('shell_exec', 1)).toHaveLength(1);
    expect(registry.closest('gerp')[0]).toBe('grep');
    expect(registry.closest('ls_dir')[0]).toBe('list_dir');
    expect(registry.closest('edit', 2)).toEqual(['edit_file', expect.any(String)]);
    expect(registry.closest('anything', 0)).toEqual([]);
  });
});
