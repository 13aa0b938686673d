/**
 * `tea skills`: list, show, remove installed skills, and the inbox of drafted ones
 * (list or show, accept, reject). Options only here; skills-cmd.ts loads when one runs.
 */
import type { Command } from 'commander';
import { commandFlags } from './flags.js';
import type { SkillsFlags } from './skills-cmd.js';

export function addSkillsCommand(program: Command, setCode: (code: number) => void): void {
  const skills = program
    .command('skills')
    .description(
      'skills (Agent Skills folders with a SKILL.md): list, show, rm, and the inbox of drafts: inbox, accept, reject',
    );
  const cmd = async () => import('./skills-cmd.js');
  const flags = (c: Command): SkillsFlags => commandFlags<SkillsFlags>(c);
  const where = (c: Command): Command =>
    c
      .option(
        '--cwd <dir>',
        'project whose .tea/skills, .agents/skills and .claude/skills count (default: the current directory)',
      )
      .option('--json', 'machine-readable output');

  where(
    skills
      .command('list', { isDefault: true })
      .description(
        'installed skills, where each comes from (its folder ranks first to last), shadowed ones, problems',
      ),
  ).action(async (_o, c: Command) => setCode(await (await cmd()).listSkills(flags(c))));
  where(skills.command('show <name>').description("a skill's details, files and instructions")).action(
    async (name: string, _o, c: Command) => setCode(await (await cmd()).showSkill(name, flags(c))),
  );
  where(
    skills
      .command('rm <name>')
      .description(
        "delete an installed skill's folder (only in .tea/skills or the Tea home's skills without --force)",
      )
      .option('--force', "also delete a skill in another agent's folder (.agents/skills, .claude/skills)"),
  ).action(async (name: string, _o, c: Command) => setCode(await (await cmd()).removeSkill(name, flags(c))));
  where(
    skills
      .command('inbox [name]')
      .description('drafted skills waiting for you (with a name: show that draft)'),
  ).action(async (name: string | undefined, _o, c: Command) =>
    setCode(await (await cmd()).inbox(name, flags(c))),
  );
  where(
    skills
      .command('accept <name>')
      .description("install a draft: its folder moves to the Tea home's skills")
      .option('--force', 'replace an installed skill of the same name'),
  ).action(async (name: string, _o, c: Command) => setCode(await (await cmd()).accept(name, flags(c))));
  where(skills.command('reject <name>').description('delete a draft from the inbox')).action(
    async (name: string, _o, c: Command) => setCode(await (await cmd()).reject(name, flags(c))),
  );
}
