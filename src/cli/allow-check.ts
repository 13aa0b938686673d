/**
 * `--allow` rules checked against the tools that exist, so a typo is a usage error
 * with the closest names instead of a rule that silently never matches.
 */
import { type PermissionRule, parseRule } from '../tools/permissions.js';
import { UsageError } from './exit.js';
import { didYouMean } from './usage.js';

/** Names a rule may use besides the registered tools: the network permission and the agent's memory tool. */
const PSEUDO_TOOLS = ['network', 'memory'];

function globToRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\/]/g, '\\$&')
    .replace(/\*+/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`);
}

/** Whether a rule's tool part names something that exists (a glob must match at least one). */
function known(tool: string, names: readonly string[], mcpServers: readonly string[]): boolean {
  if (/[*?]/.test(tool)) {
    const re = globToRegExp(tool);
    return names.some((n) => re.test(n)) || mcpServers.some((s) => re.test(`mcp__${s}__x`));
  }
  if (names.includes(tool)) return true;
  // An MCP server's tools are known once it is connected: its name is enough here.
  const mcp = /^mcp__(.+?)__.+$/.exec(tool);
  return mcp !== null && mcpServers.includes(mcp[1]!);
}

/**
 * Parses `--allow` values (`tool`, `tool:pattern`, `deny:tool:pattern`): a usage
 * error names a rule that cannot be read, or a tool that does not exist (with the
 * closest real names).
 */
export function allowRules(
  values: readonly string[],
  tools: readonly string[],
  mcpServers: readonly string[] = [],
  flag = '--allow',
): PermissionRule[] {
  const names = [...new Set([...tools, ...PSEUDO_TOOLS])];
  return values.map((text) => {
    let rule: PermissionRule;
    try {
      rule = parseRule(text);
    } catch (e) {
      throw new UsageError(`${flag} ${(e as Error).message}`);
    }
    if (!known(rule.tool, names, mcpServers)) {
      const mcp = /^mcp__(.+?)__/.exec(rule.tool);
      if (mcp) {
        const servers = mcpServers.length ? `configured: ${mcpServers.join(', ')}` : 'none is configured';
        throw new UsageError(
          `${flag} ${text}: no MCP server named "${mcp[1]}"${didYouMean(mcp[1]!, mcpServers)} (${servers})`,
        );
      }
      throw new UsageError(
        `${flag} ${text}: unknown tool "${rule.tool}"${didYouMean(rule.tool, names)} (tea tools list shows every tool)`,
      );
    }
    return rule;
  });
}
