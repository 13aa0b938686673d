/** The built-in roles and the Claude Code tool map, checked against the real tools. */
import { describe, expect, it } from 'vitest';
import { MEMORY_TOOL_INFO } from '../../src/agent/memory-tool-info.js';
import { BUILTIN_ROLES, CLAUDE_TOOLS } from '../../src/multi/roles/index.js';
import { buildCatalogue, type CatalogueEntry } from '../../src/tools/builtin/catalogue.js';

/** Built from the tools' code (not the generated data file), so a renamed tool fails here. */
const catalogue: Map<string, CatalogueEntry> = new Map((await buildCatalogue()).map((e) => [e.name, e]));

describe('built-in roles', () => {
  it('are analyst, coder, tester and reviewer, each with a description, a prompt and a tool list', () => {
    expect(BUILTIN_ROLES.map((r) => r.name)).toEqual(['analyst', 'coder', 'tester', 'reviewer']);
    for (const role of BUILTIN_ROLES) {
      expect(role.source).toBe('builtin');
      expect(role.description.length).toBeGreaterThan(40);
      expect(role.prompt.split('\n\n').length).toBeGreaterThanOrEqual(3);
      expect(role.tools?.length).toBeGreaterThan(5);
      expect(new Set(role.tools).size).toBe(role.tools?.length);
      expect(role.outputSchema).toBeUndefined();
    }
  });

  it.each(BUILTIN_ROLES.map((r) => [r.name, r.tools ?? []] as const))(
    '%s lists only real tools',
    (_, tools) => {
      const missing = tools.filter((t) => !catalogue.has(t));
      expect(missing).toEqual([]);
    },
  );

  it.each(['analyst', 'reviewer'])(
    '%s is read-only: a read-only ceiling and only read-only tools',
    (name) => {
      const role = BUILTIN_ROLES.find((r) => r.name === name)!;
      expect(role.permissionMode).toBe('read-only');
      const writers = (role.tools ?? []).filter((t) => !catalogue.get(t)?.readOnly);
      expect(writers).toEqual([]);
    },
  );

  it('coder can edit and run; tester can write tests and run them', () => {
    const tools = (name: string) => BUILTIN_ROLES.find((r) => r.name === name)?.tools ?? [];
    for (const t of ['edit_file', 'write_file', 'apply_patch', 'bash', 'grep'])
      expect(tools('coder')).toContain(t);
    for (const t of ['write_file', 'edit_file', 'bash', 'read_file']) expect(tools('tester')).toContain(t);
    expect(tools('tester')).not.toContain('git_commit');
    expect(tools('coder')).not.toContain('git_commit');
  });

  it('the reviewer prompt asks for findings by severity', () => {
    const reviewer = BUILTIN_ROLES.find((r) => r.name === 'reviewer')!;
    for (const word of ['critical', 'major', 'minor', 'file:line']) expect(reviewer.prompt).toContain(word);
  });
});

describe('Claude Code tool map', () => {
  const delegation = new Set(['task', 'delegate_tasks', MEMORY_TOOL_INFO.name]);
  it.each(Object.entries(CLAUDE_TOOLS))('%s maps to real tea tools', (_, tools) => {
    expect(tools.length).toBeGreaterThan(0);
    expect(tools.filter((t) => !catalogue.has(t) && !delegation.has(t))).toEqual([]);
  });

  it('maps the read-only Claude tools to read-only tea tools only', () => {
    for (const name of ['Read', 'Grep', 'Glob', 'LS', 'WebFetch', 'WebSearch']) {
      expect(CLAUDE_TOOLS[name]?.filter((t) => !catalogue.get(t)?.readOnly)).toEqual([]);
    }
  });
});
