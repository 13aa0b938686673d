/**
 * The self-modification tools on a registry, by their facts: only the runtime of a
 * workspace inside Tea's own repository calls this (detect.ts), so elsewhere they are
 * neither listed, offered nor callable. The pipeline's code loads on the first call.
 */
import type { ToolRegistry } from '../../tools/registry.js';
import { SELF_MODIFY_INFO, SELF_MODIFY_PARAMETERS } from './info.js';
import type { SelfToolOptions } from './tool.js';

/** The names of the tools registered here. */
export const SELF_TOOL_NAMES: readonly string[] = [SELF_MODIFY_INFO.name];

export function registerSelfTools(registry: ToolRegistry, opts: SelfToolOptions): void {
  registry.registerLazy({
    info: SELF_MODIFY_INFO,
    parameters: () => SELF_MODIFY_PARAMETERS,
    load: async () => (await import('./tool.js')).selfModifyTool(opts),
  });
}
