/**
 * Tool calls the permission policy refused in a run nobody can approve in (`tea -p`):
 * each is reported on stderr with the flag that would have let it run, and the run
 * exits with its own code (EXIT.REFUSED) so scripts notice.
 */
import type { AgentEvent, ToolCallRecord } from '../agent/index.js';
import { unwrapSubagent } from '../runtime/subagents.js';
import { contentText } from '../runtime/tool-record.js';

export interface Refusal {
  tool: string;
  /** The call as the refusal names it: `write_file (notes.txt)`. */
  call: string;
  /** Why: `needs approval` or the policy's reason (`mode read-only`, `rule deny bash:rm*`). */
  reason: string;
  /** What would have let it run, e.g. `--allow 'write_file:notes.txt' or --yolo`; absent when no flag would. */
  rerunWith?: string;
}

/** The refusal an ended call reports, if it was refused by the policy (not by a person). */
export function refusalOf(e: AgentEvent): Refusal | undefined {
  const { event, from } = unwrapSubagent(e);
  if (event.type !== 'tool_update' || event.record.state !== 'denied') return undefined;
  const refusal = parse(event.record);
  // A sub-agent's call: named with the child that made it.
  return refusal && from ? { ...refusal, call: `${refusal.call} (by ${from.label})` } : refusal;
}

function parse(r: ToolCallRecord): Refusal | undefined {
  const output = contentText(r.content);
  const first = output.split('\n', 1)[0] ?? '';
  const rerun = /the user can rerun with (.+?)\.?$/m.exec(output)?.[1];
  const asked = /^\[DENIED\] (.+?) needs the user's approval(?: \((.+)\))?, and nobody can approve/.exec(
    first,
  );
  if (asked) {
    return {
      tool: r.name,
      call: asked[1]!,
      reason: asked[2] ? `needs approval (${asked[2]})` : 'needs approval',
      ...(rerun ? { rerunWith: rerun } : {}),
    };
  }
  const barred = /^\[DENIED\] (.+?) is not allowed here \((.+)\)\.?$/.exec(first);
  if (barred) {
    // Read-only mode says which mode would let it run.
    return {
      tool: r.name,
      call: barred[1]!,
      reason: `not allowed here (${barred[2]})`,
      ...(rerun ? { rerunWith: rerun } : {}),
    };
  }
  return undefined;
}

/** The stderr line for one refusal. */
export function refusalLine(r: Refusal): string {
  const how = r.rerunWith ? `; to let it run, rerun with ${r.rerunWith}` : '';
  if (r.reason.startsWith('not allowed here')) return `tea: refused ${r.call}: ${r.reason}${how}\n`;
  return `tea: refused ${r.call}: ${r.reason}, which tea -p cannot ask for${how}\n`;
}
