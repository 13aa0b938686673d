/**
 * The runtime's work modes: the built-in six (agent/work-modes.ts) with the user's
 * overrides and own modes from config (config/modes.ts) laid over them, checked
 * against the tools this runtime has, so a typo in a tool name fails at start with
 * the file and key to fix rather than as a mode that silently offers nothing.
 */

import {
  BUILTIN_WORK_MODES,
  DEFAULT_WORK_MODE,
  modeOffers,
  type WorkMode,
  WorkModeSet,
} from '../agent/work-modes.js';
import { ConfigError, displayPath } from '../config/errors.js';
import type { WorkModesConfig } from '../config/modes.js';
import { suggestKey } from '../config/suggest.js';
import type { PermissionMode } from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';

/** One mode as faces list it (`rt.modes`, `GET /v1/modes`). */
export interface WorkModeInfo {
  name: string;
  description: string;
  /** The permission mode a switch to it sets (for `develop`: the configured one). */
  permissionMode: PermissionMode;
  /** How many of the runtime's tools it offers now. */
  toolCount: number;
  builtin: boolean;
}

function fail(file: string | undefined, key: string, problem: string, fix: string): ConfigError {
  const where = file ? `${displayPath(file)}: ` : '';
  const stop = problem.endsWith('?') ? '' : '.';
  return new ConfigError(`${where}${key}: ${problem}${stop} Fix: ${fix}`, {
    ...(file ? { file } : {}),
    key,
    fix,
  });
}

/** Checks each tool selector of a configured mode against the tools and categories there are. */
function checkTools(
  name: string,
  tools: readonly string[],
  file: string | undefined,
  registry: ToolRegistry,
): void {
  const names = registry.names();
  const categories = [...new Set(registry.list().map((t) => t.category))].sort();
  tools.forEach((selector, i) => {
    if (selector === '*' || selector === 'read' || selector.includes('*')) return;
    // An MCP server's tools are known once it connects.
    if (selector.startsWith('mcp__')) return;
    if (names.includes(selector) || categories.includes(selector)) return;
    const near = suggestKey(selector, [...names, ...categories]);
    throw fail(
      file,
      `modes.${name}.tools[${i}]`,
      `unknown tool or category "${selector}"${near ? `; did you mean "${near}"?` : ''}`,
      `use a tool name (\`tea tools\` lists them), a category (${categories.join(', ')}), \`read\` (every read-only tool), \`*\` (every tool) or a glob such as \`git_*\`.`,
    );
  });
}

/** The modes of a runtime: built-ins with the config's overrides, then the config's own, in file order. */
export function resolveWorkModes(config: WorkModesConfig | undefined, registry: ToolRegistry): WorkModeSet {
  const modes: WorkMode[] = [...BUILTIN_WORK_MODES];
  for (const [name, entry] of Object.entries(config?.modes ?? {})) {
    const at = modes.findIndex((m) => m.name === name);
    const base = at >= 0 ? modes[at] : undefined;
    if (!base && entry.prompt === undefined)
      throw fail(
        entry.files.tools ?? entry.files.description ?? entry.files.permission_mode,
        `modes.${name}`,
        'a new mode needs a prompt',
        `add \`prompt:\` (one short paragraph on how the agent works in this mode), or use a built-in name (${BUILTIN_WORK_MODES.map((m) => m.name).join(', ')}) to change one.`,
      );
    if (entry.tools) checkTools(name, entry.tools, entry.files.tools, registry);
    const prompt = entry.prompt ?? base!.prompt;
    const mode: WorkMode = {
      name,
      description: entry.description ?? base?.description ?? prompt.split(/(?<=\.)\s/)[0]!.slice(0, 100),
      prompt,
      tools: entry.tools ?? base?.tools ?? ['*'],
      ...(base?.preload && !entry.tools ? { preload: base.preload } : {}),
      ...((entry.permissionMode ?? base?.permissionMode)
        ? { permissionMode: (entry.permissionMode ?? base?.permissionMode)! }
        : {}),
    };
    if (at >= 0) modes[at] = mode;
    else modes.push(mode);
  }
  const def = config?.default;
  if (def && !modes.some((m) => m.name === def.name))
    throw fail(
      def.file,
      'default_mode',
      `there is no work mode "${def.name}"`,
      `use one of ${modes.map((m) => m.name).join(', ')}, or define it under \`modes:\`.`,
    );
  return new WorkModeSet(modes, def?.name ?? DEFAULT_WORK_MODE);
}

/** The modes as faces list them, in cycling order. */
export function modeInfos(
  set: WorkModeSet,
  registry: ToolRegistry,
  configured: PermissionMode,
): WorkModeInfo[] {
  const tools = registry.list();
  const builtin = new Set(BUILTIN_WORK_MODES.map((m) => m.name));
  return set.modes.map((m) => ({
    name: m.name,
    description: m.description,
    permissionMode: m.permissionMode ?? configured,
    toolCount: tools.filter((t) => modeOffers(m, t)).length,
    builtin: builtin.has(m.name),
  }));
}

/**
 * The mode after `current` in cycling order, wrapping around (the TUI's Shift+Tab):
 * `nextWorkMode(rt.modes, session.workMode)`. An unknown `current` gives the first.
 */
export function nextWorkMode(
  modes: readonly Pick<WorkModeInfo, 'name'>[],
  current: string | undefined,
): string {
  const i = modes.findIndex((m) => m.name === current);
  return modes[(i + 1) % modes.length]!.name;
}
