/**
 * Break-in attempts at the skills boundary: names given to the `skill` tool (paths,
 * NUL, very long, case clashes, a tool's name), skill folders and files that link
 * out, and file tools reaching through a skill's read-only folder (reads outside it,
 * writes into it). Each row says what must happen instead.
 */
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SkillCatalog } from '../../src/evolve/skills/catalog.js';
import { skillTool } from '../../src/evolve/skills/tool.js';
import { createToolRegistry } from '../../src/tools/builtin/index.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { runTool } from '../../src/tools/run.js';
import type { ToolContext } from '../../src/tools/types.js';
import { call, makeCtx } from '../tools/helpers.js';

// Made when the file loads: the tables below name these paths.
const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tea-skills-attack-')));
const home = path.join(root, 'home');
const work = path.join(root, 'work');
const user = path.join(root, 'user');
const outside = path.join(root, 'outside');
/** A user-level skill (outside the workspace): its folder is a read-only root. */
const skillDir = path.join(user, '.claude', 'skills', 'pdf');
let catalog: SkillCatalog;

const skill = (name: string, description = 'A skill.') =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;
function put(dir: string, folder: string, text: string): string {
  mkdirSync(path.join(dir, folder), { recursive: true });
  writeFileSync(path.join(dir, folder, 'SKILL.md'), text);
  return path.join(dir, folder);
}

