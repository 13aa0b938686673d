/**
 * A user tool as a registry entry: its facts from the manifest entry of its current
 * version, its code loaded on first use (load.ts), and the names it may not take.
 */
import type { ToolRegistry } from '../registry.js';
import type { Tool, ToolInfo } from '../types.js';
import { MANAGE_TOOL_NAMES, USER_CATEGORY } from './info.js';
import { currentEntry, type UserToolManifest, type VersionEntry } from './manifest.js';

/** Names no user tool may take even before their tools are registered (the agent adds `memory` later). */
const RESERVED = new Set([
  'memory',
  'task',
  'delegate_tasks',
  'tool_search',
  'tool_list',
  ...MANAGE_TOOL_NAMES,
]);

/**
 * Why `name` cannot be a user tool's name in `tools` (undefined: it can): it belongs
 * to a built-in, MCP or delegation tool, or to a family of names those use.
 */
export function nameClash(name: string, tools: Pick<ToolRegistry, 'get'>): string | undefined {
  if (name.startsWith('mcp__')) return 'names starting with mcp__ belong to MCP servers';
  if (name.startsWith('agent_')) return 'names starting with agent_ belong to roles offered as tools';
  const existing = tools.get(name);
  if (existing && existing.category !== USER_CATEGORY)
    return `it is the name of the built-in tool ${name} (${existing.category})`;
  if (RESERVED.has(name)) return `it is the name of the built-in tool ${name}`;
  return undefined;
}

/** A user tool's facts, from the manifest entry of its current version. */
export function userToolInfo(name: string, entry: VersionEntry): ToolInfo {
  return {
    name,
    description: entry.description,
    category: USER_CATEGORY,
    keywords: [...entry.keywords],
    readOnly: entry.approval === 'none',
    concurrencySafe: false,
    approval: entry.approval,
  };
}

/**
 * Registers (or re-registers) a user tool at its manifest's current version; its code
 * loads on first use, or is `loaded` already (just checked by tool_create).
 */
export function registerUserTool(
  registry: ToolRegistry,
  home: string,
  manifest: UserToolManifest,
  loaded?: Tool,
): void {
  const entry = currentEntry(manifest);
  const { name } = manifest;
  const clash = nameClash(name, registry);
  if (clash !== undefined) throw new Error(`the user tool ${name} cannot be registered: ${clash}`);
  registry.unregister(name);
  registry.registerLazy({
    info: userToolInfo(name, entry),
    parameters: () => entry.parameters,
    load: loaded
      ? () => Promise.resolve(loaded)
      : async () => (await import('./load.js')).loadUserTool(home, name, entry),
  });
}
