/** How a Tea tool call looks to an ACP client: its kind (icon), title and file locations. */
import type { ToolCallLocation } from '@agentclientprotocol/sdk';
import { callFacts } from '../runtime/permissions.js';
import type { CallFacts } from '../tools/types.js';

export { loadForTitles, toolKind, toolTitle } from '../runtime/tool-record.js';

/** Follow-along locations for the editor: the files the call names (with the first line for read_file). */
function locationsOf(facts: CallFacts, args: Record<string, unknown>): ToolCallLocation[] {
  const line = facts.tool === 'read_file' && typeof args.offset === 'number' ? args.offset : undefined;
  return (facts.paths ?? []).map((p) => (line === undefined ? { path: p.path } : { path: p.path, line }));
}

/** The files a call touches, as absolute real paths (`path`, `paths`, `from`/`to`, a patch). */
export function toolPaths(name: string, args: Record<string, unknown>, cwd: string): string[] {
  return (callFacts({ name, approval: 'none' }, args, { cwd }).paths ?? []).map((p) => p.path);
}

/** A call's locations, without its tool's other facts. */
export function toolLocations(name: string, args: Record<string, unknown>, cwd: string): ToolCallLocation[] {
  return locationsOf(callFacts({ name, approval: 'none' }, args, { cwd }), args);
}
