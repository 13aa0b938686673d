/**
 * How a Tea tool call looks to an ACP client: its kind (icon), title and file
 * locations, all read from the call's described facts (tools/describe.ts).
 */
import type { ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import { callFacts } from '../runtime/permissions.js';
import type { ToolRegistry } from '../tools/registry.js';
import type { CallFacts } from '../tools/types.js';

/** Tools whose kind does not follow from their category. */
const KIND_BY_NAME: Record<string, ToolKind> = {
  delete_path: 'delete',
  move_path: 'move',
  replace_in_files: 'edit',
  history_search: 'search',
  tool_search: 'search',
  web_search: 'search',
  web_fetch: 'fetch',
  http_request: 'fetch',
  download_file: 'fetch',
  todo_write: 'think',
  todo_read: 'think',
  plan: 'think',
  bg_output: 'read',
  git_status: 'read',
  git_diff: 'read',
  git_log: 'read',
  git_show: 'read',
  git_blame: 'read',
};

/** The facts of a call of `name` (a tool the registry does not know: its name alone). */
export function factsOf(
  tools: ToolRegistry,
  name: string,
  args: Record<string, unknown>,
  cwd?: string,
): CallFacts {
  const tool = tools.get(name);
  return callFacts(tool ?? { name, approval: 'none' }, args, cwd === undefined ? {} : { cwd });
}

/** The ACP kind of a call: from its tool's name first, then its category and read-only flag. */
export function kindOf(facts: CallFacts): ToolKind {
  const byName = KIND_BY_NAME[facts.tool];
  if (byName) return byName;
  switch (facts.category) {
    case 'files':
      return facts.readOnly ? 'read' : 'edit';
    case 'search':
      return 'search';
    case 'exec':
      return 'execute';
    case 'git':
      return facts.readOnly ? 'read' : 'execute';
    case 'web':
      return 'fetch';
    default:
      return 'other';
  }
}

/** A one-line title: the tool name and what it acts on (its permission subject). */
export function titleOf(facts: CallFacts): string {
  if (!facts.subject) return facts.tool;
  const short = facts.subject.replace(/\s+/g, ' ').trim();
  return `${facts.tool}: ${short.length > 100 ? `${short.slice(0, 99)}…` : short}`;
}

/** Follow-along locations for the editor: the files the call names (with the first line for read_file). */
export function locationsOf(facts: CallFacts, args: Record<string, unknown>): ToolCallLocation[] {
  const line = facts.tool === 'read_file' && typeof args.offset === 'number' ? args.offset : undefined;
  return (facts.paths ?? []).map((p) => (line === undefined ? { path: p.path } : { path: p.path, line }));
}

/** The ACP kind of a Tea tool. */
export function toolKind(tools: ToolRegistry, name: string): ToolKind {
  return kindOf(factsOf(tools, name, {}));
}

/** A call's title. */
export function toolTitle(tools: ToolRegistry, name: string, args: Record<string, unknown>): string {
  return titleOf(factsOf(tools, name, args));
}

/** The files a call touches, as absolute real paths (`path`, `paths`, `from`/`to`, a patch). */
export function toolPaths(name: string, args: Record<string, unknown>, cwd: string): string[] {
  return (callFacts({ name, approval: 'none' }, args, { cwd }).paths ?? []).map((p) => p.path);
}

/** A call's locations, without its tool's other facts. */
export function toolLocations(name: string, args: Record<string, unknown>, cwd: string): ToolCallLocation[] {
  return locationsOf(callFacts({ name, approval: 'none' }, args, { cwd }), args);
}
