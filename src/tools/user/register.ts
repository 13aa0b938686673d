/**
 * User tools in a registry, by their facts: at start-up every tool in
 * `TEA_HOME/tools` is registered from its manifest alone (one directory read, one
 * manifest read per tool; nothing at all read past a missing directory), and its
 * code loads on its first call (load.ts). The tools that manage user tools are
 * registered the same way (info.ts). Nothing here loads zod, esbuild or node:vm.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { ToolRegistry } from '../registry.js';
import type { Tool, ToolInfo } from '../types.js';
import { MANAGE_PARAMETERS, MANAGE_TOOL_INFO, MANAGE_TOOL_NAMES, USER_CATEGORY } from './info.js';
import {
  currentEntry,
  NAME_PATTERN,
  readManifest,
  toolsRoot,
  type UserToolManifest,
  type VersionEntry,
} from './manifest.js';

export interface UserToolsSetup {
  /** Tea's data home; user tools live in its `tools` directory. */
  home: string;
  /** Told about a tool that is skipped (a damaged manifest, a name taken by another tool). */
  warn?: (message: string) => void;
}

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

/** The manifests in the tools directory, warning about each that cannot be used. */
function manifestsIn(home: string, warn: (m: string) => void): UserToolManifest[] {
  const root = toolsRoot(home);
  let dirents: import('node:fs').Dirent[];
  try {
    dirents = readdirSync(root, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT')
      warn(`user tools in ${root} not read: ${(e as Error).message}`);
    return [];
  }
  const out: UserToolManifest[] = [];
  for (const d of dirents) {
    if (!NAME_PATTERN.test(d.name)) continue;
    if (!d.isDirectory()) {
      if (d.isSymbolicLink())
        warn(`user tool ${d.name} skipped: ${path.join(root, d.name)} is a symbolic link`);
      continue;
    }
    try {
      out.push(readManifest(path.join(root, d.name), d.name));
    } catch (e) {
      warn(`user tool ${d.name} skipped: ${(e as Error).message}`);
    }
  }
  return out;
}

/** The management tools, their code (manage.ts) loaded on first call. */
function registerManageTools(registry: ToolRegistry, home: string): void {
  for (const name of MANAGE_TOOL_NAMES) {
    registry.registerLazy({
      info: MANAGE_TOOL_INFO[name],
      parameters: () => MANAGE_PARAMETERS[name],
      load: async () => (await import('./manage.js')).manageTool(name, { registry, home }),
    });
  }
}

/**
 * Registers the management tools and every user tool in `home` on `registry` (after
 * the built-in, MCP and delegation tools, whose names win: a user tool that takes one
 * is skipped with a warning).
 */
export function registerUserTools(registry: ToolRegistry, setup: UserToolsSetup): void {
  const warn = setup.warn ?? (() => {});
  registerManageTools(registry, setup.home);
  for (const manifest of manifestsIn(setup.home, warn)) {
    const clash = nameClash(manifest.name, registry);
    if (clash !== undefined || registry.has(manifest.name)) {
      warn(`user tool ${manifest.name} skipped: ${clash ?? 'the name is taken'}`);
      continue;
    }
    registerUserTool(registry, setup.home, manifest);
  }
}
