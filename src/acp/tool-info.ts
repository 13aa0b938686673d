/** How a Tea tool call looks to an ACP client: its kind (icon), title and file locations. */
import path from 'node:path';
import type { ToolCallLocation, ToolKind } from '@agentclientprotocol/sdk';
import { patchPaths } from '../tools/builtin/patch-parse.js';
import type { ToolRegistry } from '../tools/registry.js';
import { expandHome, realpathLoose } from '../tools/workspace.js';

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

/** The ACP kind of a Tea tool: from its name first, then its category and read-only flag. */
export function toolKind(tools: ToolRegistry, name: string): ToolKind {
  const byName = KIND_BY_NAME[name];
  if (byName) return byName;
  const tool = tools.get(name);
  if (!tool) return 'other';
  switch (tool.category) {
    case 'files':
      return tool.readOnly ? 'read' : 'edit';
    case 'search':
      return 'search';
    case 'exec':
      return 'execute';
    case 'git':
      return tool.readOnly ? 'read' : 'execute';
    case 'web':
      return 'fetch';
    default:
      return 'other';
  }
}

/** A one-line title: the tool name and what it acts on (its permission subject). */
export function toolTitle(tools: ToolRegistry, name: string, args: Record<string, unknown>): string {
  const tool = tools.get(name);
  let subject: string | undefined;
  try {
    subject = tool?.subject?.(args as never);
  } catch {
    subject = undefined;
  }
  if (!subject) return name;
  const short = subject.replace(/\s+/g, ' ').trim();
  return `${name}: ${short.length > 100 ? `${short.slice(0, 99)}…` : short}`;
}

/** An absolute path for a path argument, resolved the way the file tools resolve it. */
export function absolutePath(cwd: string, p: string): string {
  return realpathLoose(path.resolve(cwd, expandHome(p)));
}

/** The files a call touches, from its path arguments (`path`, `paths`, `from`/`to`, a patch). */
export function toolPaths(name: string, args: Record<string, unknown>, cwd: string): string[] {
  const raw: string[] = [];
  const add = (v: unknown): void => {
    if (typeof v === 'string' && v.trim() !== '' && !v.includes('\0')) raw.push(v);
  };
  add(args.path);
  if (Array.isArray(args.paths)) for (const p of args.paths) add(p);
  add(args.from);
  add(args.to);
  if (name === 'apply_patch' && typeof args.patch === 'string')
    for (const p of patchPaths(args.patch)) add(p);
  return [...new Set(raw.map((p) => absolutePath(cwd, p)))];
}

/** Follow-along locations for the editor (with the first line for read_file). */
export function toolLocations(name: string, args: Record<string, unknown>, cwd: string): ToolCallLocation[] {
  const line = name === 'read_file' && typeof args.offset === 'number' ? args.offset : undefined;
  return toolPaths(name, args, cwd).map((p) => (line === undefined ? { path: p } : { path: p, line }));
}
