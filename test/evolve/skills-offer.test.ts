/**
 * What a prompt is offered: the `## Skills` block within its budget however many skills
 * there are, the likely ones announced first (keywords and the offline embedder, English
 * and Chinese prompts), the `skill` tool's facts agreeing with its code, and the offer's
 * read roots and warnings.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { estimateText } from '../../src/context/tokens.js';
import { BLOCK_TOKENS, cut, HEADER, skillsBlock } from '../../src/evolve/skills/block.js';
import { SkillCatalog } from '../../src/evolve/skills/catalog.js';
import { SkillMatcher } from '../../src/evolve/skills/match.js';
import { SkillOffers } from '../../src/evolve/skills/offer.js';
import { skillTool } from '../../src/evolve/skills/tool.js';
import { SKILL_TOOL_INFO, SKILL_TOOL_PARAMETERS } from '../../src/evolve/skills/tool-info.js';
import { parametersSchema } from '../../src/tools/schema.js';
import { TWENTY_SKILLS, writeSkills } from '../support/skills.js';

const cost = (text: string) => Math.max(estimateText(text), Math.ceil(text.length / 4));

describe('the ## Skills block', () => {
  it('is empty without skills; a few skills keep their descriptions (cut at a word, at 120 characters)', () => {
    expect(skillsBlock([])).toBe('');
    const few = TWENTY_SKILLS.slice(0, 3);
    const block = skillsBlock(few);
    expect(block.split('\n')[0]).toBe(HEADER);
    expect(block).toContain(`- pdf: ${cut(TWENTY_SKILLS[0]!.description, 120)}`);
    expect(cut(TWENTY_SKILLS[0]!.description, 120)).toMatch(
      /^Read, create and change PDF files.{40,}[a-z]…$/,
    );
    expect(block).not.toContain('Likely relevant');
  });

  it.each([5, 10, 20, 60, 300])(
    'with %i skills stays within the budget and names every skill or counts the rest',
    (n) => {
      const skills = Array.from({ length: n }, (_, i) => {
        const base = TWENTY_SKILLS[i % 20]!;
        return { name: i < 20 ? base.name : `${base.name}-${i}`, description: base.description };
      });
      const block = skillsBlock(skills, [skills[1]!.name]);
      expect(cost(block)).toBeLessThanOrEqual(BLOCK_TOKENS);
      expect(block).toContain(`Likely relevant now: ${skills[1]!.name}\n- ${skills[1]!.name}: `);
      const named = skills.filter((s) => block.includes(s.name)).length;
      if (named < n) expect(block).toMatch(new RegExp(`, and ${n - named} more$`));
      if (n <= 10) expect(block).toContain(`- ${skills[0]!.name}: `);
      else expect(block).toMatch(/\nAlso installed: /);
    },
  );
});

describe('likely skills for a prompt', () => {
  const matcher = new SkillMatcher(TWENTY_SKILLS);
  it.each([
    ['merge these three PDFs into one', 'pdf'],
    ['fill out the form in application.pdf', 'pdf'],
    ['turn sales.csv into a chart', 'xlsx'],
    ['make me a slide deck for the quarterly review', 'pptx'],
    ['write the release notes for v2.3', 'release-notes'],
    ['the site was down for an hour, write the postmortem', 'incident-postmortem'],
    ['test the login page in a browser', 'webapp-testing'],
    ['build an MCP server for our issue tracker', 'mcp-builder'],
    ['draft the weekly update for leadership', 'internal-comms'],
    ['create a new skill for our deploy process', 'skill-creator'],
    ['把这几个 PDF 合并成一个', 'pdf'],
    ['帮我把这个表格做成图表', 'xlsx'],
    ['给季度总结做一个幻灯片', 'pptx'],
    ['写一份故障复盘报告', 'incident-postmortem'],
  ])('%s → %s', (prompt, name) => {
    expect(matcher.best(prompt).map((m) => m.skill.name)[0]).toBe(name);
  });

  it.each([
    'hi',
    'what does this project do?',
    'rename parseArgs to parseArguments everywhere',
    'find all TODO comments in the code',
    'fetch https://example.com/changelog and summarise it',
    '这个项目是做什么的？',
    '',
  ])('%j announces nothing', (prompt) => {
    expect(matcher.best(prompt)).toEqual([]);
  });

  it('matches a Chinese description from a Chinese prompt', () => {
    const zh = new SkillMatcher([
      ...TWENTY_SKILLS,
      {
        name: 'weekly-report',
        description: '根据本周的提交记录和会议纪要写周报，列出完成的工作和下周计划。',
      },
    ]);
    expect(zh.best('帮我写这周的周报').map((m) => m.skill.name)).toEqual(['weekly-report']);
  });
});

describe('the skill tool', () => {
  it('its registered facts and JSON schema agree with its code', () => {
    const tool = skillTool(new SkillCatalog({ home: '/nonexistent', map: () => [] }), () => []);
    const { parameters: _p, execute: _e, subject: _s, ...facts } = tool;
    expect(facts).toEqual(SKILL_TOOL_INFO);
    expect(parametersSchema(tool)).toEqual(SKILL_TOOL_PARAMETERS);
  });
});

describe('the offer', () => {
  it('gives the block, the skill tool and the skills’ folders; warns once per problem across prompts', async () => {
    const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'tea-skills-offer-')));
    try {
      const home = path.join(root, 'home');
      const work = path.join(root, 'work');
      mkdirSync(work, { recursive: true });
      const folders = writeSkills(path.join(home, 'skills'), [
        TWENTY_SKILLS[0]!,
        {
          name: 'manual',
          description: 'Only when asked by name.',
          extra: 'disable-model-invocation: true\n',
        },
      ]);
      mkdirSync(path.join(home, 'skills', 'broken'));
      writeFileSync(path.join(home, 'skills', 'broken', 'SKILL.md'), 'no frontmatter');
      const warnings: string[] = [];
      const offers = new SkillOffers(new SkillCatalog({ home, userHome: root, map: () => [] }), (w) =>
        warnings.push(w),
      );
      const first = await offers.offer('merge two PDFs', work);
      await offers.offer('hello', work);
      expect(first.block).toContain('Likely relevant now: pdf');
      expect(first.block).not.toContain('manual');
      expect(first.tools).toEqual(['skill']);
      expect([...(first.readRoots ?? [])].sort()).toEqual([...folders].sort());
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/broken\/SKILL\.md: \(frontmatter\)/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
