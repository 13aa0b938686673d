/**
 * `/mcp`: the configured MCP servers — status, tools, resources, resource templates
 * and prompts (servers not running yet are started to ask). `/mcp <server> <prompt>
 * [args]` fills in one of a server's prompts and sends it as the input; arguments go
 * as `name=value`, or in the prompt's order.
 */
import type { McpServerOverview } from '../../../runtime/mcp.js';
import type { TuiCommand, TuiHost } from '../host.js';
import { messageOf, notOneOf } from './format.js';

const NONE =
  'No MCP servers are configured. Add one to config.yaml, e.g. `mcp_servers: { fs: { command: npx, args: [-y, "@modelcontextprotocol/server-filesystem", "."] } }`.';

function serverBlock(s: McpServerOverview): string[] {
  const head = `**${s.name}** (${s.transport}) — ${s.status}${s.error ? `: ${s.error}` : ''}`;
  const lines = [head];
  const prefix = `mcp__${s.name}__`;
  const tools = s.tools.map((t) => (t.startsWith(prefix) ? t.slice(prefix.length) : t));
  lines.push(`- tools (${tools.length}): ${tools.length ? tools.join(', ') : 'none'}`);
  if (s.status === 'disabled') return lines;
  if (s.resources.length || s.templates.length) {
    lines.push(`- resources (${s.resources.length + s.templates.length}):`);
    for (const r of s.resources)
      lines.push(`  - \`${r.uri}\` ${r.name}${r.description ? ` — ${r.description}` : ''}`);
    for (const t of s.templates) lines.push(`  - \`${t.uriTemplate}\` ${t.name} (template)`);
  } else if (s.status === 'connected') lines.push('- resources: none');
  if (s.prompts.length) {
    lines.push(`- prompts (${s.prompts.length}):`);
    for (const p of s.prompts) {
      const args = p.arguments.map((a) => (a.required ? a.name : `[${a.name}]`)).join(' ');
      lines.push(
        `  - \`/mcp ${s.name} ${p.name}${args ? ` ${args}` : ''}\`${p.description ? ` — ${p.description}` : ''}`,
      );
    }
  } else if (s.status === 'connected') lines.push('- prompts: none');
  return lines;
}

/** `name=value` words by name; the others fill the prompt's arguments in order. */
export function promptArgs(words: readonly string[], names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  const free: string[] = [];
  for (const w of words) {
    const eq = w.indexOf('=');
    if (eq > 0 && names.includes(w.slice(0, eq))) out[w.slice(0, eq)] = w.slice(eq + 1);
    else free.push(w);
  }
  const open = names.filter((n) => out[n] === undefined);
  free.forEach((w, i) => {
    const name = open[Math.min(i, open.length - 1)];
    if (name !== undefined) out[name] = out[name] === undefined ? w : `${out[name]} ${w}`;
  });
  return out;
}

async function usePrompt(host: TuiHost, server: string, name: string, words: string[]): Promise<void> {
  const mcp = host.runtime.mcp!;
  const { getPrompt, listPrompts } = await import('../../../runtime/mcp.js');
  const prompts = await connecting(host, [server], () => listPrompts(mcp, server));
  const prompt = prompts.find((p) => p.name === name);
  if (!prompt) {
    const known = prompts.map((p) => p.name);
    host.print(notOneOf(`MCP server "${server}" has no prompt "${name}"`, name, known, 'its prompts are'), {
      tone: 'error',
    });
    return;
  }
  const args = promptArgs(
    words,
    prompt.arguments.map((a) => a.name),
  );
  const missing = prompt.arguments.filter((a) => a.required && !args[a.name]).map((a) => a.name);
  if (missing.length) {
    host.print(
      `Prompt "${name}" needs ${missing.join(', ')}: /mcp ${server} ${name} ${missing.map((m) => `${m}=…`).join(' ')}`,
      {
        tone: 'error',
      },
    );
    return;
  }
  const filled = await getPrompt(mcp, server, name, args);
  const text =
    filled.messages.length === 1 && filled.messages[0]!.role === 'user'
      ? filled.messages[0]!.text
      : filled.messages.map((m) => `${m.role}: ${m.text}`).join('\n\n');
  if (!text.trim()) {
    host.print(`Prompt "${name}" of MCP server "${server}" came back empty.`, { tone: 'error' });
    return;
  }
  host.submit(text);
}

/** Runs `work` under a "Connecting to …" line (servers may take seconds to start), taken away after. */
async function connecting<T>(host: TuiHost, names: readonly string[], work: () => Promise<T>): Promise<T> {
  const what = names.length === 1 ? `MCP server "${names[0]}"` : `${names.length} MCP servers`;
  const done = host.progress(`Connecting to ${what}…`);
  try {
    return await work();
  } finally {
    done();
  }
}

export const mcpCommand: TuiCommand = {
  name: 'mcp',
  description: 'List MCP servers with their tools, resources and prompts, or use a prompt as the input',
  argumentHint: '[server prompt args]',
  complete: (prefix, host) =>
    (host.runtime.mcp?.serverNames() ?? [])
      .filter((n) => n.startsWith(prefix.trim()))
      .map((n) => ({ value: n, label: n })),
  async run(arg, host) {
    const mcp = host.runtime.mcp;
    if (!mcp) {
      host.print(NONE, { markdown: true });
      return;
    }
    const [server, prompt, ...words] = arg.trim().split(/\s+/).filter(Boolean);
    try {
      if (server === undefined) {
        const { overview } = await import('../../../runtime/mcp.js');
        const all = await connecting(host, mcp.serverNames(), () => overview(mcp, { connect: true }));
        host.print(
          all
            .flatMap((s) => [...serverBlock(s), ''])
            .join('\n')
            .trimEnd(),
          { markdown: true },
        );
        return;
      }
      const known = mcp.serverNames();
      if (!known.includes(server)) {
        host.print(notOneOf(`No MCP server "${server}"`, server, known, 'the servers are'), {
          tone: 'error',
        });
        return;
      }
      if (prompt === undefined) {
        const { overview } = await import('../../../runtime/mcp.js');
        const all = await connecting(host, known, () => overview(mcp, { connect: true }));
        const one = all.find((s) => s.name === server);
        if (one) host.print(serverBlock(one).join('\n'), { markdown: true });
        return;
      }
      await usePrompt(host, server, prompt, words);
    } catch (e) {
      host.print(`MCP: ${messageOf(e)}`, { tone: 'error' });
    }
  },
};
