/**
 * Finding the roles: `*.md` role files in the project's `.tea/agents/` and
 * `.claude/agents/`, the user's `<tea home>/agents/` and `~/.claude/agents/`, then the
 * built-ins; the first role of a name wins. A bad file never stops the load: it is
 * skipped with a warning naming the file, the key and the fix.
 */
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { displayPath } from '../../config/errors.js';
import { splitFrontmatter } from '../../config/frontmatter.js';
import { BUILTIN_ROLES } from './builtin.js';
import { roleDirs } from './dirs.js';
import { type ParseContext, parseRole } from './parse.js';
import { skippedMessage } from './problems.js';
import type { LoadRolesOptions, Role, RoleSet } from './types.js';

/** A role file larger than this is not read. */
const MAX_FILE_BYTES = 256 * 1024;

interface DirListing {
  dir: string;
  files: string[];
  warning?: string;
}

const isCode = (error: unknown, ...codes: string[]): boolean =>
  typeof error === 'object' && error !== null && codes.includes(String((error as { code?: unknown }).code));

/** The `*.md` files of `dir`, sorted by name; none when it does not exist. */
async function listDir(dir: string): Promise<DirListing> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (isCode(error, 'ENOENT')) return { dir, files: [] };
    const reason = isCode(error, 'ENOTDIR') ? 'it is not a folder' : (error as Error).message;
    return {
      dir,
      files: [],
      warning: `${displayPath(dir)}: role files could not be listed (${reason}). Fix: make it a folder of *.md role files, or remove it.`,
    };
  }
  const files = names
    .filter((n) => n.endsWith('.md') && !n.startsWith('.'))
    .sort()
    .map((n) => join(dir, n));
  return { dir, files };
}

/** The same folder reached twice (say the workspace is the home folder) is read once. */
async function distinctDirs(dirs: string[]): Promise<string[]> {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const dir of dirs) {
    const real = await realpath(dir).catch(() => dir);
    if (seen.has(real)) continue;
    seen.add(real);
    out.push(dir);
  }
  return out;
}

type FileResult = { role?: Role; warnings: string[] };

async function readRoleFile(file: string, ctx: ParseContext): Promise<FileResult> {
  let text: string;
  try {
    const info = await stat(file);
    if (!info.isFile()) return { warnings: [] };
    if (info.size > MAX_FILE_BYTES) {
      const got = `${Math.round(info.size / 1024)} KiB`;
      const problem = {
        key: '(file)',
        expected: `a role file under ${MAX_FILE_BYTES / 1024} KiB`,
        got,
        fix: 'shorten the instructions.',
      };
      return { warnings: [skippedMessage(file, problem)] };
    }
    text = await readFile(file, 'utf8');
  } catch (error) {
    const problem = {
      key: '(file)',
      expected: 'a readable file',
      got: `an error (${(error as Error).message})`,
      fix: 'make it readable (check its permissions, or where its link points).',
    };
    return { warnings: [skippedMessage(file, problem)] };
  }
  const split = splitFrontmatter(text);
  if (!split.ok) {
    // A README beside the role files (no frontmatter) is not a role and not a mistake.
    if (/^readme\.md$/i.test(file.slice(file.lastIndexOf('/') + 1)) && split.got === 'none')
      return { warnings: [] };
    return { warnings: [skippedMessage(file, split)] };
  }
  const parsed = await parseRole(file, split.data, split.body, ctx);
  if (parsed.kind === 'skipped') return { warnings: [parsed.warning] };
  if (parsed.kind === 'disabled') return { warnings: [] };
  return { role: parsed.role, warnings: parsed.warnings };
}

class Roles implements RoleSet {
  constructor(
    private readonly byName: Map<string, Role>,
    readonly warnings: string[],
  ) {}
  get(name: string): Role | undefined {
    return this.byName.get(name);
  }
  list(): Role[] {
    return [...this.byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  }
}

/** Every role: user and project files by precedence, then the built-ins. */
export async function loadRoles(opts: LoadRolesOptions): Promise<RoleSet> {
  const ctx: ParseContext = {
    profiles: new Set(opts.profiles ?? []),
    knownTools: new Set(opts.knownTools ?? []),
  };
  const dirs = await distinctDirs(roleDirs(opts));
  const listings = await Promise.all(dirs.map(listDir));
  const results = await Promise.all(
    listings.map((l) => Promise.all(l.files.map((file) => readRoleFile(file, ctx)))),
  );
  const byName = new Map<string, Role>();
  const warnings: string[] = [];
  for (const [i, listing] of listings.entries()) {
    if (listing.warning) warnings.push(listing.warning);
    for (const result of results[i] ?? []) {
      warnings.push(...result.warnings);
      const role = result.role;
      if (!role) continue;
      const winner = byName.get(role.name);
      if (winner) {
        warnings.push(
          `${displayPath(role.source)}: name: the role "${role.name}" is shadowed by ${displayPath(winner.source)}, which comes first. Fix: rename one of them, or delete the one you do not use.`,
        );
        continue;
      }
      byName.set(role.name, role);
    }
  }
  for (const builtin of BUILTIN_ROLES) {
    if (!byName.has(builtin.name)) byName.set(builtin.name, structuredClone(builtin));
  }
  return new Roles(byName, warnings);
}
