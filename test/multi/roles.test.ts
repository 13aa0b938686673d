import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadRoles } from '../../src/multi/roles/index.js';
import { type Level, roleFile, useRoleDirs } from './role-dirs.js';

const dirs = useRoleDirs();
const LEVELS: Level[] = ['project-tea', 'project-claude', 'home-tea', 'home-claude'];

describe('loadRoles: where role files are found', () => {
  it('with no role files, has the four built-ins and no warnings', async () => {
    const set = await dirs().load();
    expect(set.list().map((r) => r.name)).toEqual(['analyst', 'coder', 'reviewer', 'tester']);
    expect(set.warnings).toEqual([]);
    expect(set.get('reviewer')?.source).toBe('builtin');
  });

  it.each(LEVELS)('reads a role file from the %s folder', async (level) => {
    const d = dirs();
    const path = d.write(level, 'docs-writer.md', roleFile('name: docs-writer\ndescription: Writes docs.'));
    const set = await d.load();
    const role = set.get('docs-writer');
    expect(role).toMatchObject({
      name: 'docs-writer',
      description: 'Writes docs.',
      prompt: 'Do the job well.',
    });
    expect(role?.source).toBe(path);
    expect(set.warnings).toEqual([]);
  });

  it('takes the first role of a name in precedence order, and notes each shadowed user file', async () => {
    const d = dirs();
    const paths = LEVELS.map((level) =>
      d.write(level, 'helper.md', roleFile(`name: helper\ndescription: from ${level}`)),
    );
    const set = await d.load();
    expect(set.get('helper')?.description).toBe('from project-tea');
    expect(set.get('helper')?.source).toBe(paths[0]);
    expect(set.warnings).toHaveLength(3);
    for (const [i, warning] of set.warnings.entries()) {
      expect(warning).toBe(
        `${paths[i + 1]}: name: the role "helper" is shadowed by ${paths[0]}, which comes first. Fix: rename one of them, or delete the one you do not use.`,
      );
    }
  });

  it.each(LEVELS.slice(1))('lets %s win over every lower level', async (level) => {
    const d = dirs();
    const from = LEVELS.indexOf(level);
    for (const lower of LEVELS.slice(from)) {
      d.write(lower, 'helper.md', roleFile(`name: helper\ndescription: from ${lower}`));
    }
    const set = await d.load();
    expect(set.get('helper')?.description).toBe(`from ${level}`);
    expect(set.warnings).toHaveLength(LEVELS.length - from - 1);
  });

  it('replaces a built-in with a user role of its name, quietly', async () => {
    const d = dirs();
    d.write('home-tea', 'my-reviewer.md', roleFile('name: reviewer\ndescription: Our house reviewer.'));
    const set = await d.load();
    expect(set.get('reviewer')?.description).toBe('Our house reviewer.');
    expect(set.get('reviewer')?.tools).toBeUndefined();
    expect(set.warnings).toEqual([]);
  });

  it('shadows two files of one name in one folder by file name order', async () => {
    const d = dirs();
    const a = d.write('project-tea', 'a.md', roleFile('name: twin\ndescription: A'));
    const b = d.write('project-tea', 'b.md', roleFile('name: twin\ndescription: B'));
    const set = await d.load();
    expect(set.get('twin')?.source).toBe(a);
    expect(set.warnings).toEqual([
      expect.stringContaining(`${b}: name: the role "twin" is shadowed by ${a}`),
    ]);
  });

  it('reads only *.md files, skips a README without frontmatter and a disabled role', async () => {
    const d = dirs();
    d.write('project-tea', 'notes.txt', roleFile('name: notes\ndescription: not a role file'));
    d.write('project-tea', 'README.md', '# Our agents\n\nOne file per role.\n');
    d.write('project-tea', 'off.md', roleFile('name: helper\ndescription: switched off\ndisabled: true'));
    d.write('home-tea', 'helper.md', roleFile('name: helper\ndescription: the user one'));
    mkdirSync(join(d.dir('project-tea'), 'sub.md'));
    const set = await d.load();
    expect(set.get('notes')).toBeUndefined();
    expect(set.get('helper')?.description).toBe('the user one');
    expect(set.warnings).toEqual([]);
  });

  it('reads a folder reached twice (the workspace is the home folder) once, with no shadow notes', async () => {
    const d = dirs();
    mkdirSync(d.cwd, { recursive: true });
    symlinkSync(d.home, join(d.cwd, '.tea'));
    d.write('home-tea', 'helper.md', roleFile('name: helper\ndescription: once'));
    const set = await d.load();
    expect(set.get('helper')?.description).toBe('once');
    expect(set.warnings).toEqual([]);
  });

  it('warns when an agents path is a file, and still loads the rest', async () => {
    const d = dirs();
    mkdirSync(join(d.cwd, '.tea'), { recursive: true });
    writeFileSync(join(d.cwd, '.tea', 'agents'), 'oops');
    d.write('home-tea', 'helper.md', roleFile('name: helper\ndescription: still here'));
    const set = await d.load();
    expect(set.get('helper')).toBeDefined();
    expect(set.warnings).toEqual([
      `${join(d.cwd, '.tea', 'agents')}: role files could not be listed (it is not a folder). Fix: make it a folder of *.md role files, or remove it.`,
    ]);
  });

  it('gives each load its own copy of the built-ins', async () => {
    const d = dirs();
    const first = await d.load();
    first.get('coder')?.tools?.push('changed');
    const second = await loadRoles({ cwd: d.cwd, home: d.home, claudeHome: d.claudeHome });
    expect(second.get('coder')?.tools).not.toContain('changed');
  });
});

