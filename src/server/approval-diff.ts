/**
 * The web UI shows a file write's approval as the diff it would make (the terminal
 * and editors compute theirs themselves): `tea serve` adds it to the request. Only
 * for a path inside the workspace (the tool refuses any other, and a page should
 * not be shown a file the tool could never touch).
 */
import type { AgentEvent } from '../agent/events.js';
import { FILE_WRITERS, proposedDiff, resolvePath } from '../runtime/edits.js';

export interface Workspace {
  cwd: string;
  allowedRoots?: string[];
}

function inside(where: Workspace, p: string): boolean {
  try {
    resolvePath(where, p, { write: true });
    return true;
  } catch {
    return false;
  }
}

/** The event with the diff of the file change it asks about, when it is one that can be shown. */
export async function withProposedDiff(event: AgentEvent, where: Workspace): Promise<AgentEvent> {
  if (event.type !== 'approval_request' || !FILE_WRITERS.has(event.tool)) return event;
  const p = event.args.path;
  if (typeof p !== 'string' || !inside(where, p)) return event;
  const diff = await proposedDiff(event.tool, event.args, where.cwd).catch(() => undefined);
  return diff ? { ...event, diff } : event;
}
