/**
 * The self_modify tool itself (loaded on its first call): checks that the workspace
 * is still Tea's own repository, runs the pipeline, and answers the model with the
 * commit or a `[ERROR] self_modify: …` naming the gate that failed.
 */
import * as z from 'zod';
import { defineTool, type Tool, ToolError } from '../../tools/types.js';
import { detectOwnRepo } from './detect.js';
import { SELF_MODIFY_INFO } from './info.js';
import { namedPaths } from './patch.js';
import { type GateTimeouts, selfModify } from './pipeline.js';
import { failureText, successText } from './result.js';

export interface SelfToolOptions {
  /** Tea's data home (backups and the lock go under `<home>/self-modify/`). */
  home: string;
  /** Gate time limits (tests shorten them). */
  timeouts?: Partial<GateTimeouts>;
}

const parameters = z.object({
  reason: z
    .string()
    .min(1)
    .max(2000)
    .describe('What the change does and why, in a sentence or two; the commit message'),
  patch: z
    .string()
    .min(1)
    .describe(
      'A unified diff against the current files, paths relative to the repository root (git diff format: "--- a/p", "+++ b/p", "@@" hunks; /dev/null for new or deleted files)',
    ),
  check_only: z.boolean().optional().describe('Run every gate, then restore the tree and commit nothing'),
});

export function selfModifyTool(opts: SelfToolOptions): Tool<typeof parameters> {
  return defineTool({
    ...SELF_MODIFY_INFO,
    parameters,
    subject: (args) => namedPaths(args.patch).join(' ') || '(patch)',
    async execute(args, ctx) {
      const own = detectOwnRepo(ctx.cwd);
      if (own === undefined)
        throw new ToolError(
          "self_modify works only inside Tea Agent's own repository, and this workspace is not in it",
          "change the user's files with edit_file or apply_patch instead",
        );
      const result = await selfModify({
        root: own.root,
        home: opts.home,
        reason: args.reason,
        patch: args.patch,
        checkOnly: args.check_only === true,
        signal: ctx.signal,
        ...(opts.timeouts ? { timeouts: opts.timeouts } : {}),
      });
      if (result.ok) return successText(result);
      const { message, hint } = failureText(result);
      throw new ToolError(message, hint);
    },
  });
}
