/**
 * `tea skills …`: the installed skills and the inbox, printed. Needs no model and no
 * config: the Tea home and the workspace say where skills are. Problems with skill
 * files go to stderr as warnings (in `--json` they are in the document too).
 */
import { displayPath } from '../config/errors.js';
import {
  type DraftView,
  isSkillsError,
  openSkills,
  type SkillListing,
  type SkillsService,
  type SkillView,
} from '../runtime/skills.js';
import { CliError, EXIT } from './exit.js';
import { jsonText } from './json-out.js';

export interface SkillsFlags {
  cwd?: string;
  json?: boolean;
  force?: boolean;
}

const out = (text: string) => process.stdout.write(text);

function oneLine(text: string, max: number): string {
  const s = text.replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Runs `fn` with the service; a SkillsError becomes one line on stderr and exit code 2. */
async function withSkills(flags: SkillsFlags, fn: (s: SkillsService) => Promise<number>): Promise<number> {
  const service = await openSkills(flags.cwd !== undefined ? { cwd: flags.cwd } : {});
  try {
    return await fn(service);
  } catch (e) {
    if (isSkillsError(e)) throw new CliError(forCli(e.message), EXIT.USAGE);
    throw e;
  }
}

const from = (s: Pick<SkillView, 'rank' | 'source' | 'scope'>) =>
  `${s.rank} ${s.source}${s.scope === 'project' ? ' (project)' : ''}`;

function warn(listing: Pick<SkillListing, 'warnings'>): void {
  for (const w of listing.warnings) process.stderr.write(`tea: warning: ${w}\n`);
}

export function listSkills(flags: SkillsFlags): Promise<number> {
  return withSkills(flags, async (service) => {
    const listing = await service.list();
    warn(listing);
    if (flags.json) {
      out(jsonText(listing));
      return EXIT.OK;
    }
    const order = listing.dirs.map((d) => `${d.rank} ${d.label}`).join('  ');
    if (listing.skills.length === 0) {
      out(
        `No skills installed. Put a skill folder (holding a SKILL.md) in one of, first wins:\n  ${order}\n`,
      );
      return EXIT.OK;
    }
    const nameW = Math.max(4, ...listing.skills.map((s) => s.name.length));
    const fromW = Math.max(4, ...listing.skills.map((s) => from(s).length));
    out(`${'NAME'.padEnd(nameW)}  ${'FROM'.padEnd(fromW)}  DESCRIPTION\n`);
    for (const s of listing.skills) {
      const note = s.offered ? '' : ' (not offered to the model: disable-model-invocation)';
      out(`${s.name.padEnd(nameW)}  ${from(s).padEnd(fromW)}  ${oneLine(s.description, 70)}${note}\n`);
    }
    if (listing.shadowed.length > 0) {
      out('\nShadowed (a skill of the same name comes first):\n');
      for (const s of listing.shadowed)
        out(`  ${s.name.padEnd(nameW)}  ${from(s)}  by ${displayPath(s.shadowedBy)}\n`);
    }
    const n = listing.skills.length;
    out(`\n${n} skill${n === 1 ? '' : 's'}. Folders, first wins: ${order}\n`);
    return EXIT.OK;
  });
}

export function showSkill(name: string, flags: SkillsFlags): Promise<number> {
  return withSkills(flags, async (service) => {
    const s = await service.show(name);
    if (flags.json) {
      out(jsonText(s));
      return EXIT.OK;
    }
    const lines = [
      `${s.name}  from ${s.source} (${s.scope}, rank ${s.rank})`,
      s.description,
      '',
      `folder: ${s.dir}${s.realDir !== s.dir ? ` -> ${s.realDir}` : ''}`,
    ];
    if (s.license) lines.push(`license: ${s.license}`);
    if (s.compatibility) lines.push(`compatibility: ${s.compatibility}`);
    if (s.allowedTools.length > 0)
      lines.push(
        `allowed-tools (advice only): ${s.allowedTools.join(' ')}${s.tools.length ? ` → ${s.tools.join(', ')}` : ''}`,
      );
    const meta = Object.entries(s.metadata);
    if (meta.length > 0) lines.push(`metadata: ${meta.map(([k, v]) => `${k}=${v}`).join(', ')}`);
    if (!s.offered)
      lines.push('offered to the model: no (disable-model-invocation; loaded only when asked for by name)');
    lines.push(
      `files: ${s.files.join(', ') || '(none besides SKILL.md)'}${s.moreFiles ? ', …' : ''}`,
      '',
      '---',
      s.body,
      '',
    );
    out(lines.join('\n'));
    return EXIT.OK;
  });
}

export function removeSkill(name: string, flags: SkillsFlags): Promise<number> {
  return withSkills(flags, async (service) => {
    const r = await service.remove(name, { force: flags.force === true });
    if (flags.json) {
      out(jsonText(r));
      return EXIT.OK;
    }
    const what = r.linkOnly
      ? `the link ${displayPath(r.dir)} (the folder it pointed to was left)`
      : displayPath(r.dir);
    out(`Removed the skill "${r.name}": ${what}.\n`);
    if (r.nowFrom) out(`The skill "${r.name}" from ${displayPath(r.nowFrom)} is used now.\n`);
    return EXIT.OK;
  });
}

function draftLines(d: DraftView): string[] {
  const when = d.draftedAt ? d.draftedAt.replace('T', ' ').slice(0, 16) : '-';
  const lines = [`${d.name}  drafted ${when}${d.session ? `  session ${d.session.slice(0, 8)}` : ''}`];
  if (d.description) lines.push(`  ${oneLine(d.description, 100)}`);
  if (d.conflictsWith)
    lines.push(
      `  a skill of this name is installed: ${displayPath(d.conflictsWith)} (accept --force installs it anyway: tea skills accept says how)`,
    );
  for (const p of d.problems) lines.push(`  ${d.valid ? 'note' : 'cannot be accepted'}: ${p}`);
  return lines;
}

export function inbox(name: string | undefined, flags: SkillsFlags): Promise<number> {
  return withSkills(flags, async (service) => {
    if (name !== undefined) {
      const d = await service.inbox.show(name);
      if (flags.json) {
        out(jsonText(d));
        return EXIT.OK;
      }
      out(
        [
          ...draftLines(d),
          `  folder: ${displayPath(d.dir)}`,
          `  files: ${d.files.join(', ') || '(none besides SKILL.md)'}`,
          '',
          '---',
          d.body,
          '',
        ].join('\n'),
      );
      return EXIT.OK;
    }
    const drafts = await service.inbox.list();
    if (flags.json) {
      out(jsonText({ dir: service.inbox.dir, drafts }));
      return EXIT.OK;
    }
    if (drafts.length === 0) {
      out(`The skill inbox is empty (${displayPath(service.inbox.dir)}).\n`);
      return EXIT.OK;
    }
    for (const d of drafts) out(`${draftLines(d).join('\n')}\n`);
    out(
      `\n${drafts.length} draft${drafts.length === 1 ? '' : 's'}. tea skills inbox <name> shows one; accept <name> installs it, reject <name> deletes it.\n`,
    );
    return EXIT.OK;
  });
}

export function accept(name: string, flags: SkillsFlags): Promise<number> {
  return withSkills(flags, async (service) => {
    const r = await service.inbox.accept(name, { force: flags.force === true });
    if (flags.json) {
      out(jsonText(r));
      return EXIT.OK;
    }
    out(
      `Accepted the skill "${r.name}": ${r.replaced ? 'replaced ' : 'installed in '}${displayPath(r.dir)}.\n`,
    );
    if (r.note) out(`Note: ${r.note}.\n`);
    return EXIT.OK;
  });
}

export function reject(name: string, flags: SkillsFlags): Promise<number> {
  return withSkills(flags, async (service) => {
    const r = await service.inbox.reject(name);
    if (flags.json) {
      out(jsonText(r));
      return EXIT.OK;
    }
    out(`Rejected the draft "${r.name}": deleted ${displayPath(r.dir)}.\n`);
    return EXIT.OK;
  });
}

/** A skills refusal worded for the command line (the service names both faces' ways). */
function forCli(message: string): string {
  return message.replaceAll('--force (force=true)', '--force');
}
