/**
 * The tools that manage user tools (tool_create, tool_update, tool_versions,
 * tool_rollback) as the registry knows them before their first call: facts and the
 * JSON Schemas of their arguments. manage.ts holds the zod schemas these mirror
 * (test/tools/user/info.test.ts checks that they agree); registering them loads
 * neither that code nor zod nor esbuild.
 */
import type { ToolSpec } from '../../llm/types.js';
import type { ToolInfo } from '../types.js';

/** The category of tools the agent wrote (`tea tools list` marks them). */
export const USER_CATEGORY = 'user';

export const MANAGE_TOOL_NAMES = ['tool_create', 'tool_update', 'tool_versions', 'tool_rollback'] as const;
export type ManageToolName = (typeof MANAGE_TOOL_NAMES)[number];

const KEYWORDS = [
  'create tool',
  'new tool',
  'write tool',
  'custom tool',
  'plugin',
  'extend',
  '工具',
  '创建工具',
];

const NAME = {
  type: 'string',
  pattern: '^[a-z][a-z0-9_]{1,47}$',
  description: 'The tool name (lower case, digits, _)',
};
const CODE = {
  type: 'string',
  description: 'The whole TypeScript module (at most 64 KB)',
};

const MODULE_FORMAT =
  "The code is a TypeScript module whose default export is { name, description, approval: 'none'|'write'|'network'|'exec', keywords?: string[], parameters: z.object({...}), run(args, ctx) } with `import * as z from 'zod'`; run returns a string or { output, isError?, images?: [{ data, mediaType }], audio?: [{ data, mediaType }], resources?: [{ uri, mimeType?, text | blob }] } (base64 data; ctx: cwd, signal). Only zod and node: built-ins may be imported. The approval must cover what the code does (spawning processes or eval needs exec; writing files write; fetch/http network; both write and network exec).";

export const MANAGE_PARAMETERS: Record<ManageToolName, ToolSpec['parameters']> = {
  tool_create: { type: 'object', properties: { name: NAME, code: CODE }, required: ['name', 'code'] },
  tool_update: {
    type: 'object',
    properties: {
      name: NAME,
      code: CODE,
      bump: {
        description: 'Which part of the version goes up (default patch: 1.0.0 → 1.0.1)',
        type: 'string',
        enum: ['patch', 'minor', 'major'],
      },
    },
    required: ['name', 'code'],
  },
  tool_versions: { type: 'object', properties: { name: NAME }, required: ['name'] },
  tool_rollback: {
    type: 'object',
    properties: {
      name: NAME,
      version: { type: 'string', description: 'The version to make current, e.g. 1.0.0' },
    },
    required: ['name', 'version'],
  },
};

const FACTS = { category: 'meta', keywords: KEYWORDS } as const;

export const MANAGE_TOOL_INFO: Record<ManageToolName, ToolInfo> = {
  tool_create: {
    name: 'tool_create',
    description: `Write a new tool for yourself; it is compiled, checked, saved as version 1.0.0 and callable in your next step. ${MODULE_FORMAT}`,
    ...FACTS,
    readOnly: false,
    concurrencySafe: false,
    approval: 'exec',
  },
  tool_update: {
    name: 'tool_update',
    description: `Replace the code of a tool you wrote with a new version (the old versions stay; tool_rollback returns to one). ${MODULE_FORMAT}`,
    ...FACTS,
    readOnly: false,
    concurrencySafe: false,
    approval: 'exec',
  },
  tool_versions: {
    name: 'tool_versions',
    description:
      'List the saved versions of a tool you wrote: the current one marked, dates, approval classes and hashes.',
    ...FACTS,
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
  },
  tool_rollback: {
    name: 'tool_rollback',
    description: 'Make an earlier saved version of a tool you wrote the current one; it is reloaded at once.',
    ...FACTS,
    readOnly: false,
    concurrencySafe: false,
    approval: 'write',
  },
};
