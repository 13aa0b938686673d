import { describe, expect, it } from 'vitest';
import { createToolRegistry } from '../../src/tools/builtin/index.js';
import {
  activeToolNames,
  CORE_TOOLS,
  catalogBlock,
  rankTools,
  specTokens,
  toolsMentioned,
} from '../../src/tools/loading.js';

const registry = await createToolRegistry();

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
  it('sees tools registered or removed after an earlier lookup (the keyword index follows the registry)', async () => {
    const { z } = await import('zod');
    const own = await createToolRegistry();
    const ask = 'please frobnicate the widgets';
    expect(toolsMentioned(own, ask)).toEqual([]);
    own.register({
      name: 'widget_frobnicator',
      description: 'Frobnicates widgets in place.',
      category: 'custom',
      approval: 'none',
      readOnly: true,
      concurrencySafe: true,
      keywords: ['frobnicate'],
      parameters: z.object({}),
      execute: async () => 'ok',
    });
    expect(toolsMentioned(own, ask)).toEqual(['widget_frobnicator']);
    own.unregister('widget_frobnicator');
    expect(toolsMentioned(own, ask)).toEqual([]);
  });

  it('sends the core tier plus loaded tools, or everything in "all" mode', () => {
    expect(activeToolNames(registry, new Set(), 'intent')).toEqual([...CORE_TOOLS]);
    expect(activeToolNames(registry, new Set(['git_status', 'nope']), 'intent')).toEqual([
      ...CORE_TOOLS,
      'git_status',
    ]);
    expect(activeToolNames(registry, new Set(), 'all')).toHaveLength(registry.names().length);
  });

  it('lists the other tools by name in a one-line catalog, never the core ones', () => {
    const block = catalogBlock(registry);
    expect(block).toMatch(/^More tools \(load with tool_search before use\): [a-z_]+( [a-z_]+)+$/);
    const listed = block.slice(block.indexOf(': ') + 2).split(' ');
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

  // Everyday words ("add", "show", "log", "machine", "json") are no reason to load a tool.
  it.each([
    ['add a line to the README saying how to run the tests', []],
    ['给 README 加一行，说明如何运行测试', []],
    ['list the files here and summarise the README', []],
    ['what does this project do?', []],
    ['find all TODO comments in the code', []],
    ['把 config.json 里的端口改成 8080', []],
    ['show me the git log of the last week', ['git_log']],
    ['查看最近的 git 提交记录', ['git_log']],
    ['commit my changes with a good message', ['git_commit']],
    ['stage everything and commit it', ['git_add', 'git_commit']],
    ['what time is it in Tokyo right now?', ['current_time']],
    ['how much disk space is left on this machine?', ['disk_usage']],
    ['compute the sha256 of package.json', ['hash_text']],
    ['删除 build 目录下的临时文件', ['delete_path']],
  ])('"%s" pre-loads %j', (prompt, expected) => {
    expect(toolsMentioned(registry, prompt).sort()).toEqual([...expected].sort());
  });

  it('pre-loads at most three tools, and only schemas that fit the budget', () => {
    const words = 'git log, git diff, git status, git blame and the current time';
    expect(toolsMentioned(registry, words)).toHaveLength(3);
    const gitLog = specTokens(registry, 'git_log');
    expect(toolsMentioned(registry, 'show the git log', { budgetTokens: gitLog })).toEqual(['git_log']);
    expect(toolsMentioned(registry, 'show the git log', { budgetTokens: gitLog - 1 })).toEqual([]);
    // What does not fit is skipped, and a smaller schema that fits is still taken.
    expect(
      toolsMentioned(registry, 'the git log and the current time', {
        budgetTokens: specTokens(registry, 'current_time'),
      }),
    ).toEqual(['current_time']);
  });

  it('ranks tools for a free-text intent', () => {
    expect(rankTools(registry, 'git status')[0]?.name).toBe('git_status');
    expect(rankTools(registry, 'what time is it in Tokyo').map((t) => t.name)).toContain('current_time');
    expect(rankTools(registry, 'xyzzy plugh')).toEqual([]);
  });
});

describe('pre-loading on a huge message', () => {
  it('reads only its head and tail (the request), not what is pasted in between', () => {
    const pasted = '查看文件夹里的文件 add a line to the log file '.repeat(200_000);
    expect(toolsMentioned(registry, `show me the git log\n${pasted}`)).toEqual(['git_log']);
    expect(toolsMentioned(registry, `${pasted}\nwhat time is it now?`)).toEqual(['current_time']);
    const middle = `${pasted.slice(0, 5000)} what time is it now? ${pasted.slice(0, 5000)}`;
    expect(toolsMentioned(registry, middle)).toEqual([]);
  });
});
