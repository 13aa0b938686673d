/** The shapes of skills as tea reads them (Agent Skills format: a folder with SKILL.md). */
import type { SkillScope } from './dirs.js';

/** One skill folder, parsed. */
export interface Skill {
  /** From the frontmatter (the folder's name when the frontmatter has none). */
  name: string;
  description: string;
  /** The skill's folder (absolute, as found: a symlinked folder keeps its link path). */
  dir: string;
  /** The folder's real path: what file tools may read. */
  realDir: string;
  /** The SKILL.md file. */
  file: string;
  /** Where it was found: the folder of skill folders, its label, scope and precedence. */
  source: { dir: string; label: string; scope: SkillScope; rank: number; own: boolean };
  license?: string;
  compatibility?: string;
  /** `allowed-tools` as written (advisory: tea's permission policy decides what runs). */
  allowedTools: string[];
  /** The same mapped to tea's tool names where one is known (Claude Code names included). */
  tools: string[];
  /** The `metadata` mapping, values as strings. */
  metadata: Record<string, string>;
  /** False when the frontmatter says `disable-model-invocation: true`: listed, never offered to the model. */
  modelInvocable: boolean;
  /** SKILL.md's size and modification time when it was read (the cache compares them). */
  stamp: string;
}

/** A skill another of the same name comes before. */
export interface ShadowedSkill {
  skill: Skill;
  /** The SKILL.md of the skill that wins. */
  by: string;
}

/** Every skill visible from one workspace. */
export interface SkillSet {
  /** The skills offered, by name, in precedence order then by name. */
  skills: Skill[];
  shadowed: ShadowedSkill[];
  /** One line per invalid skill or unreadable folder: the file, the key and the fix. */
  warnings: string[];
}

/** Maps one `allowed-tools` entry to tea tool names (none when unknown). */
export type ToolNameMapper = (entry: string) => string[];