describe('loadRoles: tea keys', () => {
  it('reads every tea key', async () => {
    const d = dirs();
    d.write(
      'project-tea',
      'triage.md',
      roleFile(
        [
          'name: triage',
          'description: Sorts bug reports by severity.',
          'tools: [read_file, grep, git_log]',
          'model: cheap',
          'max_turns: 12',
          'permission_mode: read-only',
          'as_tool: true',
          'output_schema:',
          '  type: object',
          '  properties:',
          '    severity: { enum: [high, low] }',
          '  required: [severity]',
        ].join('\n'),
        '# Triage\n\nRead the report, then decide.',
      ),
    );
    const set = await d.load();
    expect(set.warnings).toEqual([]);
    expect(set.get('triage')).toEqual({
      name: 'triage',
      description: 'Sorts bug reports by severity.',
      prompt: '# Triage\n\nRead the report, then decide.',
      tools: ['read_file', 'grep', 'git_log'],
      model: 'cheap',
      maxTurns: 12,
      permissionMode: 'read-only',
      asTool: true,
      outputSchema: {
        type: 'object',
        properties: { severity: { enum: ['high', 'low'] } },
        required: ['severity'],
      },
      source: join(d.dir('project-tea'), 'triage.md'),
    });
  });

  it('accepts MCP tools, delegation tools, memory and caller-known tools; model inherit means the parent', async () => {
    const d = dirs();
    d.write(
      'project-tea',
      'x.md',
      roleFile(
        'name: x\ndescription: d\ntools: mcp__github__list_issues, task, memory, my_tool\nmodel: inherit',
      ),
    );
    const set = await d.load({ knownTools: ['my_tool'] });
    expect(set.warnings).toEqual([]);
    expect(set.get('x')?.tools).toEqual(['mcp__github__list_issues', 'task', 'memory', 'my_tool']);
    expect(set.get('x')?.model).toBeUndefined();
  });

  it('does not offer a role as a tool when a tool has its name', async () => {
    const d = dirs();
    const path = d.write('project-tea', 'grep.md', roleFile('name: grep\ndescription: d\nas_tool: true'));
    const set = await d.load();
    expect(set.get('grep')?.asTool).toBeUndefined();
    expect(set.warnings).toEqual([
      `${path}: as_tool: the role "grep" is not offered as a tool because a tool of that name exists. Fix: rename the role, e.g. \`name: grep-agent\`.`,
    ]);
  });

  it('warns on an unknown key with a suggestion, and still loads the role', async () => {
    const d = dirs();
    const path = d.write(
      'project-tea',
      'x.md',
      roleFile('name: x\ndescription: d\nmax_turn: 5\nflavour: sweet'),
    );
    const set = await d.load();
    expect(set.get('x')?.maxTurns).toBeUndefined();
    expect(set.warnings).toEqual([
      `${path}: max_turn: unknown key, ignored; did you mean "max_turns"? Fix: rename it to "max_turns", or remove it.`,
      `${path}: flavour: unknown key, ignored. Fix: remove it; known keys: name, description, tools, disallowed_tools, model, max_turns, permission_mode, output_schema, as_tool.`,
    ]);
  });

  it('warns on a role with no instructions, and loads it', async () => {
    const d = dirs();
    const path = d.write('project-tea', 'x.md', '---\nname: x\ndescription: d\n---\n');
    const set = await d.load();
    expect(set.get('x')?.prompt).toBe('');
    expect(set.warnings).toEqual([
      `${path}: (body): no instructions after the frontmatter; the child gets only its task. Fix: write the role instructions below the closing \`---\`.`,
    ]);
  });

  it('reads a name YAML takes for a number as text', async () => {
    const d = dirs();
    d.write('project-tea', 'x.md', roleFile('name: 2024\ndescription: d'));
    const set = await d.load();
    expect(set.warnings).toEqual([]);
    expect(set.get('2024')?.name).toBe('2024');
  });

  it('reads CRLF line ends and a byte order mark', async () => {
    const d = dirs();
    d.write(
      'project-tea',
      'x.md',
      '\uFEFF---\r\nname: x\r\ndescription: d\r\n---\r\nLine one.\r\nLine two.\r\n',
    );
    const set = await d.load();
    expect(set.warnings).toEqual([]);
    expect(set.get('x')?.prompt).toBe('Line one.\nLine two.');
  });
});

describe('the README example role', () => {
  it('loads with no warnings', async () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### Sub-agent roles'));
    const example = /```markdown\n([\s\S]*?)\n```/.exec(section)?.[1];
    expect(example).toBeDefined();
    const d = dirs();
    d.write('project-tea', 'security-reviewer.md', example ?? '');
    const set = await d.load({ profiles: ['cheap'] });
    expect(set.warnings).toEqual([]);
    expect(set.get('security-reviewer')).toMatchObject({
      tools: ['read_file', 'read_many_files', 'grep', 'glob', 'find_files', 'git_diff'],
      model: 'cheap',
      maxTurns: 15,
      permissionMode: 'read-only',
      asTool: true,
      outputSchema: { required: ['findings'] },
    });
  });
});
