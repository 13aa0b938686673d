/**
 * `tea skills` and skills in `tea -p`, the built CLI against the scripted model server.
 * The done-when run: a skill folder copied from another agent (the csv-report fixture,
 * shaped like a public skill with a Node script and a reference) placed in the
 * project's `.claude/skills` is listed, shown in L0, loaded on demand by the `skill`
 * tool, its reference read with read_file and its script run with bash.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTea, useScriptedCli } from '../support/cli.js';
import { reply } from '../support/script.js';
import { skillText } from '../support/skills.js';
import { wireMessages, wireText } from '../support/wire.js';

const FIXTURE = path.resolve(import.meta.dirname, '..', 'fixtures', 'skills', 'csv-report');
const t = useScriptedCli('sk-test', {
  config: 'agent:\n  auto_title: false\nmemory:\n  extract: false\nsandbox:\n  mode: off\n',
});

const tea = (args: string[]) => runTea(args, { env: t.ctx.env, cwd: t.ctx.work });
/** `~/.claude/skills` of the test's HOME (cliEnv's HOME is the parent of TEA_HOME). */
const userClaude = () => path.join(path.dirname(t.ctx.home), '.claude', 'skills');

function projectSkill(): string {
  const dir = path.join(t.ctx.work, '.claude', 'skills', 'csv-report');
  cpSync(FIXTURE, dir, { recursive: true });
  return realpathSync(dir);
}

function writeSkill(dir: string, name: string, description: string, extra = ''): string {
  const folder = path.join(dir, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'SKILL.md'), skillText({ name, description, extra }));
  return folder;
}

