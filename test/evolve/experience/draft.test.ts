import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  draftProblems,
  normaliseSkillName,
  parseDraft,
  renderSkill,
  type SkillDraft,
} from '../../../src/evolve/experience/draft.js';
import { withdrawDraft } from '../../../src/evolve/experience/draft-job.js';
import {
  descriptionOverlap,
  existingSkills,
  knownSkillDirs,
  readFrontmatter,
  writeDraft,
} from '../../../src/evolve/experience/inbox.js';
import { useTempDirs } from '../../store/helpers.js';

const tempDir = useTempDirs();

const draft = (over: Partial<SkillDraft> = {}): SkillDraft => ({
  name: 'add-sqlite-migration',
  description:
    'Adds a numbered SQLite migration with a repository module and tests. Use when a table changes.',
  whenToUse: 'A new table or column is needed.',
  steps: [
    'Append the migration with the next number.',
    'Write the repository module.',
    'Run the store tests.',
  ],
  pitfalls: ['Never edit a migration that has shipped.'],
  ...over,
});
const META = { session: 's_123', draftedAt: '2026-01-02T03:04:05.000Z' };

describe('skill names from the model', () => {
  it.each<[string, string | undefined]>([
    ['add-sqlite-migration', 'add-sqlite-migration'],
    ['Add SQLite Migration', 'add-sqlite-migration'],
    ['add_sqlite__migration', 'add-sqlite-migration'],
    ['--lead-and-trail--', 'lead-and-trail'],
    ['../../etc/passwd', 'etc-passwd'],
    ['/abs/path', 'abs-path'],
    ['a/b\\c', 'a-b-c'],
    ['name\u0000nul', 'name-nul'],
    ['ｆｕｌｌｗｉｄｔｈ', 'fullwidth'],
    ['..', undefined],
    ['', undefined],
    ['数据库迁移', undefined],
    ['x'.repeat(100), 'x'.repeat(64)],
    [`${'word-'.repeat(20)}end`, 'word-'.repeat(12).replace(/-$/, '')],
  ])('%j → %j', (raw, expected) => {
    const name = normaliseSkillName(raw);
    expect(name).toBe(expected);
    if (name !== undefined) {
      expect(name.length).toBeLessThanOrEqual(64);
      expect(name).toMatch(/^[a-z0-9]+(?:-[a-z0-9]+)*$/);
    }
  });

  it('refuses reserved words, tags, empty or long descriptions and one-step procedures', () => {
    expect(draftProblems(draft({ name: 'claude-helper' }))).toEqual([
      'name "claude-helper" holds a reserved word (anthropic, claude)',
    ]);
    expect(draftProblems(draft({ description: ' ' }))).toEqual(['description is empty']);
    expect(draftProblems(draft({ description: 'x'.repeat(1025) }))).toEqual([
      'description is 1025 characters (at most 1024)',
    ]);
    expect(draftProblems(draft({ description: 'Runs <script>alert(1)</script>' }))).toEqual([
      'name or description holds XML/HTML tags',
    ]);
    expect(draftProblems(draft({ steps: ['one'] }))).toEqual(['1 step(s): a skill needs at least 2']);
    expect(draftProblems(draft())).toEqual([]);
  });
});

describe('parseDraft', () => {
  it('reads a fenced JSON answer and normalises the name', () => {
    const text =
      'Here it is:\n```json\n{"name": "Add SQLite Migration", "description": "Adds a migration. Use when a table changes.", "when_to_use": "schema changes", "steps": ["append", "  test  ", 3], "pitfalls": []}\n```';
    expect(parseDraft(text)).toEqual({
      draft: {
        name: 'add-sqlite-migration',
        description: 'Adds a migration. Use when a table changes.',
        whenToUse: 'schema changes',
        steps: ['append', 'test'],
        pitfalls: [],
      },
    });
  });
  it.each([
    ['{"skip": "one-off"}', 'the model skipped it: one-off'],
    ['no json at all', 'the answer held no JSON object'],
    ['{"name": "...", "description": "d", "steps": ["a", "b"]}', 'no usable name'],
    ['{"name": "ok-name", "description": "", "steps": ["a", "b"]}', 'invalid draft: description is empty'],
  ])('%j → skipped', (text, why) => {
    expect(parseDraft(text)).toEqual({ skip: why });
  });
});

describe('SKILL.md', () => {
  it('has the Agent Skills frontmatter (name, description, metadata) and a body', () => {
    const text = renderSkill(draft({ description: 'Adds: a migration # not a comment' }), META);
    const front = /^---\n([\s\S]*?)\n---\n/.exec(text)![1]!;
    expect(parse(front)).toEqual({
      name: 'add-sqlite-migration',
      description: 'Adds: a migration # not a comment',
      metadata: { source: 'tea-draft', session: 's_123', drafted_at: '2026-01-02T03:04:05.000Z' },
    });
    expect(text).toContain('## When to use\n\nA new table or column is needed.');
    expect(text).toContain('## Steps\n\n1. Append the migration with the next number.\n2. Write');
    expect(text).toContain('## Pitfalls\n\n- Never edit a migration that has shipped.');
    expect(readFrontmatter(text)).toEqual({
      name: 'add-sqlite-migration',
      description: 'Adds: a migration # not a comment',
    });
  });
});

