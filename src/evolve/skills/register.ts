/**
 * Registers the `skill` tool by its facts (tool-info.ts); its code and zod load on the
 * first call. Registered once per registry, when some workspace has skills.
 */
import type { ToolRegistry } from '../../tools/registry.js';
import type { SkillCatalog } from './catalog.js';
import { SKILL_TOOL, SKILL_TOOL_INFO, SKILL_TOOL_PARAMETERS } from './tool-info.js';
import type { ToolNameMapper } from './types.js';

export function registerSkillTool(
  registry: ToolRegistry,
  catalog: () => Promise<SkillCatalog>,
  map: () => Promise<ToolNameMapper>,
): void {
  if (registry.has(SKILL_TOOL)) return;
  registry.registerLazy({
    info: SKILL_TOOL_INFO,
    parameters: () => SKILL_TOOL_PARAMETERS,
    load: async () => {
      const [{ skillTool }, c, m] = await Promise.all([import('./tool.js'), catalog(), map()]);
      return skillTool(c, m);
    },
  });
}
