import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../src/tools/builtin/index.js';
import {
  activeToolNames,
  CORE_TOOLS,
  catalogBlock,
  rankTools,
  toolsMentioned,
} from '../../src/tools/loading.js';

const registry = createToolRegistry();

describe('the tool suite', () => {
  it('registers at least 50 tools, every one fully declared', () => {
    const tools = registry.list();
    expect(tools.length).toBeGreaterThanOrEqual(50);
    for (const t of tools) {
      expect(t.description.length, t.name).toBeGreaterThan(10);
      expect(t.category, t.name).toMatch(/^[a-z]+$/);
      expect(['none', 'write', 'exec', 'network'], t.name).toContain(t.approval);
      expect(t.keywords?.length ?? 0, `${t.name} keywords`).toBeGreaterThan(0);
      if (t.concurrencySafe)
        expect(t.readOnly, `${t.name}: parallel-safe tools must be read-only`).toBe(true);
    }
    expect(CORE_TOOLS.every((n) => registry.has(n))).toBe(true);
  });
});

describe('intent-aware loading', () => {
  it('sends the core tier plus loaded tools, or everything in "all" mode', () => {
    expect(activeToolNames(registry, new Set(), 'intent')).toEqual([...CORE_TOOLS]);
    expect(activeToolNames(registry, new Set(['git_status', 'nope']), 'intent')).toEqual([
      ...CORE_TOOLS,
      'git_status',
    ]);
    expect(activeToolNames(registry, new Set(), 'all')).toHaveLength(registry.names().length);
  });

  it('lists the other tools by category in the catalog, never the core ones', () => {
    const block = catalogBlock(registry);
    expect(block).toMatch(/^<available-tools>\n/);
    expect(block).toMatch(/\ngit: git_status, git_diff/);
    const listed = block.match(/^[a-z]+: .*$/gm)!.flatMap((l) => l.split(': ')[1]!.split(', '));
    for (const core of CORE_TOOLS) expect(listed).not.toContain(core);
    expect(listed.sort()).toEqual(
      registry
        .names()
        .filter((n) => !CORE_TOOLS.includes(n))
        .sort(),
    );
  });

  it('pre-loads tools the user’s words mention (English and Chinese)', () => {
    expect(toolsMentioned(registry, 'please commit the git changes')).toEqual(
      expect.arrayContaining(['git_commit']),
    );
    expect(toolsMentioned(registry, '帮我提交代码')).toEqual(expect.arrayContaining(['git_commit']));
    expect(toolsMentioned(registry, 'fetch https://example.com and summarise')).toEqual(
      expect.arrayContaining(['web_fetch']),
    );
    expect(toolsMentioned(registry, 'hello there')).toEqual([]);
  });

  it('ranks tools for a free-text intent', () => {
    expect(rankTools(registry, 'git status')[0]?.name).toBe('git_status');
    expect(rankTools(registry, 'what time is it in Tokyo').map((t) => t.name)).toContain('current_time');
    expect(rankTools(registry, 'xyzzy plugh')).toEqual([]);
  });
});
