/**
 * `tea evolve report`: what the agent did and learnt over a window, from the store:
 * tool usage (calls, errors, median duration), failure lessons, skills used, the
 * prompt versions, task-evaluation counts (when a source of them is wired in) and the
 * last upkeep's flags. Data only; each face renders it.
 */
import type Database from 'better-sqlite3';
import type { EvolveStateRepo } from '../store/evolve-state.js';
import { type ExperienceNote, lessonCount, lessons } from './experience.js';
import type { PromptVersions } from './prompts/service.js';
import type { EvaluationCounts, EvaluationSource } from './types.js';
import type { FlaggedItem } from './upkeep/run.js';
import { lastUpkeep } from './upkeep/run.js';
import { type SkillUse, skillsUsed, type ToolUsage, toolUsage } from './usage.js';

export const REPORT_DAYS = 30;
/** The report lists this many of the newest lessons. */
export const REPORT_LESSONS = 5;

export interface EvolveReport {
  days: number;
  since: number;
  tools: ToolUsage[];
  totals: { calls: number; errors: number; denied: number };
  lessons: { count: number; recent: ExperienceNote[] };
  skills: SkillUse[];
  prompts: {
    active: { version: number; source: string; words: number; stored: boolean };
    candidates: Array<{ version: number; note: string | null; createdAt: number | null; words: number }>;
    versions: number;
  };
  /** Null: no evaluations are recorded here (nothing wired in). */
  evaluations: EvaluationCounts | null;
  lastUpkeep: { at: number; flagged: FlaggedItem[] } | null;
}

export interface ReportDeps {
  db: Database.Database;
  state: EvolveStateRepo;
  versions: PromptVersions;
  evaluations?: EvaluationSource;
  now?: number;
  days?: number;
}

export async function buildReport(deps: ReportDeps): Promise<EvolveReport> {
  const now = deps.now ?? Date.now();
  const days = deps.days ?? REPORT_DAYS;
  const since = now - days * 24 * 60 * 60 * 1000;
  const tools = toolUsage(deps.db, { since });
  const versions = deps.versions.list();
  const active = deps.versions.active();
  const upkeep = lastUpkeep(deps.state);
  return {
    days,
    since,
    tools,
    totals: {
      calls: tools.reduce((n, t) => n + t.calls, 0),
      errors: tools.reduce((n, t) => n + t.errors, 0),
      denied: tools.reduce((n, t) => n + t.denied, 0),
    },
    lessons: {
      count: lessonCount(deps.db, { since, now }),
      recent: lessons(deps.db, { limit: REPORT_LESSONS, since, now }),
    },
    skills: skillsUsed(deps.db, { since }),
    prompts: {
      active: { version: active.version, source: active.source, words: active.words, stored: active.stored },
      candidates: versions
        .filter((v) => v.status === 'candidate')
        .map((v) => ({ version: v.version, note: v.note, createdAt: v.createdAt, words: v.words })),
      versions: versions.length,
    },
    evaluations: deps.evaluations ? await deps.evaluations.counts({ since }) : null,
    lastUpkeep: upkeep ? { at: upkeep.at, flagged: upkeep.flagged } : null,
  };
}
