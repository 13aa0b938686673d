/**
 * One round of background upkeep (the seed's hourly self-evolution thread): tool
 * usage statistics over a window, stored; user tools and skills nobody used in that
 * window flagged; and the tools reference regenerated from the registry, into
 * `docs/TOOLS.md` in Tea's own repository and `TEA_HOME/TOOLS.md` anywhere else.
 * Each part's failure is its own: the result says what went wrong, the rest is done.
 */
import path from 'node:path';
import type Database from 'better-sqlite3';
import type { EvolveStateRepo } from '../../store/evolve-state.js';
import { type SkillUse, skillsUsed, type ToolUsage, toolUsage } from '../usage.js';
import type { InstalledItem, Inventory } from './inventory.js';
import { ownRepoRoot } from './own-repo.js';
import { renderReference, type ToolDoc, type WriteStatus, writeReference } from './reference.js';

export const UPKEEP_STATE_KEY = 'upkeep';
const DAY_MS = 24 * 60 * 60 * 1000;
/** Statistics and "unused" look back this far by default. */
export const UPKEEP_WINDOW_MS = 30 * DAY_MS;

export interface FlaggedItem extends InstalledItem {
  /** Why it is flagged, in words. */
  reason: string;
}

export type ReferenceTarget = 'repo' | 'home';

export type ReferenceOutcome =
  | { target: ReferenceTarget; path: string; tools: number; status: WriteStatus }
  | { target: ReferenceTarget; path: string; error: string };

export interface UpkeepResult {
  at: number;
  windowDays: number;
  tools: ToolUsage[];
  skills: SkillUse[];
  installed: { tools: number; skills: number };
  flagged: FlaggedItem[];
  reference: ReferenceOutcome;
  /** Parts that failed, in words (the rest was done). */
  errors: string[];
}

export interface UpkeepDeps {
  db: Database.Database;
  state: EvolveStateRepo;
  home: string;
  cwd: string;
  inventory: Inventory;
  /** The tools to document: in Tea's repository (`repo`) the ones it ships, else (`home`) those of this runtime. */
  referenceTools(target: ReferenceTarget): Promise<ToolDoc[]>;
  /** Tea's repository root when `cwd` is in it (default: `ownRepoRoot`). */
  repoRoot?: (cwd: string) => string | undefined;
  now?: () => number;
  windowMs?: number;
}

const days = (ms: number): number => Math.round(ms / DAY_MS);

/**
 * The installed tools and skills not used since `since`: no call of the tool, no
 * `skill` call naming the skill. One added or changed within the window is not
 * flagged yet (it has not had its chance).
 */
export function flagUnused(
  items: readonly InstalledItem[],
  tools: readonly ToolUsage[],
  skills: readonly SkillUse[],
  since: number,
  windowMs: number,
): FlaggedItem[] {
  const usedTools = new Set(tools.map((t) => t.name));
  const usedSkills = new Set(skills.map((s) => s.name));
  return items
    .filter((i) => i.modifiedAt < since)
    .filter((i) => !(i.kind === 'tool' ? usedTools : usedSkills).has(i.name))
    .map((i) => ({
      ...i,
      reason: `not ${i.kind === 'tool' ? 'called' : 'loaded'} in the last ${days(windowMs)} days (unchanged since before then)`,
    }))
    .sort(
      (a, b) =>
        a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name) || a.where.localeCompare(b.where),
    );
}

async function regenerate(deps: UpkeepDeps): Promise<ReferenceOutcome> {
  const root = (deps.repoRoot ?? ownRepoRoot)(deps.cwd);
  const target: ReferenceTarget = root ? 'repo' : 'home';
  const file = root ? path.join(root, 'docs', 'TOOLS.md') : path.join(deps.home, 'TOOLS.md');
  try {
    const tools = await deps.referenceTools(target);
    const status = writeReference(file, renderReference(tools), root ?? deps.home);
    return { target, path: file, tools: tools.length, status };
  } catch (e) {
    return { target, path: file, error: e instanceof Error ? e.message : String(e) };
  }
}

/** Runs one round and stores its result under `UPKEEP_STATE_KEY`. */
export async function runUpkeep(deps: UpkeepDeps): Promise<UpkeepResult> {
  const at = (deps.now ?? Date.now)();
  const windowMs = deps.windowMs ?? UPKEEP_WINDOW_MS;
  const since = at - windowMs;
  const errors: string[] = [];
  const tools = toolUsage(deps.db, { since });
  const skills = skillsUsed(deps.db, { since });
  let items: InstalledItem[] = [];
  try {
    items = await deps.inventory.list();
  } catch (e) {
    errors.push(`listing user tools and skills failed: ${e instanceof Error ? e.message : String(e)}`);
  }
  const reference = await regenerate(deps);
  if ('error' in reference) errors.push(`the tools reference: ${reference.error}`);
  const result: UpkeepResult = {
    at,
    windowDays: days(windowMs),
    tools,
    skills,
    installed: {
      tools: items.filter((i) => i.kind === 'tool').length,
      skills: items.filter((i) => i.kind === 'skill').length,
    },
    flagged: flagUnused(items, tools, skills, since, windowMs),
    reference,
    errors,
  };
  deps.state.set(UPKEEP_STATE_KEY, result);
  return result;
}

/** The last stored round, if any. */
export function lastUpkeep(state: EvolveStateRepo): UpkeepResult | undefined {
  return state.get<UpkeepResult>(UPKEEP_STATE_KEY);
}
