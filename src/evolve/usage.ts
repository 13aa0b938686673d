/**
 * Tool usage over a window, from the stored tool calls: calls, errors and the median
 * duration per tool, and which skills were loaded (calls of the `skill` tool, by their
 * `name` argument). The report shows it; upkeep stores it and flags what nobody uses.
 */
import type Database from 'better-sqlite3';

/** The tool that loads a skill's body; its `name` argument names the skill. */
export const SKILL_TOOL = 'skill';

export interface ToolUsage {
  name: string;
  calls: number;
  /** Calls that ended in an error. */
  errors: number;
  /** Calls the permission policy or the user refused. */
  denied: number;
  /** Median running time of the calls that ran (null: none did). */
  medianMs: number | null;
  lastUsedAt: number;
}

export interface SkillUse {
  name: string;
  calls: number;
  lastUsedAt: number;
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface CallRow {
  name: string;
  status: string;
  duration_ms: number | null;
  created_at: number;
}

/** Per tool called since `since` (epoch ms): most called first, then by name. */
export function toolUsage(db: Database.Database, opts: { since: number }): ToolUsage[] {
  const rows = db
    .prepare<[number], CallRow>(
      'SELECT name, status, duration_ms, created_at FROM tool_calls WHERE created_at >= ?',
    )
    .all(opts.since);
  const byName = new Map<string, { usage: ToolUsage; durations: number[] }>();
  for (const r of rows) {
    let entry = byName.get(r.name);
    if (!entry) {
      entry = {
        usage: { name: r.name, calls: 0, errors: 0, denied: 0, medianMs: null, lastUsedAt: 0 },
        durations: [],
      };
      byName.set(r.name, entry);
    }
    const u = entry.usage;
    u.calls++;
    if (r.status === 'error') u.errors++;
    if (r.status === 'denied') u.denied++;
    if (r.duration_ms !== null) entry.durations.push(r.duration_ms);
    u.lastUsedAt = Math.max(u.lastUsedAt, r.created_at);
  }
  return [...byName.values()]
    .map(({ usage, durations }) => {
      const m = median(durations);
      return { ...usage, medianMs: m === null ? null : Math.round(m * 10) / 10 };
    })
    .sort((a, b) => b.calls - a.calls || a.name.localeCompare(b.name));
}

/** Skills loaded since `since` (calls that succeeded: a misspelt name loads nothing): most loaded first, then by name. */
export function skillsUsed(db: Database.Database, opts: { since: number }): SkillUse[] {
  return db
    .prepare<[string, number], SkillUse>(
      `SELECT json_extract(args, '$.name') AS name, COUNT(*) AS calls, MAX(created_at) AS lastUsedAt
         FROM tool_calls
        WHERE name = ? AND created_at >= ? AND status = 'completed' AND json_valid(args)
          AND json_type(args, '$.name') = 'text'
        GROUP BY 1 ORDER BY calls DESC, name`,
    )
    .all(SKILL_TOOL, opts.since);
}
