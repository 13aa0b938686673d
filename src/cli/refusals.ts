/**
 * Tool calls refused in a run nobody can approve in (`tea -p`), by the permission
 * policy or by the session's work mode: each is reported on stderr with the flag that
 * would have let it run, and the run exits with its own code (EXIT.REFUSED) so
 * scripts notice.
 */
import type { AgentEvent, ToolCallRecord } from '../agent/index.js';
import { unwrapSubagent } from '../runtime/subagents.js';
import { contentText } from '../runtime/tool-record.js';

export interface Refusal {
  tool: string;
  /** The call as the refusal names it: `write_file (notes.txt)`. */
  call: string;
  /**
   * Why: `needs approval`, the policy's reason (`not allowed here (rule deny bash:rm*)`)
   * or the work mode's (`not available in the "review" work mode`).
   */
  reason: string;
  /**
   * What would have let it run, e.g. `--allow 'write_file:notes.txt' or --yolo`, or
   * `--work-mode develop`; absent when no flag would.
   */
  rerunWith?: string;
}

/**
 * The refusal an ended call reports, if it was refused by the policy (not by a person)
 * or by the work mode; `workModes: false` leaves the work mode's out (a face where the
 * user switches modes with `/mode`, not with a flag).
 */
export function refusalOf(e: AgentEvent, opts: { workModes?: boolean } = {}): Refusal | undefined {
  const { event, from } = unwrapSubagent(e);
  if (event.type !== 'tool_update') return undefined;
  const { state } = event.record;
  const refusal =
    state === 'denied'
      ? parse(event.record)
      : state === 'error' && opts.workModes !== false
        ? modeRefusal(event.record)
        : undefined;
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

/**
 * A call to a tool the session has but its work mode does not offer (session-mode.ts
 * `refusal`): the mode that offers it, named in the hint as `/mode <name>`, is the
 * `--work-mode` of a run that lets it through.
 */
function modeRefusal(r: ToolCallRecord): Refusal | undefined {
  const output = contentText(r.content);
  const first = output.split('\n', 1)[0] ?? '';
  const m = /^\[ERROR\] (\S+) is not available in the "(.+)" work mode\.$/.exec(first);
  if (!m || m[1] !== r.name) return undefined;
  const other = /the user can switch with `\/mode (\S+)`/.exec(output)?.[1];
  return {
    tool: r.name,
    call: titleLabel(r),
    reason: `not available in the "${m[2]}" work mode`,
    ...(other ? { rerunWith: `--work-mode ${other}` } : {}),
  };
}

/**
 * The call as refusals name it (`write_file (notes.txt)`), from its title (`write_file:
 * notes.txt`); a tool the mode kept unloaded has a bare title: then its first text argument.
 */
function titleLabel(r: ToolCallRecord): string {
  const head = `${r.name}: `;
  if (r.title.startsWith(head)) return `${r.name} (${r.title.slice(head.length)})`;
  const text = Object.values(r.args).find((v): v is string => typeof v === 'string' && v.trim() !== '');
  if (text === undefined) return r.name;
  const short = text.replace(/\s+/g, ' ').trim();
  return `${r.name} (${short.length > 100 ? `${short.slice(0, 99)}…` : short})`;
}

/** The stderr line for one refusal. */
export function refusalLine(r: Refusal): string {
  const how = r.rerunWith ? `; to let it run, rerun with ${r.rerunWith}` : '';
  if (!r.reason.startsWith('needs approval')) return `tea: refused ${r.call}: ${r.reason}${how}\n`;
  return `tea: refused ${r.call}: ${r.reason}, which tea -p cannot ask for${how}\n`;
}
