import { teaHome } from '../config/files.js';
import { CORE_TOOLS, listedTools } from '../runtime/tools.js';
import { USER_CATEGORY } from '../runtime/user-tools.js';
import type { ToolInfo } from '../tools/types.js';
import { EXIT, UsageError } from './exit.js';
import { jsonText } from './json-out.js';
import { didYouMean, oneOf } from './usage.js';

/** Every tool the agent offers, to list: the built-in ones, the `memory` tool and the user tools in Tea's home. */
export const agentTools = () => listedTools({ home: teaHome() });

function firstSentence(text: string, max = 90): string {
  const s = (text.split(/(?<=\.)\s/)[0] ?? text).trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function describe(t: ToolInfo) {
  return {
    name: t.name,
    category: t.category,
    approval: t.approval,
    readOnly: t.readOnly,
    concurrencySafe: t.concurrencySafe,
    core: CORE_TOOLS.includes(t.name),
    user: t.category === USER_CATEGORY,
    keywords: t.keywords ?? [],
    description: t.description,
  };
}

/** `tea tools list`: every tool with its category, approval class and a one-line description. */
export async function listTools(opts: { json?: boolean; category?: string }): Promise<number> {
  const all = (await agentTools()).list();
  if (opts.category !== undefined) {
    const categories = [...new Set(all.map((t) => t.category))].sort();
    oneOf('--category', opts.category, categories, 'category');
  }
  const tools = all.filter((t) => !opts.category || t.category === opts.category);
  if (opts.json) {
    process.stdout.write(jsonText(tools.map(describe)));
    return EXIT.OK;
  }
  const width = Math.max(...tools.map((t) => t.name.length));
  const byCategory = new Map<string, ToolInfo[]>();
  for (const t of tools) byCategory.set(t.category, [...(byCategory.get(t.category) ?? []), t]);
  for (const [category, list] of [...byCategory].sort(([a], [b]) => a.localeCompare(b))) {
    process.stdout.write(`${category}\n`);
    for (const t of list) {
      const core = CORE_TOOLS.includes(t.name) ? '*' : t.category === USER_CATEGORY ? 'u' : ' ';
      process.stdout.write(
        `  ${core} ${t.name.padEnd(width)}  ${t.approval.padEnd(7)}  ${firstSentence(t.description)}\n`,
      );
    }
  }
  const users = tools.some((t) => t.category === USER_CATEGORY)
    ? '; u = a tool the agent wrote (tea tools user list)'
    : '';
  process.stdout.write(
    `\n${tools.length} tools; * = sent to the model on every request (others load via tool_search)${users}\n`,
  );
  return EXIT.OK;
}

/** `tea tools show <name>`: the tool's metadata and the JSON schema the model sees. */
export async function showTool(name: string, opts: { json?: boolean }): Promise<number> {
  const registry = await agentTools();
  const tool = registry.get(name);
  if (!tool) {
    throw new UsageError(
      `unknown tool ${JSON.stringify(name)}${didYouMean(name, registry.names())} (tea tools list shows every tool)`,
    );
  }
  const spec = registry.specs([name])[0]!;
  if (opts.json) {
    process.stdout.write(jsonText({ ...describe(tool), parameters: spec.parameters }));
    return EXIT.OK;
  }
  const d = describe(tool);
  process.stdout.write(
    `${d.name} (${d.category})\n${d.description}\n\n` +
      `approval: ${d.approval}   read-only: ${d.readOnly}   parallel-safe: ${d.concurrencySafe}   core: ${d.core}\n` +
      `keywords: ${d.keywords.join(', ') || '-'}\n\nparameters (JSON schema):\n${JSON.stringify(spec.parameters, null, 2)}\n`,
  );
  return EXIT.OK;
}
