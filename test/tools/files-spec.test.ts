import { describe, expect, it } from 'vitest';
import { fileTools } from '../../src/tools/builtin/files.js';
import { buildSpec } from '../../src/tools/schema.js';

describe('the files family', () => {
  const tools = fileTools();

  it('keeps the core-tier schemas small', () => {
    for (const name of ['read_file', 'write_file', 'edit_file', 'list_dir', 'glob']) {
      const tool = tools.find((t) => t.name === name);
      expect(tool, name).toBeDefined();
      const spec = buildSpec(tool!);
      expect(JSON.stringify(spec).length, name).toBeLessThanOrEqual(700);
      expect(spec.description.length, name).toBeLessThanOrEqual(200);
      const descriptions: string[] = [];
      const collect = (node: unknown): void => {
        if (typeof node !== 'object' || node === null) return;
        for (const [key, value] of Object.entries(node)) {
          if (key === 'description' && typeof value === 'string') descriptions.push(value);
          else collect(value);
        }
      };
      collect(spec.parameters);
      expect(descriptions.length, name).toBeGreaterThan(0);
      for (const d of descriptions) expect(d.length, `${name}: ${d}`).toBeLessThanOrEqual(60);
    }
  });

  it('declares honest metadata and a subject for every tool', () => {
    const names = tools.map((t) => t.name);
    expect(names).toEqual([
      'read_file',
      'read_many_files',
      'write_file',
      'append_file',
      'edit_file',
      'apply_patch',
      'list_dir',
      'tree',
      'glob',
      'file_info',
      'diff_files',
      'delete_path',
      'move_path',
      'copy_path',
      'make_dir',
    ]);
    const readers = new Set([
      'read_file',
      'read_many_files',
      'list_dir',
      'tree',
      'glob',
      'file_info',
      'diff_files',
    ]);
    for (const tool of tools) {
      expect(tool.category).toBe('files');
      expect(tool.readOnly, tool.name).toBe(readers.has(tool.name));
      expect(tool.concurrencySafe, tool.name).toBe(readers.has(tool.name));
      expect(tool.approval, tool.name).toBe(readers.has(tool.name) ? 'none' : 'write');
      expect(tool.keywords?.length, tool.name).toBeGreaterThan(3);
      expect(tool.timeoutMs, tool.name).toBeGreaterThan(0);
      expect(tool.subject, tool.name).toBeTypeOf('function');
    }
    const subject = (name: string, args: Record<string, unknown>): string =>
      tools.find((t) => t.name === name)!.subject!(args as never);
    expect(subject('read_file', { path: 'src/a.ts' })).toBe('src/a.ts');
    expect(subject('move_path', { from: 'a', to: 'b' })).toBe('a -> b');
    expect(subject('read_many_files', { paths: ['a', 'b'] })).toBe('a, b');
    expect(subject('list_dir', {})).toBe('.');
    expect(
      subject('apply_patch', {
        patch:
          '*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n@@\n-x\n+y\n*** Delete File: c\n*** End Patch',
      }),
    ).toBe('a.ts, b.ts, c');
  });
});
