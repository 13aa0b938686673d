/**
 * The facts of one tool call, for the permission check and for faces: the tool, its
 * approval class, what it acts on (the subject rules match), the files it names
 * resolved against the workspace and added roots, a shell line's commands, and
 * whether it reaches the network. `describeCall` is the first half of the permission
 * entry point (authorize.ts); `PermissionPolicy.check` is the second.
 */
import path from 'node:path';
import { patchPaths } from './builtin/patch-parse.js';
import { networkTools } from './sandbox/net-tools.js';
import { analyzeShell } from './shell/analyze.js';
import type { ShellAnalysis } from './shell/types.js';
import type { CallFacts, CallPath, Tool } from './types.js';
import { expandHome, isInside, realpathLoose, workspaceRoots } from './workspace.js';

/** Where a call runs: the workspace and the roots added to it. */
export interface Where {
  cwd?: string;
  roots?: readonly string[];
}

/** What describing a call needs of its tool. */
export type DescribedTool = Pick<Tool, 'name' | 'approval' | 'subject' | 'shell'> &
  Partial<Pick<Tool, 'category' | 'readOnly'>>;

/** The path arguments of a call as written: `path`, `paths`, `from`/`to`, and the files of a patch. */
export function namedPaths(name: string, args: unknown): string[] {
  if (typeof args !== 'object' || args === null) return [];
  const a = args as Record<string, unknown>;
  const raw: string[] = [];
  const add = (v: unknown): void => {
    if (typeof v === 'string' && v.trim() !== '' && !v.includes('\0')) raw.push(v);
  };
  add(a.path);
  if (Array.isArray(a.paths)) for (const p of a.paths) add(p);
  add(a.from);
  add(a.to);
  if (name === 'apply_patch' && typeof a.patch === 'string') for (const p of patchPaths(a.patch)) add(p);
  return [...new Set(raw)];
}

/** Each path resolved the way the file tools resolve it (real path, `~` expanded), inside the roots or not. */
function resolvePaths(written: readonly string[], where: Where & { cwd: string }): CallPath[] {
  let roots: string[];
  try {
    roots = workspaceRoots({ cwd: where.cwd, allowedRoots: [...(where.roots ?? [])] });
  } catch {
    roots = [];
  }
  const out = new Map<string, CallPath>();
  for (const p of written) {
    let real: string;
    try {
      real = realpathLoose(path.resolve(where.cwd, expandHome(p)));
    } catch {
      real = path.resolve(where.cwd, expandHome(p)); // a symlink loop: shown as written
    }
    out.set(real, { path: real, inside: roots.some((r) => isInside(r, real)) });
  }
  return [...out.values()];
}

/**
 * The facts of one call of `tool` with validated `args` that need no parsing: all but
 * a shell line's commands (see `describeCall`). A subject that throws is left out.
 */
export function callFacts(tool: DescribedTool, args: unknown, where: Where = {}): CallFacts {
  let subject: string | undefined;
  try {
    subject = tool.subject?.(args as never);
  } catch {
    subject = undefined;
  }
  const facts: CallFacts = {
    tool: tool.name,
    approval: tool.approval,
    ...(subject === undefined ? {} : { subject }),
    ...(tool.shell ? { shell: true } : {}),
    ...(where.cwd === undefined ? {} : { cwd: where.cwd }),
    ...(where.roots === undefined ? {} : { roots: where.roots }),
    ...(tool.category === undefined ? {} : { category: tool.category }),
    ...(tool.readOnly === undefined ? {} : { readOnly: tool.readOnly }),
  };
  const written = namedPaths(tool.name, args);
  if (where.cwd !== undefined && written.length > 0)
    facts.paths = resolvePaths(written, { ...where, cwd: where.cwd });
  const shellNetwork = tool.shell === true && subject !== undefined && networkTools(subject).length > 0;
  if (tool.approval === 'network' || shellNetwork) facts.network = true;
  return facts;
}

/**
 * Everything the permission check and the faces know of a call before it runs: the
 * facts of `callFacts`, and for a shell line every simple command in it (the line is
 * parsed once; `PermissionPolicy.check` reuses the parse).
 */
export async function describeCall(
  tool: DescribedTool,
  args: unknown,
  where: Where = {},
): Promise<CallFacts> {
  const facts = callFacts(tool, args, where);
  if (facts.shell && facts.subject !== undefined) {
    const analysis = await shellAnalysis(facts.subject);
    facts.commands = analysis.commands.map((c) => c.text);
  }
  return facts;
}

const ANALYSES_KEPT = 64;
const analyses = new Map<string, Promise<ShellAnalysis>>();

/**
 * The analysis of a shell line (a pure function of the text), kept for the last few
 * lines: describing a call, checking it and the sandbox's network check read it once.
 */
export function shellAnalysis(subject: string): Promise<ShellAnalysis> {
  const kept = analyses.get(subject);
  if (kept) {
    analyses.delete(subject);
    analyses.set(subject, kept);
    return kept;
  }
  const made = analyzeShell(subject);
  analyses.set(subject, made);
  made.catch(() => analyses.delete(subject));
  if (analyses.size > ANALYSES_KEPT) analyses.delete(analyses.keys().next().value as string);
  return made;
}
