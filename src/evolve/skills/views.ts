/** Skills as the faces show them (`tea skills`, the HTTP API, the web UI). */
import type { SkillScope } from './dirs.js';
import type { Skill } from './types.js';

export interface SkillView {
  name: string;
  description: string;
  /** The skill's folder, its real path (what file tools may read) and its SKILL.md. */
  dir: string;
  realDir: string;
  file: string;
  /** The folder of skills it was found in: shown label, scope, precedence (1 first) and whether it is tea's own. */
  source: string;
  scope: SkillScope;
  rank: number;
  own: boolean;
  license?: string;
  compatibility?: string;
  /** `allowed-tools` as written, and tea's names for them (advisory). */
  allowedTools: string[];
  tools: string[];
  metadata: Record<string, string>;
  /** Listed to the model (false: `disable-model-invocation`, loaded only when asked for by name). */
  offered: boolean;
}

export interface ShadowedView extends SkillView {
  /** The SKILL.md of the skill of the same name that wins. */
  shadowedBy: string;
}

/** One folder skills are read from, in precedence order. */
export interface DirView {
  rank: number;
  label: string;
  scope: SkillScope;
  dir: string;
  exists: boolean;
  own: boolean;
}

export interface SkillListing {
  skills: SkillView[];
  shadowed: ShadowedView[];
  /** One line per invalid skill: the file, the key and the fix. */
  warnings: string[];
  dirs: DirView[];
}

export interface SkillDetail extends SkillView {
  /** The instructions (SKILL.md after the frontmatter). */
  body: string;
  /** The folder's files besides SKILL.md, relative to it. */
  files: string[];
  moreFiles: boolean;
}

export function skillView(s: Skill): SkillView {
  return {
    name: s.name,
    description: s.description,
    dir: s.dir,
    realDir: s.realDir,
    file: s.file,
    source: s.source.label,
    scope: s.source.scope,
    rank: s.source.rank,
    own: s.source.own,
    ...(s.license ? { license: s.license } : {}),
    ...(s.compatibility ? { compatibility: s.compatibility } : {}),
    allowedTools: s.allowedTools,
    tools: s.tools,
    metadata: s.metadata,
    offered: s.modelInvocable,
  };
}
