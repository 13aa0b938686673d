/**
 * What an editor shows while asking to approve a call: the diff a file edit would
 * make (an ACP `diff` block, computed from the file as the tool will see it), the
 * whole patch or command line as text, or nothing (the title and raw input say it).
 */
import type { ToolCallContent } from '@agentclientprotocol/sdk';
import type { AgentEvent } from '../agent/events.js';
import { proposedChange } from '../runtime/edits.js';
import type { ClientFs } from '../tools/types.js';
import { CLIENT_FS_TOOLS } from './diffs.js';
import { textContent } from './updates.js';

type ApprovalRequest = Extract<AgentEvent, { type: 'approval_request' }>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export async function approvalContent(
  e: ApprovalRequest,
  cwd: string,
  fs: ClientFs | undefined,
): Promise<ToolCallContent[]> {
  const patch = str(e.args.patch);
  if (e.tool === 'apply_patch' && patch !== undefined) return [textContent(patch)];
  const read =
    fs !== undefined && CLIENT_FS_TOOLS.has(e.tool)
      ? (file: string) => fs.readTextFile(file).catch(() => undefined)
      : undefined;
  const change = await proposedChange(e.tool, e.args, cwd, read).catch(() => undefined);
  if (change !== undefined) {
    if (change.after !== undefined) {
      return [
        {
          type: 'diff',
          path: change.file,
          oldText: change.created ? null : change.before,
          newText: change.after,
        },
      ];
    }
    // An edit that does not match the file as it is: show what it asked for.
    const asked = change.edits.map((edit) => `- ${edit.old}\n+ ${edit.next}`).join('\n\n');
    return [textContent(`${change.shown} (the text to replace was not found as given):\n${asked}`)];
  }
  const code = str(e.args.code);
  if ((e.tool === 'tool_create' || e.tool === 'tool_update') && code !== undefined)
    return [textContent(`Tool ${String(e.args.name)}:\n${code}`)];
  const command = str(e.args.command);
  if (e.approval === 'exec' && command !== undefined) return [textContent(`$ ${command}`)];
  return [];
}
