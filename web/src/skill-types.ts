/** The skills API's shapes (src/server/skills.ts). */

export interface SkillItem {
  name: string;
  description: string;
  /** The folder of skills it was found in, e.g. `.claude/skills`, `~/.tea/skills`. */
  source: string;
  scope: 'project' | 'user';
  /** Precedence: 1 first; a skill of the same name further down is shadowed. */
  rank: number;
  /** In one of tea's own folders (removable without force). */
  own: boolean;
  dir: string;
  license: string | null;
  compatibility: string | null;
  allowed_tools: string[];
  tools: string[];
  metadata: Record<string, string>;
  offered: boolean;
  shadowed_by?: string;
}

export interface SkillDetail extends SkillItem {
  body: string;
  files: string[];
  more_files: boolean;
}

export interface SkillList {
  data: SkillItem[];
  shadowed: SkillItem[];
  warnings: string[];
  dirs: Array<{ rank: number; label: string; scope: string; dir: string; exists: boolean }>;
}

export interface DraftItem {
  name: string;
  description: string | null;
  session: string | null;
  drafted_at: string | null;
  valid: boolean;
  problems: string[];
  conflicts_with: string | null;
}

export interface DraftDetail extends DraftItem {
  body: string;
  files: string[];
}
