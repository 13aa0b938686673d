/**
 * self_modify as the registry knows it before its first call: its facts and the JSON
 * schema of its arguments (tool.ts holds the zod schema this mirrors;
 * test/evolve/self/register.test.ts checks that they agree). Registering it loads
 * neither the pipeline nor zod.
 */
import type { ToolSpec } from '../../llm/types.js';
import type { ToolInfo } from '../../tools/types.js';

export const SELF_MODIFY_INFO: ToolInfo = {
  name: 'self_modify',
  description:
    "Change Tea Agent's own source (only in its own repository). Takes a unified diff (as git diff prints it) and the reason. It lands as one git commit only if typecheck, lint (no new findings) and the tests (related, then the whole suite) pass; any failure restores the tree exactly and returns the failing output. Files with uncommitted changes and the gates' config (package.json, tsconfig, biome.json, vitest config) cannot be patched.",
  category: 'evolve',
  keywords: [
    'self',
    'modify',
    'evolve',
    'improve',
    'own',
    'source',
    'patch',
    'commit',
    '自我',
    '进化',
    '修改',
  ],
  readOnly: false,
  concurrencySafe: false,
  approval: 'exec',
  // The gates' own limits apply (typecheck 10 min, lint 5, related tests 15, suite 45).
  timeoutMs: 90 * 60_000,
};

export const SELF_MODIFY_PARAMETERS: ToolSpec['parameters'] = {
  type: 'object',
  properties: {
    reason: {
      description: 'What the change does and why, in a sentence or two; the commit message',
      type: 'string',
      maxLength: 2000,
    },
    patch: {
      description:
        'A unified diff against the current files, paths relative to the repository root (git diff format: "--- a/p", "+++ b/p", "@@" hunks; /dev/null for new or deleted files)',
      type: 'string',
    },
    check_only: {
      description: 'Run every gate, then restore the tree and commit nothing',
      type: 'boolean',
    },
  },
  required: ['reason', 'patch'],
};
