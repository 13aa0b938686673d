/**
 * The `skill` tool as the registry knows it before its first call: its facts and the
 * JSON schema of its arguments (tool.ts holds the zod schema this mirrors; the skill
 * tests check they agree). Registering it loads neither that code nor zod.
 */
import type { ToolSpec } from '../../llm/types.js';
import type { ToolInfo } from '../../tools/types.js';

export const SKILL_TOOL = 'skill';

export const SKILL_TOOL_INFO: ToolInfo = {
  name: SKILL_TOOL,
  description: 'Load a skill listed under ## Skills: its instructions, folder and files.',
  category: 'skills',
  keywords: ['skill', 'skills', 'instructions', 'SKILL.md', '技能'],
  readOnly: true,
  concurrencySafe: true,
  approval: 'none',
};

export const SKILL_TOOL_PARAMETERS: ToolSpec['parameters'] = {
  type: 'object',
  properties: { name: { description: "The skill's name", type: 'string' } },
  required: ['name'],
};
