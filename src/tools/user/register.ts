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
import { nameClash, registerUserTool } from './entries.js';
import { MANAGE_PARAMETERS, MANAGE_TOOL_INFO, MANAGE_TOOL_NAMES } from './info.js';
import { NAME_PATTERN, readManifest, toolsRoot, type UserToolManifest } from './manifest.js';

export interface UserToolsSetup {
  /** Tea's data home; user tools live in its `tools` directory. */
  home: string;
  /** Told about a tool that is skipped (a damaged manifest, a name taken by another tool). */
  warn?: (message: string) => void;
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

/** The management tools, their code (manage.ts) loaded on first call; their user tools live in `home`. */
export function registerManageTools(registry: ToolRegistry, home: string): void {
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
