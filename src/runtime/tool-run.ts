/**
 * One tool run outside a session (`POST /v1/tools/{name}/run`): through the permission
 * entry point under the runtime's mode, rules and roots — where nobody can answer an
 * ask — then the runner (time limit, truncation, `[ERROR]` hints).
 */

import { authorizeCall, callLabel, letItRun } from '../tools/authorize.js';
import {
  type PermissionDecision,
  type PermissionMode,
  PermissionPolicy,
  type PermissionRule,
} from '../tools/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import { runTool, type ToolRunStatus } from '../tools/run.js';
import type { Tool } from '../tools/types.js';
import { randomUUID } from '../util/random-id.js';

export interface DirectRunOptions {
  tools: ToolRegistry;
  cwd: string;
  mode: PermissionMode;
  rules: readonly PermissionRule[];
  roots: readonly string[];
  maxOutputChars?: number;
  signal: AbortSignal;
}

export type DirectRun =
  | { ran: true; status: ToolRunStatus; output: string }
  | {
      ran: false;
      /** The call as refusals name it: `bash (npm test; id)`. */
      label: string;
      /** The policy's `ask` (nobody could answer) or `deny`, with its reason. */
      verdict: PermissionDecision;
      /** Flags that would let it run (`--allow 'bash:id*' or --yolo`); absent when none would. */
      rerun?: string;
    };

/** Runs `tool` with `args` (`parsed`: the same, validated) unless the permission check refuses it. */
export async function runDirect(
  tool: Tool,
  args: Record<string, unknown>,
  parsed: unknown,
  opts: DirectRunOptions,
): Promise<DirectRun> {
  const policy = new PermissionPolicy(opts.mode, opts.rules);
  const roots = [...opts.roots];
  const permit = await authorizeCall(tool, parsed, { policy, where: { cwd: opts.cwd, roots } });
  if (!permit.allowed) {
    const rerun = letItRun(tool, permit.facts, permit.verdict, policy.mode);
    return {
      ran: false,
      label: callLabel(tool.name, permit.facts.subject),
      verdict: permit.verdict,
      ...(rerun === undefined ? {} : { rerun }),
    };
  }
  const result = await runTool(
    opts.tools,
    { type: 'tool-call', id: `call_api_${randomUUID().slice(0, 12)}`, name: tool.name, args },
    {
      cwd: opts.cwd,
      allowedRoots: roots,
      sessionId: 'api',
      callId: `api_${randomUUID().slice(0, 8)}`,
      signal: opts.signal,
      permissions: policy,
    },
    opts.maxOutputChars === undefined ? {} : { maxOutputChars: opts.maxOutputChars },
  );
  return { ran: true, status: result.status, output: result.output };
}
