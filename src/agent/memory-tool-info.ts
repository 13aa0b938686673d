/**
 * The `memory` tool as the registry knows it before it is called: its facts and the JSON
 * schema of its arguments. Its code (memory-tool.ts, with the zod schema this mirrors)
 * loads on its first call (agent.ts registers it), so a turn that does not use memory
 * loads neither it nor zod.
 * test/agent/memory-tool-info.test.ts checks both against the tool.
 */
import type { ToolSpec } from '../llm/types.js';
import { CATEGORIES } from '../memory/types.js';
import type { ToolInfo } from '../tools/types.js';

export const MEMORY_TOOL_INFO: ToolInfo = {
  name: 'memory',
  description:
    'Long-term memory across sessions: add a durable fact, preference, instruction or reminder; search, list, update, pin or delete memories; see the versions of a fact (history) and bring an old one back (restore).',
  category: 'memory',
  keywords: ['remember', 'memory', 'memorize', 'forget', 'recall', 'preference', '记住', '记忆', '忘记'],
  readOnly: false,
  concurrencySafe: false,
  approval: 'none',
};

/** The actions of the tool, in the order its schema lists them. */
export const MEMORY_ACTIONS = [
  'add',
  'search',
  'list',
  'update',
  'delete',
  'pin',
  'unpin',
  'history',
  'restore',
] as const;

/** The JSON schema of the arguments, as `buildSpec` makes it from memory-tool.ts's zod schema. */
export const MEMORY_TOOL_PARAMETERS: ToolSpec['parameters'] = {
  type: 'object',
  properties: {
    action: { type: 'string', enum: [...MEMORY_ACTIONS] },
    content: { description: 'add/update: the memory text', type: 'string' },
    category: { description: 'add: kind (default fact)', type: 'string', enum: [...CATEGORIES] },
    importance: { type: 'integer', minimum: 1, maximum: 5 },
    query: { description: 'search: what to look for', type: 'string' },
    id: { description: 'update/delete/pin/history/restore: memory id', type: 'integer' },
    replace: {
      description: 'restore: make the old version current again (else both stay active)',
      type: 'boolean',
    },
    limit: { type: 'integer', minimum: 1, maximum: 50 },
    scope: {
      description: 'add: about the user (default) or this project',
      type: 'string',
      enum: ['user', 'project'],
    },
  },
  required: ['action'],
};
