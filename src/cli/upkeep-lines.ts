/** What one upkeep round did, in lines (for `tea evolve upkeep` and `tea serve`'s log). */
import type { UpkeepResult } from '../evolve/upkeep/run.js';

export function upkeepLines(r: UpkeepResult): string[] {
  const calls = r.tools.reduce((n, t) => n + t.calls, 0);
  const lines = [
    `tool statistics stored: ${r.tools.length} tools, ${calls} calls in the last ${r.windowDays} days`,
    `installed: ${r.installed.tools} user tools, ${r.installed.skills} skills; ${r.flagged.length === 0 ? 'none unused' : `${r.flagged.length} unused:`}`,
  ];
  for (const f of r.flagged) lines.push(`  ${f.kind} ${f.name} (${f.where}, ${f.path}): ${f.reason}`);
  const ref = r.reference;
  if ('error' in ref) lines.push(`tools reference ${ref.path}: not written: ${ref.error}`);
  else lines.push(`tools reference ${ref.path}: ${ref.status} (${ref.tools} tools)`);
  for (const e of r.errors) if (!e.startsWith('the tools reference')) lines.push(`error: ${e}`);
  return lines;
}
