/** `tea evolve report` and `tea evolve upkeep`: what the agent did and learnt, and one upkeep round. */
import type { EvolveReport } from '../evolve/report.js';
import { type EvolveFlags, withEvolve } from './evolve-cmd.js';
import { EXIT } from './exit.js';
import { jsonText } from './json-out.js';
import { upkeepLines } from './upkeep-lines.js';

const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
const minute = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

/** `4 ms`, `1.3 s`, `-` for none. */
function duration(ms: number | null): string {
  if (ms === null) return '-';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** One line of text (a lesson, a note) cut to `max` characters. */
function line(text: string, max = 100): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

export function reportText(r: EvolveReport): string {
  const out: string[] = [`Tea over the last ${r.days} days (since ${day(r.since)})`, ''];
  const { calls, errors, denied } = r.totals;
  out.push(`Tool usage: ${calls} calls, ${errors} errors, ${denied} denied`);
  if (r.tools.length > 0) {
    const width = Math.max(4, ...r.tools.map((t) => t.name.length));
    out.push(`  ${'tool'.padEnd(width)}  calls  errors  denied  median`);
    for (const t of r.tools)
      out.push(
        `  ${t.name.padEnd(width)}  ${String(t.calls).padStart(5)}  ${String(t.errors).padStart(6)}  ${String(t.denied).padStart(6)}  ${duration(t.medianMs).padStart(6)}`,
      );
  }
  out.push('', `Failure lessons: ${r.lessons.count}`);
  for (const l of r.lessons.recent) out.push(`  ${day(l.createdAt)}  ${line(l.content)}`);
  out.push('', `Skills used: ${r.skills.length}`);
  for (const s of r.skills) out.push(`  ${s.name}: ${s.calls} (last ${day(s.lastUsedAt)})`);
  const p = r.prompts.active;
  out.push(
    '',
    `Prompt: version ${p.version} (${p.source}${p.stored ? '' : ', built in'}, ${p.words} words); ${r.prompts.versions} version${r.prompts.versions === 1 ? '' : 's'}`,
  );
  for (const c of r.prompts.candidates)
    out.push(
      `  candidate ${c.version} (${c.words} words): ${c.note ?? ''} — tea evolve prompts set --promote ${c.version}`,
    );
  const e = r.evaluations;
  out.push(
    '',
    e === null
      ? 'Task evaluations: none recorded here'
      : `Task evaluations: ${e.succeeded ?? 0} succeeded, ${e.failed ?? 0} failed, ${e.abandoned ?? 0} abandoned`,
  );
  if (r.lastUpkeep) {
    out.push('', `Last upkeep: ${minute(r.lastUpkeep.at)}; ${r.lastUpkeep.flagged.length} unused`);
    for (const f of r.lastUpkeep.flagged) out.push(`  ${f.kind} ${f.name} (${f.where}): ${f.reason}`);
  } else {
    out.push('', 'Last upkeep: never (tea evolve upkeep, or hourly while tea serve runs)');
  }
  return `${out.join('\n')}\n`;
}

export function report(flags: EvolveFlags): Promise<number> {
  return withEvolve(flags, async (service) => {
    const r = await service.report(flags.days ? { days: flags.days } : {});
    process.stdout.write(flags.json ? jsonText(r) : reportText(r));
    return EXIT.OK;
  });
}

export function upkeep(flags: EvolveFlags): Promise<number> {
  return withEvolve(flags, async (service) => {
    const r = await service.upkeep(flags.days ? { days: flags.days } : {});
    process.stdout.write(flags.json ? jsonText(r) : `${upkeepLines(r).join('\n')}\n`);
    return r.errors.length > 0 ? EXIT.ERROR : EXIT.OK;
  });
}