describe('writeDraft', () => {
  function home(): string {
    const dir = path.join(tempDir(), 'home');
    mkdirSync(dir);
    return dir;
  }
  const inboxOf = (h: string) => path.join(h, 'skill-inbox');

  it('writes <inbox>/<name>/SKILL.md (0600 in a 0700 inbox) and leaves no temporary folder', async () => {
    const h = home();
    const result = await writeDraft(h, draft(), META, []);
    expect(result).toEqual({
      written: 'add-sqlite-migration',
      path: path.join(inboxOf(h), 'add-sqlite-migration', 'SKILL.md'),
    });
    expect(readdirSync(inboxOf(h))).toEqual(['add-sqlite-migration']);
    expect(statSync(inboxOf(h)).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(inboxOf(h), 'add-sqlite-migration', 'SKILL.md')).mode & 0o777).toBe(0o600);
  });

  it('skips a draft that repeats a known skill, whatever its name', async () => {
    const h = home();
    const known = [
      {
        name: 'migrations',
        description: 'Add a numbered SQLite migration, its repository module and tests.',
      },
    ];
    expect(descriptionOverlap(draft().description, known[0]!.description)).toBeGreaterThanOrEqual(0.5);
    expect(await writeDraft(h, draft(), META, known)).toEqual({
      skipped: 'it repeats the skill "migrations"',
    });
    expect(existsSync(inboxOf(h))).toBe(false);
  });

  it('never replaces an inbox draft, an installed skill, a file or a symlink of the name: it takes the next suffix', async () => {
    const h = home();
    const other = 'Formats dates in reports.';
    mkdirSync(path.join(inboxOf(h), 'add-sqlite-migration'), { recursive: true });
    writeFileSync(path.join(inboxOf(h), 'add-sqlite-migration', 'SKILL.md'), 'theirs');
    mkdirSync(path.join(h, 'skills', 'add-sqlite-migration-2'), { recursive: true });
    writeFileSync(path.join(inboxOf(h), 'add-sqlite-migration-3'), 'a file');
    const outside = path.join(tempDir(), 'outside');
    mkdirSync(outside);
    symlinkSync(outside, path.join(inboxOf(h), 'add-sqlite-migration-4'));
    const result = await writeDraft(h, draft(), META, [{ name: 'add-sqlite-migration', description: other }]);
    expect(result).toMatchObject({ written: 'add-sqlite-migration-5' });
    expect(readFileSync(path.join(inboxOf(h), 'add-sqlite-migration', 'SKILL.md'), 'utf8')).toBe('theirs');
    expect(readdirSync(outside)).toEqual([]);
    const written = readFileSync((result as { path: string }).path, 'utf8');
    expect(readFrontmatter(written)?.name).toBe('add-sqlite-migration-5');
    expect(readdirSync(inboxOf(h)).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('a name some other folder already uses (another agent’s skill) also takes a suffix', async () => {
    const h = home();
    const result = await writeDraft(h, draft(), META, [
      { name: 'add-sqlite-migration', description: 'Unrelated.' },
    ]);
    expect(result).toMatchObject({ written: 'add-sqlite-migration-2' });
  });

  it('gives up after -9', async () => {
    const h = home();
    for (const n of ['', '-2', '-3', '-4', '-5', '-6', '-7', '-8', '-9'])
      mkdirSync(path.join(inboxOf(h), `add-sqlite-migration${n}`), { recursive: true });
    expect(await writeDraft(h, draft(), META, [])).toEqual({
      skipped: 'the names add-sqlite-migration to add-sqlite-migration-9 are all taken',
    });
  });
});

describe('existing skills and withdrawing a draft', () => {
  it('looks in the inbox, then every folder the skills loader reads', () => {
    expect(knownSkillDirs('/h/.tea', '/w', '/h')).toEqual([
      '/h/.tea/skill-inbox',
      '/w/.tea/skills',
      '/w/.agents/skills',
      '/w/.claude/skills',
      '/h/.tea/skills',
      '/h/.agents/skills',
      '/h/.claude/skills',
    ]);
  });

  it('reads names and descriptions from SKILL.md frontmatter, skipping hidden and broken folders', async () => {
    const dir = tempDir();
    const skill = (name: string, text: string) => {
      mkdirSync(path.join(dir, name), { recursive: true });
      writeFileSync(path.join(dir, name, 'SKILL.md'), text);
    };
    skill('pdf', '---\nname: pdf\ndescription: Fill PDF forms.\n---\nbody');
    skill('no-front', 'just text');
    skill('.hidden', '---\nname: hidden\ndescription: x\n---\n');
    skill('bad-yaml', '---\nname: [unclosed\n---\n');
    mkdirSync(path.join(dir, 'empty'));
    const found = await existingSkills([dir, path.join(dir, 'missing')]);
    expect(found.sort((a, b) => a.name.localeCompare(b.name))).toEqual([
      { name: 'bad-yaml', description: '' },
      { name: 'no-front', description: '' },
      { name: 'pdf', description: 'Fill PDF forms.' },
    ]);
  });

  it('takes back only a tea draft of this session', async () => {
    const h = path.join(tempDir(), 'home');
    mkdirSync(h);
    await writeDraft(h, draft(), META, []);
    expect(await withdrawDraft(h, 'add-sqlite-migration', 'another-session')).toBe(false);
    expect(await withdrawDraft(h, '../skills', 's_123')).toBe(false);
    expect(await withdrawDraft(h, 'add-sqlite-migration', 's_123')).toBe(true);
    expect(existsSync(path.join(h, 'skill-inbox', 'add-sqlite-migration'))).toBe(false);
  });
});
