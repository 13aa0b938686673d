/**
 * The tools of one runtime: the shell sandbox and env scrub from the config, the
 * built-in registry, and `--allow` rules checked against the tools that exist (a
 * typo is a usage error naming the closest tools, not a rule that never matches).
 */

import { registerMemoryTool } from '../agent/agent.js';
import { configuredSecrets } from '../config/secrets.js';
import { didYouMean } from '../config/suggest.js';
import type { TeaConfig } from '../config/types.js';
import { detectOwnRepo } from '../evolve/self/detect.js';
import { registerSelfTools } from '../evolve/self/register.js';
import { registerSkillTool } from '../evolve/skills/register.js';
import type { MemoryService } from '../memory/service.js';
import { registerDelegationTools } from '../multi/register.js';
import { BUILTIN_ROLES } from '../multi/roles/builtin.js';
import type { BackgroundJobs } from '../tools/background-jobs.js';
import { createToolRegistry } from '../tools/builtin/index.js';
import { type PermissionRule, parseRule } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import { registerManageTools, registerUserTools } from '../tools/user/register.js';

export { CORE_TOOLS } from '../tools/loading.js';

import { Sandbox, type SandboxMode } from '../tools/sandbox/sandbox.js';
import { RuntimeError } from './errors.js';

export interface ShellSetup {
  sandbox: Sandbox;
  /** Variables Tea was configured with, and its secret values: scrubbed from every program's env. */
  envDenyNames: string[];
  envDenyValues: string[];
}

type Warn = (message: string) => void;

const stderrWarn: Warn = (message) => process.stderr.write(`tea: warning: ${message}\n`);

/** The sandbox (config `sandbox`, overridden by `mode`) and the configured secrets to scrub. */
export function shellSetup(config: TeaConfig, mode?: SandboxMode, warn: Warn = stderrWarn): ShellSetup {
  const secrets = configuredSecrets(config);
  return {
    sandbox: new Sandbox({
      mode: mode ?? config.sandbox.mode,
      network: config.sandbox.network,
      teaHome: config.home,
      warn,
    }),
    envDenyNames: secrets.names,
    envDenyValues: secrets.values,
  };
}

/**
 * The built-in tools as the config sets them up, with the shell under `shell`'s sandbox
 * and background processes reported to `backgroundJobs`
 * (each family's code loads on its first call; see tools/builtin/catalogue.ts).
 */
export function builtinRegistry(
  config: TeaConfig,
  shell: ShellSetup,
  backgroundJobs?: BackgroundJobs,
): Promise<ToolRegistry> {
  return createToolRegistry({
    ...(config.tools.webSearch ? { webSearch: config.tools.webSearch } : {}),
    envAllow: config.tools.envAllow,
    ...shell,
    ...(backgroundJobs ? { backgroundJobs } : {}),
  });
}

/**
 * Every tool the agent offers, to list (never to run): the built-in ones, the
 * `memory` tool, which the agent adds when it has a memory service, the tools that
 * manage user tools, (given Tea's home) the user tools saved there, delegation with the
 * built-in roles, `skill`, and in Tea's own repository (`cwd` inside it) the
 * self-modification tools.
 */
export async function listedTools(opts: { home?: string; cwd?: string } = {}): Promise<ToolRegistry> {
  const { home, cwd = process.cwd() } = opts;
  const registry = await createToolRegistry();
  const listingOnly = new Proxy(
    {},
    {
      get() {
        throw new Error('the memory tool is listed here, not run');
      },
    },
  ) as MemoryService;
  registerMemoryTool(registry, listingOnly, () => []);
  // Without a home (the tools Tea ships): the tools that manage user tools, listed, never run.
  if (home === undefined) registerManageTools(registry, '');
  else registerUserTools(registry, { home });
  // Listed, never run here: no home is needed.
  if (detectOwnRepo(cwd)) registerSelfTools(registry, { home: '' });
  // Delegation with the built-in roles, and `skill` (offered to the model when some skill is installed).
  const notHere = () => Promise.reject(new Error('this tool is listed here, not run'));
  registerDelegationTools(registry, BUILTIN_ROLES, notHere);
  registerSkillTool(registry, notHere, notHere);
  return registry;
}

/** Rule names that are not tools: the network, memory, and MCP servers' sampling requests. */
const PSEUDO_TOOLS = ['network', 'memory', 'mcp_sampling'];

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
      throw new RuntimeError('usage', `${flag} ${(e as Error).message}`);
    }
    if (!known(rule.tool, names, mcpServers)) {
      const mcp = /^mcp__(.+?)__/.exec(rule.tool);
      if (mcp) {
        const servers = mcpServers.length ? `configured: ${mcpServers.join(', ')}` : 'none is configured';
        throw new RuntimeError(
          'usage',
          `${flag} ${text}: no MCP server named "${mcp[1]}"${didYouMean(mcp[1]!, mcpServers)} (${servers})`,
        );
      }
      throw new RuntimeError(
        'usage',
        `${flag} ${text}: unknown tool "${rule.tool}"${didYouMean(rule.tool, names)} (tea tools list shows every tool)`,
      );
    }
    return rule;
  });
}
