/** Claude Code's agent files (`.claude/agents/*.md`) as tea reads them. */
import { describe, expect, it } from 'vitest';
import { CLAUDE_TOOLS } from '../../src/multi/roles/index.js';
import { roleFile, useRoleDirs } from './role-dirs.js';

const dirs = useRoleDirs();

/** A typical file from a Claude Code user's project. */
const CODE_REVIEWER = `---
name: code-reviewer
description: Expert code review specialist. Proactively reviews code for quality, security, and maintainability. Use immediately after writing or modifying code.
tools: Read, Grep, Glob, Bash
model: inherit
color: red
---

You are a senior code reviewer ensuring high standards of code quality and security.

When invoked:
1. Run git diff to see recent changes
2. Focus on modified files
`;

describe('loadRoles: Claude Code agent files', () => {
  it('reads a Claude Code agent file, mapping its tools to tea tools and ignoring color', async () => {
    const d = dirs();
    const path = d.write('project-claude', 'code-reviewer.md', CODE_REVIEWER);
    const set = await d.load();
    expect(set.warnings).toEqual([]);
    const role = set.get('code-reviewer');
    expect(role?.source).toBe(path);
    expect(role?.model).toBeUndefined();
    expect(role?.prompt.startsWith('You are a senior code reviewer')).toBe(true);
    expect(role?.tools).toEqual([
      'read_file',
      'read_many_files',
      'grep',
      'glob',
      'find_files',
      ...CLAUDE_TOOLS.Bash!,
    ]);
    expect(role?.tools).toContain('bash');
    expect(role?.tools).toContain('git_diff');
  });

  it('maps every Claude Code tool name, and mixes them with tea names without duplicates', async () => {
    const d = dirs();
    d.write(
      'project-claude',
      'all.md',
      roleFile(
        'name: all\ndescription: d\ntools: Read, Write, Edit, MultiEdit, LS, WebFetch, WebSearch, TodoWrite, NotebookEdit, edit_file',
      ),
    );
    const set = await d.load();
    expect(set.warnings).toEqual([]);
    expect(set.get('all')?.tools).toEqual([
      'read_file',
      'read_many_files',
      'write_file',
      'append_file',
      'make_dir',
      'edit_file',
      'apply_patch',
      'list_dir',
      'tree',
      'file_info',
      'web_fetch',
      'web_search',
      'todo_write',
      'todo_read',
    ]);
  });

  it('reads an empty tools string as no tools, and no tools key as the parent tools', async () => {
    const d = dirs();
    d.write('project-claude', 'none.md', roleFile('name: none\ndescription: d\ntools: ""'));
    d.write('project-claude', 'all.md', roleFile('name: all\ndescription: d'));
    const set = await d.load();
    expect(set.get('none')?.tools).toEqual([]);
    expect(set.get('all')?.tools).toBeUndefined();
  });

  it('maps maxTurns, permissionMode and disallowedTools (removed from tools, or kept for the parent tools)', async () => {
    const d = dirs();
    d.write(
      'home-claude',
      'planner.md',
      roleFile(
        'name: planner\ndescription: d\ntools: Read, Bash\ndisallowedTools: Bash\nmaxTurns: 7\npermissionMode: plan',
      ),
    );
    d.write('home-claude', 'open.md', roleFile('name: open\ndescription: d\ndisallowedTools: [Write, Edit]'));
    d.write('home-claude', 'edits.md', roleFile('name: edits\ndescription: d\npermissionMode: acceptEdits'));
    const set = await d.load();
    expect(set.warnings).toEqual([]);
    expect(set.get('planner')).toMatchObject({
      tools: ['read_file', 'read_many_files'],
      maxTurns: 7,
      permissionMode: 'read-only',
    });
    expect(set.get('planner')?.disallowedTools).toBeUndefined();
    expect(set.get('open')?.tools).toBeUndefined();
    expect(set.get('open')?.disallowedTools).toEqual(['write_file', 'append_file', 'make_dir', 'edit_file']);
    expect(set.get('edits')?.permissionMode).toBe('auto-edit');
  });

  it('falls back to the parent model for a Claude alias with no tea profile, keeping the alias, with a warning', async () => {
    const d = dirs();
    const path = d.write('home-claude', 'fast.md', roleFile('name: fast\ndescription: d\nmodel: haiku'));
    const set = await d.load();
    expect(set.get('fast')?.model).toBeUndefined();
    expect(set.get('fast')?.modelAlias).toBe('haiku');
    expect(set.warnings).toEqual([
      `${path}: model: "haiku" is a Claude Code model alias and no tea profile has that name, so this role runs on the parent's model. Fix: add a profile named haiku to ~/.tea/config.yaml, or set model to a tea profile name, a model id or inherit.`,
    ]);
  });

  it('keeps a Claude alias that names a tea profile, and any other model id as it is', async () => {
    const d = dirs();
    d.write('home-claude', 'fast.md', roleFile('name: fast\ndescription: d\nmodel: haiku'));
    d.write('home-claude', 'pinned.md', roleFile('name: pinned\ndescription: d\nmodel: claude-opus-4-1'));
    const set = await d.load({ profiles: ['haiku', 'main'] });
    expect(set.warnings).toEqual([]);
    expect(set.get('fast')?.model).toBe('haiku');
    expect(set.get('fast')?.modelAlias).toBeUndefined();
    expect(set.get('pinned')?.model).toBe('claude-opus-4-1');
  });

  it('reads Task(role) as the delegation tools, with a note that the role limit is not applied', async () => {
    const d = dirs();
    const path = d.write(
      'project-claude',
      'lead.md',
      roleFile('name: lead\ndescription: d\ntools: Read, Task(reviewer)'),
    );
    const set = await d.load();
    expect(set.get('lead')?.tools).toEqual(['read_file', 'read_many_files', 'task', 'delegate_tasks']);
    expect(set.warnings).toEqual([
      `${path}: tools: "Task(reviewer)" is read as task and delegate_tasks; tea does not limit which roles it may start.`,
    ]);
  });

  it('loads a description with an unquoted ": " (invalid YAML Claude Code accepts) as written', async () => {
    const d = dirs();
    d.write(
      'project-claude',
      'loose.md',
      roleFile(
        'name: loose\ndescription: Use when asked. Examples: user: "review this" assistant: ok\ntools: Read',
      ),
    );
    const set = await d.load();
    expect(set.warnings).toEqual([]);
    expect(set.get('loose')?.description).toBe('Use when asked. Examples: user: "review this" assistant: ok');
  });

  it('ignores the other Claude-only keys quietly', async () => {
    const d = dirs();
    d.write(
      'project-claude',
      'quiet.md',
      roleFile(
        'name: quiet\ndescription: d\ncolor: blue\nskills: [a]\nmcpServers: [github]\nhooks: {}\nmemory: project\nbackground: false\nisolation: worktree\neffort: high',
      ),
    );
    const set = await d.load();
    expect(set.warnings).toEqual([]);
    expect(set.get('quiet')).toBeDefined();
  });
});
