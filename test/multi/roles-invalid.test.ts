/** Bad role files never stop a load: each is skipped with a warning naming the file, the key and the fix. */
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { roleFile, useRoleDirs } from './role-dirs.js';

const dirs = useRoleDirs();

interface Case {
  what: string;
  text: string;
  /** The warning after `<file>: `. */
  warning: string;
}

const SKIPPED = '; the file was skipped. Fix: ';

const CASES: Case[] = [
  {
    what: 'no frontmatter',
    text: '# Reviewer\n\nReview things.\n',
    warning: `(frontmatter): expected a YAML block between \`---\` lines at the top of the file, got none${SKIPPED}start the file with \`---\`, then \`name:\` and \`description:\` lines, then \`---\`, then the instructions.`,
  },
  {
    what: 'an unclosed frontmatter',
    text: '---\nname: x\ndescription: d\n\nBody.\n',
    warning: `(frontmatter): expected a closing \`---\` line after the frontmatter, got none${SKIPPED}add a line \`---\` after the last frontmatter key.`,
  },
  {
    what: 'bad YAML (with the line in the file)',
    text: '---\nname: x\ndescription: d\ntools: [read_file\n---\nBody.\n',
    warning: '(frontmatter): expected valid YAML, got a syntax error at line ',
  },
  {
    what: 'a frontmatter that is a list',
    text: '---\n- name\n- description\n---\nBody.\n',
    warning: `(frontmatter): expected a mapping of keys such as \`name:\` and \`description:\`, got a list${SKIPPED}`,
  },
  {
    what: 'a missing name',
    text: roleFile('description: d'),
    warning: `name: expected a role name, got nothing${SKIPPED}add \`name: bad-file\` to the frontmatter.`,
  },
  {
    what: 'a name with capitals and spaces',
    text: roleFile('name: Code Reviewer\ndescription: d'),
    warning: `name: expected lower-case letters, digits, _ and - (starting with a letter or digit, at most 64), got "Code Reviewer"${SKIPPED}rename it, e.g. \`name: code-reviewer\`.`,
  },
  {
    what: 'a name too long',
    text: roleFile(`name: ${'a'.repeat(65)}\ndescription: d`),
    warning:
      'name: expected lower-case letters, digits, _ and - (starting with a letter or digit, at most 64), got "aaaa',
  },
  {
    what: 'a missing description',
    text: roleFile('name: x'),
    warning: `description: expected a sentence saying when to use this role, got nothing${SKIPPED}add e.g. \`description: Reviews a diff for bugs; use after code changes.\``,
  },
  {
    what: 'an unknown tool (with a suggestion)',
    text: roleFile('name: x\ndescription: d\ntools: Read, Serch, read_fiel'),
    warning: `tools: expected known tool names, got unknown tools "Serch", "read_fiel" (did you mean "read_file"?)${SKIPPED}use tea names (read_file, grep, edit_file, bash, …; \`tea tools\` lists them), Claude Code names (Read, Grep, Glob, Edit, Write, Bash, …) or MCP tools (mcp__server__tool).`,
  },
  {
    what: 'tools as a mapping',
    text: roleFile('name: x\ndescription: d\ntools: { read_file: true }'),
    warning: `tools: expected a list of tool names, or one comma-separated string, got a mapping${SKIPPED}`,
  },
  {
    what: 'an unknown disallowed tool',
    text: roleFile('name: x\ndescription: d\ndisallowedTools: Shell'),
    warning: 'disallowedTools: expected known tool names, got unknown tool "Shell"',
  },
  {
    what: 'max_turns of 0',
    text: roleFile('name: x\ndescription: d\nmax_turns: 0'),
    warning: `max_turns: expected a positive integer (model calls per child turn), got 0${SKIPPED}set it to a whole number such as \`max_turns: 20\`, or remove it for the default.`,
  },
  {
    what: 'max_turns not a whole number',
    text: roleFile('name: x\ndescription: d\nmax_turns: 2.5'),
    warning: 'max_turns: expected a positive integer (model calls per child turn), got 2.5',
  },
  {
    what: 'max_turns as text',
    text: roleFile('name: x\ndescription: d\nmax_turns: many'),
    warning: 'max_turns: expected a positive integer (model calls per child turn), got "many"',
  },
  {
    what: 'a bad permission_mode',
    text: roleFile('name: x\ndescription: d\npermission_mode: acceptEdits'),
    warning: `permission_mode: expected one of read-only, ask, auto-edit, yolo, got "acceptEdits"${SKIPPED}e.g. \`permission_mode: read-only\` for a role that must not change anything.`,
  },
  {
    what: 'a model that is not text',
    text: roleFile('name: x\ndescription: d\nmodel: 4'),
    warning: 'model: expected a tea profile name, a model id, or inherit, got 4',
  },
  {
    what: 'as_tool not a boolean',
    text: roleFile('name: x\ndescription: d\nas_tool: sometimes'),
    warning: 'as_tool: expected true or false, got "sometimes"',
  },
  {
    what: 'output_schema as text',
    text: roleFile('name: x\ndescription: d\noutput_schema: "{type: object}"'),
    warning: `output_schema: expected a JSON Schema (a YAML mapping), got "{type: object}"${SKIPPED}write output_schema as a YAML mapping holding a JSON Schema, e.g.`,
  },
  {
    what: 'output_schema with a misspelt type deep inside',
    text: roleFile(
      'name: x\ndescription: d\noutput_schema:\n  type: object\n  properties:\n    items:\n      type: array\n      items: { type: strng }',
    ),
    warning:
      'output_schema.properties.items.items.type: expected a JSON Schema type (string, number, integer, boolean, object, array, null) or a list of them, got "strng" (did you mean "string"?)',
  },
  {
    what: 'output_schema with required not a list',
    text: roleFile('name: x\ndescription: d\noutput_schema: { type: object, required: summary }'),
    warning: 'output_schema.required: expected a list of property names, got "summary"',
  },
  {
    what: 'output_schema with an empty anyOf',
    text: roleFile('name: x\ndescription: d\noutput_schema: { anyOf: [] }'),
    warning: 'output_schema.anyOf: expected a non-empty list of schemas, got an empty list',
  },
  {
    what: 'output_schema with a bad pattern',
    text: roleFile('name: x\ndescription: d\noutput_schema: { type: string, pattern: "(" }'),
    warning: 'output_schema.pattern: expected a valid regular expression, got "("',
  },
  {
    what: 'output_schema with a dangling $ref',
    text: roleFile('name: x\ndescription: d\noutput_schema: { $ref: "#/$defs/missing" }'),
    warning:
      'output_schema: expected a JSON Schema zod can convert, got an error (Reference not found: #/$defs/missing)',
  },
];