describe('a skill copied from another agent into .claude/skills', () => {
  it('is listed, offered in L0, loaded by the skill tool, its reference read and its script run (tea -p --yolo)', async () => {
    const skill = projectSkill();
    writeFileSync(path.join(t.ctx.work, 'sales.csv'), 'region,amount\nnorth,10\nsouth,20\neast,30\n');

    const list = await tea(['skills', 'list']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^csv-report {2}3 \.claude\/skills \(project\) {2}Summarize CSV files/m);
    expect(list.stdout).toContain('Folders, first wins: 1 .tea/skills  2 .agents/skills  3 .claude/skills');
    expect(list.stderr).toBe('');

    t.server.script(
      reply().toolCall('skill', { name: 'csv-report' }),
      reply().toolCall('read_file', { path: '.claude/skills/csv-report/references/REFERENCE.md' }),
      reply().toolCall('bash', { command: `node ${path.join(skill, 'scripts', 'summarize.mjs')} sales.csv` }),
      reply().text('Report written.'),
    );
    const run = await tea(['-p', 'give me a short report with totals of sales.csv', '--yolo']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Report written.');
    const first = t.server.requests[0]!.body;
    const system = wireText(wireMessages(first)[0]!);
    expect(system).toContain('Likely relevant now: csv-report\n- csv-report: Summarize CSV files');
    expect((first.tools as Array<{ function: { name: string } }>).map((x) => x.function.name)).toContain(
      'skill',
    );
    const results = wireMessages(t.server.requests[3]!.body)
      .filter((m) => m.role === 'tool')
      .map(wireText);
    expect(results[0]).toContain(`<skill name="csv-report" folder="${skill}">`);
    expect(results[0]).toContain('references/REFERENCE.md');
    expect(results[1]).toContain('teal-heron-42');
    expect(results[2]).toContain('| amount | 60.00 | 20.00 |');
  });
});

describe('tea skills', () => {
  it('warns once per invalid or shadowed skill, naming the file, the key and the fix', async () => {
    projectSkill();
    writeSkill(userClaude(), 'csv-report', 'An older copy.');
    writeSkill(path.join(t.ctx.home, 'skills'), 'Bad_Name', 'Looks fine.');
    const noDescription = path.join(t.ctx.home, 'skills', 'empty');
    mkdirSync(noDescription);
    writeFileSync(path.join(noDescription, 'SKILL.md'), '---\nname: empty\n---\nBody.\n');
    const r = await tea(['skills', 'list']);
    expect(r.code).toBe(0);
    const warnings = r.stderr.trim().split('\n');
    expect(warnings).toHaveLength(3);
    expect(r.stderr).toMatch(
      /Bad_Name\/SKILL\.md: name: expected .* got "Bad_Name" .*skipped\. Fix: rename it, e\.g\. `name: bad-name`/,
    );
    expect(r.stderr).toMatch(
      /empty\/SKILL\.md: description: expected a sentence .*got nothing; the skill was skipped\. Fix: add/,
    );
    expect(r.stderr).toMatch(
      /~\/\.claude\/skills\/csv-report\/SKILL\.md: name: the skill "csv-report" is shadowed by .*\.claude\/skills\/csv-report\/SKILL\.md, which comes first/,
    );
    expect(r.stdout).toMatch(
      /Shadowed \(a skill of the same name comes first\):\n {2}csv-report {2}6 ~\/\.claude\/skills {2}by /,
    );
    const json = JSON.parse((await tea(['skills', 'list', '--json'])).stdout);
    expect(json.skills.map((s: { name: string }) => s.name)).toEqual(['csv-report']);
    expect(json.skills[0]).toMatchObject({
      source: '.claude/skills',
      scope: 'project',
      rank: 3,
      allowed_tools: ['Bash(node:*)', 'Read'],
      tools: ['bash', 'read_file'],
      metadata: { author: 'example-team', version: '1.2' },
    });
    expect(json.shadowed[0]).toMatchObject({ name: 'csv-report', rank: 6 });
    expect(json.warnings).toHaveLength(3);
  });

  it('show prints the details and the instructions; an unknown or bad name exits 2 saying what to do', async () => {
    projectSkill();
    const r = await tea(['skills', 'show', 'csv-report']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^csv-report {2}from \.claude\/skills \(project, rank 3\)\n/);
    expect(r.stdout).toContain('allowed-tools (advice only): Bash(node:*) Read → bash, read_file');
    expect(r.stdout).toContain('files: LICENSE.txt, references/REFERENCE.md, scripts/summarize.mjs');
    expect(r.stdout).toContain('---\n# CSV report');
    const unknown = await tea(['skills', 'show', 'csv-reprot']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toBe(
      'tea: no skill named "csv-reprot" is installed; did you mean csv-report? (tea skills list shows them)\n',
    );
    const bad = await tea(['skills', 'show', '../etc']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^tea: "\.\.\/etc" is not a skill name/);
  });

  it('rm deletes in tea’s own folders; another agent’s folder needs --force; the shadowed skill takes over', async () => {
    const own = writeSkill(path.join(t.ctx.home, 'skills'), 'notes', 'Take meeting notes.');
    const theirs = writeSkill(userClaude(), 'notes', 'Claude Code’s notes skill.');
    const r = await tea(['skills', 'rm', 'notes']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /Removed the skill "notes": .*skills\/notes\.\nThe skill "notes" from ~\/\.claude\/skills\/notes\/SKILL\.md is used now\./,
    );
    expect(existsSync(own)).toBe(false);
    const refused = await tea(['skills', 'rm', 'notes']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /is in ~\/\.claude\/skills, another agent's skills folder; .*pass --force to delete/,
    );
    expect(existsSync(theirs)).toBe(true);
    expect((await tea(['skills', 'rm', 'notes', '--force'])).code).toBe(0);
    expect(existsSync(theirs)).toBe(false);
  });

  it('inbox lists drafts; accept installs one in the Tea home (refusing a taken name without --force); reject deletes one', async () => {
    const inbox = path.join(t.ctx.home, 'skill-inbox');
    const meta = (session: string) =>
      `metadata:\n  source: tea-draft\n  session: ${session}\n  drafted_at: "2026-12-01T10:00:00Z"\n`;
    writeSkill(
      inbox,
      'deploy-app',
      'Deploy the app to staging: build, migrate, smoke-test.',
      meta('3f2a9c10-aaaa'),
    );
    writeSkill(inbox, 'bad-draft', 'x', 'metadata: [1, 2]\n');
    writeFileSync(path.join(inbox, 'bad-draft', 'SKILL.md'), 'no frontmatter');
    writeSkill(path.join(t.ctx.home, 'skills'), 'weekly', 'Write the weekly update.');
    writeSkill(inbox, 'weekly', 'A better weekly update.', meta('77'));

    const list = await tea(['skills', 'inbox']);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(
      /^bad-draft {2}drafted -\n {2}cannot be accepted: .*SKILL\.md: \(frontmatter\)/m,
    );
    expect(list.stdout).toMatch(
      /^deploy-app {2}drafted 2026-12-01 10:00 {2}session 3f2a9c10\n {2}Deploy the app to staging/m,
    );
    expect(list.stdout).toMatch(
      /^weekly .*\n .*\n {2}a skill of this name is installed: .*skills\/weekly\/SKILL\.md \(accept --force installs it anyway: tea skills accept says how\)/m,
    );
    // Nothing in the inbox is offered.
    expect((await tea(['skills', 'list'])).stdout).not.toContain('deploy-app');

    const show = await tea(['skills', 'inbox', 'deploy-app', '--json']);
    expect(JSON.parse(show.stdout)).toMatchObject({
      name: 'deploy-app',
      valid: true,
      source: 'tea-draft',
      session: '3f2a9c10-aaaa',
      drafted_at: '2026-12-01T10:00:00Z',
    });

    const accepted = await tea(['skills', 'accept', 'deploy-app']);
    expect(accepted.stdout).toMatch(/Accepted the skill "deploy-app": installed in .*skills\/deploy-app\./);
    expect(existsSync(path.join(t.ctx.home, 'skills', 'deploy-app', 'SKILL.md'))).toBe(true);
    expect(existsSync(path.join(inbox, 'deploy-app'))).toBe(false);
    expect((await tea(['skills', 'list'])).stdout).toContain('deploy-app');

    const taken = await tea(['skills', 'accept', 'weekly']);
    expect(taken.code).toBe(2);
    expect(taken.stderr).toMatch(
      /a skill named "weekly" is already installed at .*skills\/weekly; accept with --force/,
    );
    expect((await tea(['skills', 'accept', 'weekly', '--force'])).stdout).toMatch(
      /replaced .*skills\/weekly/,
    );
    expect(readFileSync(path.join(t.ctx.home, 'skills', 'weekly', 'SKILL.md'), 'utf8')).toContain(
      'A better weekly update.',
    );

    const invalid = await tea(['skills', 'accept', 'bad-draft']);
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toMatch(/the draft "bad-draft" cannot be accepted: /);
    expect((await tea(['skills', 'reject', 'bad-draft'])).stdout).toMatch(
      /Rejected the draft "bad-draft": deleted /,
    );
    expect(existsSync(path.join(inbox, 'bad-draft'))).toBe(false);
    const gone = await tea(['skills', 'reject', 'bad-draft']);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toBe('tea: no draft named "bad-draft" in the inbox (tea skills inbox lists them)\n');
  });
});
