/** `/tools [category]`, `/memory [query]` and `/skills`: what the agent has at hand, read-only. */
import { memoryScopes } from '../../../runtime/runtime.js';
import type { TuiCommand, TuiHost } from '../host.js';
import { messageOf, notOneOf } from './format.js';

function categories(host: TuiHost): string[] {
  return [...new Set(host.runtime.tools.list().map((t) => t.category))].sort();
}

export const toolsCommand: TuiCommand = {
  name: 'tools',
  description: "List the agent's tools by category",
  argumentHint: '[category]',
  whileBusy: true,
  complete: (prefix, host) =>
    categories(host)
      .filter((c) => c.startsWith(prefix.trim()))
      .map((c) => ({ value: c, label: c })),
  run(arg, host) {
    const want = arg.trim().toLowerCase();
    const known = categories(host);
    if (want && !known.includes(want)) {
      host.print(notOneOf(`No tool category "${want}"`, want, known, 'the categories are'), {
        tone: 'error',
      });
      return;
    }
    const lines: string[] = [];
    for (const category of known) {
      if (want && category !== want) continue;
      lines.push(`**${category}**`, '');
      for (const t of host.runtime.tools.list().filter((t) => t.category === category)) {
        const first = t.description.split('\n')[0] ?? '';
        lines.push(`- \`${t.name}\` ${first.length > 100 ? `${first.slice(0, 99)}…` : first}`);
      }
      lines.push('');
    }
    host.print(lines.join('\n').trimEnd(), { markdown: true });
  },
};

export const memoryCommand: TuiCommand = {
  name: 'memory',
  description: 'List long-term memories of this workspace, or search them',
  argumentHint: '[query]',
  whileBusy: true,
  async run(arg, host) {
    const query = arg.trim();
    const scopes = memoryScopes(host.session().row.cwd);
    try {
      const found = query
        ? (await host.runtime.memory.search(query, { limit: 10, scopes })).map((h) => h.memory)
        : await host.runtime.memory.list({ scopes, limit: 20 });
      if (found.length === 0) {
        host.print(query ? `No memory matches "${query}".` : 'No memories yet.', { tone: 'dim' });
        return;
      }
      const head = query ? `Memories matching "${query}":` : 'Memories (newest first):';
      const lines = found.map((m) => `- #${m.id} [${m.category}] ${m.content.replace(/\s+/g, ' ')}`);
      host.print([head, '', ...lines].join('\n'), { markdown: true });
    } catch (e) {
      host.print(`Memory is not available: ${messageOf(e)}`, { tone: 'error' });
    }
  },
};

/** What /skills says when none is installed: where one goes (the README's Skills section). */
export const NO_SKILLS =
  'No skills are installed. To add one, put a folder holding a SKILL.md (the Agent Skills format) in ' +
  '.tea/skills in this workspace, or in ~/.tea/skills for every workspace; .agents/skills and ' +
  '.claude/skills (here and in your home) are read too. `tea skills` lists what is found.';

export const skillsCommand: TuiCommand = {
  name: 'skills',
  description: 'List the installed skills',
  whileBusy: true,
  async run(_arg, host) {
    const listing = await (await host.runtime.skills()).list();
    if (listing.skills.length === 0) {
      const lines = [NO_SKILLS, ...listing.warnings.map((w) => `⚠ ${w}`)];
      host.print(lines.join('\n'), { tone: 'dim' });
      return;
    }
    const lines = listing.skills.map((s) => `- **${s.name}** (${s.source}) ${s.description}`);
    for (const w of listing.warnings) lines.push(`- ⚠ ${w}`);
    host.print(['Skills:', '', ...lines].join('\n'), { markdown: true });
  },
};
