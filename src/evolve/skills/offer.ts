/**
 * What a prompt is offered of the skills (the skills hook of the evolve layer): the
 * `## Skills` block with the likely matches first, the `skill` tool to load one, and
 * the offered skills' folders as read-only roots for the file tools. Each invalid or
 * shadowed skill is warned about once per runtime, not once per prompt.
 */
import type { SkillsOffer } from '../../agent/evolve-hooks.js';
import { skillsBlock } from './block.js';
import type { SkillCatalog } from './catalog.js';
import { SkillMatcher } from './match.js';
import { SKILL_TOOL } from './tool-info.js';
import type { Skill, SkillSet } from './types.js';

export class SkillOffers {
  private readonly matchers = new WeakMap<SkillSet, SkillMatcher<Skill>>();
  private readonly warned = new Set<string>();

  constructor(
    private readonly catalog: SkillCatalog,
    private readonly warn: (message: string) => void,
  ) {}

  async offer(input: string, cwd: string): Promise<SkillsOffer> {
    const set = await this.catalog.get(cwd);
    for (const w of set.warnings) {
      if (this.warned.has(w)) continue;
      this.warned.add(w);
      this.warn(w);
    }
    const readRoots = set.skills.map((s) => s.realDir);
    const offered = set.skills.filter((s) => s.modelInvocable);
    if (offered.length === 0) return { block: '', readRoots };
    let matcher = this.matchers.get(set);
    if (!matcher) {
      matcher = new SkillMatcher(offered);
      this.matchers.set(set, matcher);
    }
    const likely = matcher.best(input).map((m) => m.skill.name);
    return {
      block: skillsBlock(offered, likely),
      tools: [SKILL_TOOL],
      readRoots,
    };
  }
}
