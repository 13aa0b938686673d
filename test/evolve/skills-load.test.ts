/**
 * Reading skill folders: the precedence of the six folders, shadowed skills, what is
 * lenient (a renamed folder, a long description, a missing name, an unquoted colon)
 * and what skips a skill with one warning naming the file, the key and the fix; the
 * cache that rescans only when a stamp changed.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SkillCatalog } from '../../src/evolve/skills/catalog.js';
import { skillDirs } from '../../src/evolve/skills/dirs.js';
import { loadSkills } from '../../src/evolve/skills/load.js';
import { splitToolList } from '../../src/evolve/skills/parse.js';

let root: string;
let home: string;
let work: string;
let user: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tea-skills-load-')));
  home = path.join(root, 'home');
  work = path.join(root, 'work');
  user = path.join(root, 'user');
  for (const d of [home, work, user]) mkdirSync(d);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const map = (entry: string) => (entry.startsWith('Bash') ? ['bash'] : entry === 'Read' ? ['read_file'] : []);
const load = () => loadSkills({ home, cwd: work, userHome: user, map });

function put(dir: string, folder: string, text: string): string {
  mkdirSync(path.join(dir, folder), { recursive: true });
  const file = path.join(dir, folder, 'SKILL.md');
  writeFileSync(file, text);
  return file;
}
const skill = (name: string, description: string, extra = '') =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n# ${name}\n`;

describe('where skills are read from', () => {
  it('six folders, project before user, tea’s own first in each scope; the first skill of a name wins', async () => {
    const dirs = skillDirs({ home, cwd: work, userHome: user });
    expect(dirs.map((d) => [d.rank, d.scope, d.dir])).toEqual([
      [1, 'project', path.join(work, '.tea', 'skills')],
      [2, 'project', path.join(work, '.agents', 'skills')],
      [3, 'project', path.join(work, '.claude', 'skills')],
      [4, 'user', path.join(home, 'skills')],
      [5, 'user', path.join(user, '.agents', 'skills')],
      [6, 'user', path.join(user, '.claude', 'skills')],
    ]);
    for (const [i, d] of dirs.entries()) put(d.dir, 'shared', skill('shared', `from ${i + 1}`));
    put(dirs[5]!.dir, 'only-claude', skill('only-claude', 'Claude Code’s'));
    const set = await load();
    expect(set.skills.map((s) => [s.name, s.description, s.source.rank])).toEqual([
      ['only-claude', 'Claude Code’s', 6],
      ['shared', 'from 1', 1],
    ]);
    expect(set.shadowed.map((s) => s.skill.source.rank)).toEqual([2, 3, 4, 5, 6]);
    expect(set.warnings).toHaveLength(5);
    expect(set.warnings[0]).toMatch(
      /\.agents\/skills\/shared\/SKILL\.md: name: the skill "shared" is shadowed by .*\.tea\/skills\/shared\/SKILL\.md, which comes first\. Fix: rename one/,
    );
  });

  it('reads a folder reached twice (the workspace is the home folder) once', async () => {
    put(path.join(user, '.claude', 'skills'), 'pdf', skill('pdf', 'PDFs.'));
    const set = await loadSkills({ home, cwd: user, userHome: user, map });
    expect(set.skills.map((s) => [s.name, s.source.rank])).toEqual([['pdf', 3]]);
    expect(set.warnings).toEqual([]);
  });
});

describe('what a SKILL.md may hold', () => {
  const dir = () => path.join(work, '.claude', 'skills');

  it('loads the optional fields; maps allowed-tools (advisory); keeps disable-model-invocation skills out of the offer', async () => {
    put(
      dir(),
      'full',
      skill(
        'full',
        'All fields.',
        'license: Apache-2.0\ncompatibility: Requires Node 20\nallowed-tools: Bash(git status:*) Read Unknown\nmetadata:\n  version: 1.0\n  tags: [a, b]\n',
      ),
    );
    put(dir(), 'listed', skill('listed', 'A list.', 'allowed-tools:\n  - Read\n  - Bash(node:*)\n'));
    put(dir(), 'manual', skill('manual', 'Only when asked.', 'disable-model-invocation: true\n'));
    const { skills, warnings } = await load();
    expect(warnings).toEqual([]);
    const full = skills.find((s) => s.name === 'full')!;
    expect(full).toMatchObject({
      license: 'Apache-2.0',
      compatibility: 'Requires Node 20',
      allowedTools: ['Bash(git status:*)', 'Read', 'Unknown'],
      tools: ['bash', 'read_file'],
      metadata: { version: '1', tags: '["a","b"]' },
      modelInvocable: true,
    });
    expect(skills.find((s) => s.name === 'listed')!.tools).toEqual(['read_file', 'bash']);
    expect(skills.find((s) => s.name === 'manual')!.modelInvocable).toBe(false);
    expect(splitToolList('Bash(git log --oneline:*), Read  Write')).toEqual([
      'Bash(git log --oneline:*)',
      'Read',
      'Write',
    ]);
  });

  it.each([
    [
      'no frontmatter',
      'nofm',
      '# Just text\n',
      /nofm\/SKILL\.md: \(frontmatter\): expected a YAML block .*skipped\. Fix: start SKILL\.md with `---`/,
    ],
    [
      'no closing line',
      'open',
      '---\nname: open\ndescription: x\n',
      /\(frontmatter\): expected a closing `---` line .*Fix: add a line `---`/,
    ],
    [
      'bad YAML',
      'yaml',
      '---\nname: yaml\ndescription: [unclosed\n---\n',
      /\(frontmatter\): expected valid YAML, got a syntax error at line \d+/,
    ],
    [
      'no description',
      'nodesc',
      '---\nname: nodesc\n---\nbody\n',
      /description: expected a sentence or two .*got nothing; the skill was skipped\. Fix: add e\.g\./,
    ],
    [
      'an empty description',
      'blank',
      '---\nname: blank\ndescription: "  "\n---\n',
      /description: expected .*got " {2}"/,
    ],
    [
      'upper-case name',
      'upper',
      skill('Upper', 'x'),
      /name: expected at most 64 lower-case .*got "Upper" \(upper-case letters\).*Fix: rename it, e\.g\. `name: upper`/,
    ],
    ['a name with spaces', 'spaces', skill('"My Skill"', 'x'), /got "My Skill" \(characters other than/],
    ['two hyphens', 'hyph', skill('a--b', 'x'), /\(two hyphens in a row\)/],
    ['a leading hyphen', 'lead', skill('-pdf', 'x'), /\(a hyphen at the start or end\)/],
    ['a 65-character name', 'long', skill('a'.repeat(65), 'x'), /\(65 characters \(at most 64\)\)/],
    ['a list as name', 'listname', skill('[a, b]', 'x'), /got a list \(not text\)/],
  ])(
    'skips %s with one warning naming the file, the key and the fix',
    async (_what, folder, text, warning) => {
      put(dir(), folder, text);
      const { skills, warnings } = await load();
      expect(skills).toEqual([]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(warning);
      expect(warnings[0]).toContain(`${folder}/SKILL.md`);
    },
  );

  it('is lenient where other agents’ skills need it, with a note: renamed folder, missing name, long description, unquoted colon, odd fields', async () => {
    put(dir(), 'renamed-folder', skill('real-name', 'Renamed on the way.'));
    put(dir(), 'from-folder', '---\ndescription: No name given.\n---\n');
    put(dir(), 'wordy', skill('wordy', 'w'.repeat(1100)));
    put(
      dir(),
      'colon',
      '---\nname: colon\ndescription: Use this skill when: the user asks about PDFs\n---\n',
    );
    put(
      dir(),
      'odd',
      skill(
        'odd',
        'Odd fields.',
        'metadata: just text\nallowed-tools: 42\nlicense: [x]\nunknown-key: fine\n',
      ),
    );
    writeFileSync(path.join(dir(), 'README.md'), 'not a skill');
    mkdirSync(path.join(dir(), 'no-skill-here'));
    put(dir(), '.hidden', skill('hidden', 'Dot folders are skipped.'));
    const { skills, warnings } = await load();
    expect(skills.map((s) => s.name)).toEqual(['colon', 'from-folder', 'odd', 'real-name', 'wordy']);
    expect(skills.find((s) => s.name === 'colon')!.description).toBe(
      'Use this skill when: the user asks about PDFs',
    );
    expect(warnings.join('\n')).toMatch(
      /renamed-folder\/SKILL\.md: name: "real-name" differs from its folder's name "renamed-folder"; it loads as "real-name"\. Fix:/,
    );
    expect(warnings.join('\n')).toMatch(
      /from-folder\/SKILL\.md: name: missing; the skill is named "from-folder" after its folder\. Fix: add `name: from-folder`/,
    );
    expect(warnings.join('\n')).toMatch(
      /wordy\/SKILL\.md: description: 1100 characters \(the spec allows 1024\)/,
    );
    expect(warnings.join('\n')).toMatch(/odd\/SKILL\.md: metadata: expected a mapping/);
    expect(warnings.join('\n')).toMatch(
      /odd\/SKILL\.md: allowed-tools: expected a space-separated string or a list/,
    );
    expect(warnings.join('\n')).toMatch(/odd\/SKILL\.md: license: expected text, got a list; ignored/);
    expect(warnings).toHaveLength(6);
  });

  it('skips a SKILL.md over 256 KiB, and a skills folder that is a file', async () => {
    put(dir(), 'huge', skill('huge', 'Big.') + 'x'.repeat(300 * 1024));
    mkdirSync(path.join(user, '.claude'), { recursive: true });
    writeFileSync(path.join(user, '.claude', 'skills'), 'a file, not a folder');
    const { skills, warnings } = await load();
    expect(skills).toEqual([]);
    expect(warnings.join('\n')).toMatch(
      /huge\/SKILL\.md: \(file\): expected a SKILL\.md under 256 KiB, got 30\d KiB/,
    );
    expect(warnings.join('\n')).toMatch(
      /\.claude\/skills: skills could not be listed \(it is not a folder\)\. Fix:/,
    );
  });
});

describe('the catalog cache', () => {
  it('scans once, then rescans only when a folder or SKILL.md changes', async () => {
    const catalog = new SkillCatalog({ home, userHome: user, map });
    const dir = path.join(home, 'skills');
    const file = put(dir, 'pdf', skill('pdf', 'First.'));
    expect((await catalog.get(work)).skills[0]!.description).toBe('First.');
    await catalog.get(work);
    await catalog.get(work);
    expect(catalog.scans).toBe(1);
    writeFileSync(file, skill('pdf', 'Second, longer.'));
    expect((await catalog.get(work)).skills[0]!.description).toBe('Second, longer.');
    expect(catalog.scans).toBe(2);
    put(path.join(work, '.claude', 'skills'), 'docx', skill('docx', 'Word.'));
    expect((await catalog.get(work)).skills.map((s) => s.name)).toEqual(['docx', 'pdf']);
    // A folder gains its SKILL.md later.
    mkdirSync(path.join(dir, 'later'));
    expect((await catalog.get(work)).skills).toHaveLength(2);
    writeFileSync(path.join(dir, 'later', 'SKILL.md'), skill('later', 'Now.'));
    expect((await catalog.get(work)).skills).toHaveLength(3);
    const scans = catalog.scans;
    await catalog.get(work);
    expect(catalog.scans).toBe(scans);
  });
});