describe('loadRoles: invalid role files', () => {
  it.each(CASES)('skips a file with $what, saying why', async ({ text, warning }) => {
    const d = dirs();
    const path = d.write('project-tea', 'bad-file.md', text);
    d.write('project-tea', 'good.md', roleFile('name: good\ndescription: fine'));
    const set = await d.load();
    expect(set.get('good')).toBeDefined();
    expect(set.list().map((r) => r.source)).not.toContain(path);
    expect(set.list()).toHaveLength(5);
    expect(set.warnings).toHaveLength(1);
    expect(set.warnings[0]).toContain(`${path}: ${warning}`);
  });

  it('names the line of a YAML error as a line of the file', async () => {
    const d = dirs();
    const path = d.write(
      'project-tea',
      'x.md',
      '---\nname: x\ndescription: d\ntools: [read_file\n---\nBody.\n',
    );
    const set = await d.load();
    // Line 4 of the file is `tools: [read_file` (line 3 of the YAML block).
    expect(set.warnings[0]).toContain(
      `${path}: (frontmatter): expected valid YAML, got a syntax error at line 4, column 18 (`,
    );
  });

  it('a skipped file does not shadow a lower one of the same name', async () => {
    const d = dirs();
    d.write('project-tea', 'helper.md', roleFile('name: helper\ndescription: d\nmax_turns: -1'));
    d.write('home-tea', 'helper.md', roleFile('name: helper\ndescription: the good one'));
    const set = await d.load();
    expect(set.get('helper')?.description).toBe('the good one');
    expect(set.warnings).toHaveLength(1);
  });

  it('skips a role file it cannot read (a dangling link), saying so', async () => {
    const d = dirs();
    d.write('project-tea', 'good.md', roleFile('name: good\ndescription: fine'));
    const path = join(d.dir('project-tea'), 'gone.md');
    symlinkSync(join(d.dir('project-tea'), 'nowhere.md'), path);
    const set = await d.load();
    expect(set.get('good')).toBeDefined();
    expect(set.warnings).toEqual([
      expect.stringMatching(
        new RegExp(
          `^${path}: \\(file\\): expected a readable file, got an error \\(ENOENT.*or where its link points\\)\\.$`,
        ),
      ),
    ]);
  });
});
