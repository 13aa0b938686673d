/** How a Tea tool call looks to an ACP client: its kind (icon), title and file locations. */
import path from 'node:path';
import type { ToolCallLocation } from '@agentclientprotocol/sdk';
import { patchPaths } from '../tools/builtin/patch-parse.js';
import { expandHome, realpathLoose } from '../tools/workspace.js';

export { toolKind, toolTitle } from '../runtime/tool-record.js';

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