beforeAll(() => {
  for (const d of [home, work, user, outside]) mkdirSync(d);
  writeFileSync(path.join(outside, 'secret.txt'), 'TOP-SECRET');
  put(outside, 'lure', skill('lure', 'A skill folder outside every skills folder.'));
  writeFileSync(path.join(outside, 'lure', 'data.txt'), 'LURE-DATA');

  const claude = path.join(user, '.claude', 'skills');
  put(claude, 'pdf', skill('pdf', 'Fill PDF forms.'));
  mkdirSync(path.join(skillDir, 'references'));
  writeFileSync(path.join(skillDir, 'references', 'FORMS.md'), 'form steps');
  symlinkSync(path.join(outside, 'secret.txt'), path.join(skillDir, 'references', 'leak.md'));
  linkSync(path.join(outside, 'secret.txt'), path.join(skillDir, 'hard-leak.md'));
  // A sibling folder with no SKILL.md is not a skill, so not readable.
  mkdirSync(path.join(claude, 'not-a-skill'));
  writeFileSync(path.join(claude, 'not-a-skill', 'notes.txt'), 'SIBLING');
  // The name of a tool, and a case clash.
  put(claude, 'bash', skill('bash', 'Shell scripting style guide.'));
  put(path.join(home, 'skills'), 'PDF', skill('pdf', 'A second pdf, folder in capitals.'));
  // Links out of the skills folders.
  symlinkSync(path.join(outside, 'lure'), path.join(work, '.claude-link'));
  mkdirSync(path.join(work, '.claude', 'skills'), { recursive: true });
  symlinkSync(path.join(outside, 'lure'), path.join(work, '.claude', 'skills', 'lure'));
  put(path.join(user, '.agents', 'skills'), 'linked-md', '');
  rmSync(path.join(user, '.agents', 'skills', 'linked-md', 'SKILL.md'));
  symlinkSync(
    path.join(outside, 'lure', 'SKILL.md'),
    path.join(user, '.agents', 'skills', 'linked-md', 'SKILL.md'),
  );
  writeFileSync(path.join(user, 'SKILL.md'), skill('everything', 'A SKILL.md in the home folder itself.'));
  symlinkSync(user, path.join(home, 'skills', 'home-link'));
  catalog = new SkillCatalog({ home, userHome: user, map: () => [] });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('skill folders that reach out', () => {
  it('loads only the real skills, with a warning for each folder that links out', async () => {
    const set = await catalog.get(work);
    expect(set.skills.map((s) => `${s.name}@${s.source.rank}`)).toEqual(['bash@6', 'pdf@4']);
    const warnings = set.warnings.join('\n');
    expect(warnings).toMatch(
      /\.claude\/skills\/lure\/SKILL\.md: \(folder\): expected a skill folder of its own, got .*outside\/lure, outside the project/,
    );
    expect(warnings).toMatch(
      /linked-md\/SKILL\.md: \(file\): expected a SKILL\.md file inside the skill folder, got a link to .*outside\/lure\/SKILL\.md/,
    );
    expect(warnings).toMatch(
      /home-link\/SKILL\.md: \(folder\): expected a skill folder of its own, got a folder that holds /,
    );
    expect(warnings).toMatch(
      /\.claude\/skills\/pdf\/SKILL\.md: name: the skill "pdf" is shadowed by .*skills\/PDF\/SKILL\.md/,
    );
  });
});

describe('names given to the skill tool', () => {
  const registry = new ToolRegistry();
  beforeAll(() => registry.register(skillTool(catalog, () => [])));
  const run = (name: unknown) => runTool(registry, call('skill', { name }), makeCtx(work));

  it.each([
    ['a relative path', '../pdf', /No skill named "\.\.\/pdf"/],
    ['an absolute path', '/etc/passwd', /No skill named "\/etc\/passwd"/],
    ["a skill's own SKILL.md path", path.join(skillDir, 'SKILL.md'), /No skill named/],
    ['a NUL byte', 'pdf\0../../secret', /No skill named "pdf\\u0000/],
    ['5,000 characters', 'x'.repeat(5000), /No skill named "x{80}…"/],
    ['upper case (a case clash)', 'PDF', /No skill named "PDF".*closest to it: pdf/s],
    ['a folder that links outside', 'lure', /No skill named "lure"/],
    ['a folder without SKILL.md', 'not-a-skill', /No skill named "not-a-skill"/],
    ['an empty name', '', /name/],
  ])('%s: an [ERROR] naming the closest skills, nothing read', async (_what, name, message) => {
    const r = await run(name);
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(/^\[ERROR\] /);
    expect(r.output).toMatch(message);
    expect(r.output).not.toContain('TOP-SECRET');
    expect(r.output).not.toContain('LURE-DATA');
  });

  it('a skill named like a tool is a skill: loaded by name, the tool untouched', async () => {
    const r = await run('bash');
    expect(r.output).toContain('<skill name="bash"');
    expect(r.output).toContain('# bash');
    const tools = await createToolRegistry();
    expect(tools.get('bash')?.category).not.toBe('skills');
  });

  it('lists the folder’s files, leaving out links that leave it', async () => {
    const r = await run('pdf');
    expect(r.output).toContain(`folder="${path.join(home, 'skills', 'PDF')}"`);
    const own = await runTool(registry, call('skill', { name: 'pdf' }), makeCtx(work));
    expect(own.output).not.toContain('leak.md');
  });
});

describe('file tools and a skill’s read-only folder', () => {
  let tools: Awaited<ReturnType<typeof createToolRegistry>>;
  beforeAll(async () => {
    tools = await createToolRegistry();
  });
  const ctx = (): ToolContext => makeCtx(work, { readRoots: [skillDir] });
  const run = (name: string, args: Record<string, unknown>) => runTool(tools, call(name, args), ctx());

  it('reads, lists and searches inside it', async () => {
    expect(
      (await run('read_file', { path: path.join(skillDir, 'references', 'FORMS.md') })).output,
    ).toContain('form steps');
    expect((await run('list_dir', { path: skillDir })).output).toContain('references');
    expect((await run('grep', { pattern: 'form steps', path: skillDir })).output).toContain('FORMS.md');
  });

  it.each([
    ['read_file', { path: path.join(skillDir, 'references', 'leak.md') }, /outside the workspace/],
    ['read_file', { path: path.join(skillDir, 'hard-leak.md') }, /links? .*outside the workspace/],
    ['read_file', { path: path.join(skillDir, '..', 'not-a-skill', 'notes.txt') }, /outside the workspace/],
    ['read_file', { path: path.join(outside, 'secret.txt') }, /outside the workspace/],
    ['read_file', { path: path.join(outside, 'lure', 'data.txt') }, /outside the workspace/],
    [
      'write_file',
      { path: path.join(skillDir, 'SKILL.md'), content: 'pwned' },
      /skill's folder, which file tools may read but not change/,
    ],
    [
      'edit_file',
      { path: path.join(skillDir, 'SKILL.md'), old_string: 'Fill', new_string: 'Pwn' },
      /skill's folder/,
    ],
    ['append_file', { path: path.join(skillDir, 'references', 'FORMS.md'), content: 'x' }, /skill's folder/],
    ['delete_path', { path: path.join(skillDir, 'references', 'FORMS.md') }, /skill's folder/],
    [
      'move_path',
      { from: path.join(skillDir, 'SKILL.md'), to: path.join(work, 'stolen.md') },
      /skill's folder/,
    ],
    ['make_dir', { path: path.join(skillDir, 'new') }, /skill's folder/],
  ])('%s %j is refused', async (name, args, message) => {
    const before = readFileSync(path.join(skillDir, 'SKILL.md'), 'utf8');
    const r = await run(name, args);
    expect(r.isError).toBe(true);
    expect(r.output).toMatch(message);
    expect(r.output).not.toContain('TOP-SECRET');
    expect(r.output).not.toContain('SIBLING');
    expect(readFileSync(path.join(skillDir, 'SKILL.md'), 'utf8')).toBe(before);
  });

  it('copying out of it into the workspace is a read there and a write here: allowed', async () => {
    const r = await run('copy_path', {
      from: path.join(skillDir, 'references', 'FORMS.md'),
      to: path.join(work, 'FORMS.md'),
    });
    expect(r.isError).toBe(false);
    expect(readFileSync(path.join(work, 'FORMS.md'), 'utf8')).toBe('form steps');
  });

  it('without the read root (a sub-agent, a session with no skills offered) the folder is outside', async () => {
    const r = await runTool(
      tools,
      call('read_file', { path: path.join(skillDir, 'SKILL.md') }),
      makeCtx(work),
    );
    expect(r.output).toMatch(/outside the workspace/);
  });
});
