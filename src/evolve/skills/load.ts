/**
 * Finding the skills: every folder holding a SKILL.md in the skill folders of the
 * project and the user (dirs.ts), the first skill of a name winning. A bad skill never
 * stops the load: it is skipped with one warning naming the file, the key and the fix.
 *
 * A skill's folder becomes readable to the file tools while it is offered, so a folder
 * is refused when its real path is the root of the file system or holds the user's
 * home, the Tea home or the workspace, and a project's skill folder must lie inside the
 * project (a cloned repository may not point file tools at the rest of the disk).
 */
import type { Dirent } from 'node:fs';
import { readdir, readFile, realpath, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { displayPath } from '../../config/errors.js';
import { isInside } from '../../tools/workspace.js';
import { type SkillDir, type SkillDirsInput, skillDirs } from './dirs.js';
import { parseSkill, skippedMessage } from './parse.js';
import type { ShadowedSkill, Skill, SkillSet, ToolNameMapper } from './types.js';

/** A SKILL.md larger than this is not read. */
export const MAX_SKILL_BYTES = 256 * 1024;
/** Skill folders read per folder of skills (the rest are left out with a warning). */
export const MAX_FOLDERS = 500;

export interface LoadOptions extends SkillDirsInput {
  /** Maps `allowed-tools` entries to tea's tool names. */
  map: ToolNameMapper;
}

const isCode = (error: unknown, ...codes: string[]): boolean =>
  typeof error === 'object' && error !== null && codes.includes(String((error as { code?: unknown }).code));

/** What one folder of skills holds: its candidate skill folders (sorted), or why it could not be listed. */
export interface Listing {
  dir: SkillDir;
  folders: string[];
  warning?: string;
}

export async function listFolders(dir: SkillDir): Promise<Listing> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir.dir, { withFileTypes: true });
  } catch (error) {
    if (isCode(error, 'ENOENT')) return { dir, folders: [] };
    const reason = isCode(error, 'ENOTDIR') ? 'it is not a folder' : (error as Error).message;
    const warning = `${displayPath(dir.dir)}: skills could not be listed (${reason}). Fix: make it a folder of skill folders (each with a SKILL.md), or remove it.`;
    return { dir, folders: [], warning };
  }
  const names = entries
    .filter(
      (e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith('.') && e.name !== 'node_modules',
    )
    .map((e) => e.name)
    .sort();
  const folders = names.slice(0, MAX_FOLDERS).map((n) => join(dir.dir, n));
  if (names.length <= MAX_FOLDERS) return { dir, folders };
  const warning = `${displayPath(dir.dir)}: ${names.length} folders; only the first ${MAX_FOLDERS} were read. Fix: move the skills you do not use elsewhere.`;
  return { dir, folders, warning };
}

/** The real paths a skill folder must not hold, and the workspace a project's skills must stay inside. */
export interface Fences {
  guarded: string[];
  workspace: string;
}

export async function fencesFor(opts: SkillDirsInput): Promise<Fences> {
  const real = (p: string) => realpath(p).catch(() => p);
  const [user, home, workspace] = await Promise.all([
    real(opts.userHome ?? homedir()),
    real(opts.home),
    real(opts.cwd),
  ]);
  return { guarded: [user, home, workspace], workspace };
}

function folderProblem(realDir: string, dir: SkillDir, fences: Fences): string | undefined {
  if (dirname(realDir) === realDir) return 'the root of the file system';
  const held = fences.guarded.find((p) => isInside(realDir, p));
  if (held) return `a folder that holds ${displayPath(held)}`;
  if (dir.scope === 'project' && !isInside(fences.workspace, realDir))
    return `${displayPath(realDir)}, outside the project`;
  return undefined;
}

export type FolderResult = { skill?: Skill; warnings: string[] };

/** The skill in `folder` (a folder of `dir`); nothing for a folder without SKILL.md. */
export async function readSkillFolder(
  folder: string,
  dir: SkillDir,
  fences: Fences,
  map: ToolNameMapper,
): Promise<FolderResult> {
  const file = join(folder, 'SKILL.md');
  const skipped = (key: string, expected: string, got: string, fix: string): FolderResult => ({
    warnings: [skippedMessage(file, { key, expected, got, fix })],
  });
  let realDir: string;
  try {
    realDir = await realpath(folder);
    if (!(await stat(realDir)).isDirectory()) return { warnings: [] };
  } catch {
    return {
      warnings: [
        `${displayPath(folder)}: (folder): its link points nowhere; it was skipped. Fix: remove the link or point it at a skill folder.`,
      ],
    };
  }
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(file);
  } catch (error) {
    if (isCode(error, 'ENOENT', 'ENOTDIR')) return { warnings: [] };
    return skipped(
      '(file)',
      'a readable SKILL.md',
      `an error (${(error as Error).message})`,
      'make it readable (check its permissions, or where its link points).',
    );
  }
  const problem = folderProblem(realDir, dir, fences);
  if (problem)
    return skipped(
      '(folder)',
      'a skill folder of its own',
      `${problem}`,
      'keep each skill in a folder of its own inside the skills folder (copy it there rather than linking elsewhere).',
    );
  const realFile = await realpath(file);
  if (!info.isFile() || !isInside(realDir, realFile))
    return skipped(
      '(file)',
      'a SKILL.md file inside the skill folder',
      info.isFile() ? `a link to ${displayPath(realFile)}` : 'not a regular file',
      'put the instructions in a real SKILL.md file in the folder.',
    );
  if (info.size > MAX_SKILL_BYTES)
    return skipped(
      '(file)',
      `a SKILL.md under ${MAX_SKILL_BYTES / 1024} KiB`,
      `${Math.round(info.size / 1024)} KiB`,
      'move the details into references/ files the instructions point to.',
    );
  let text: string;
  try {
    text = await readFile(realFile, 'utf8');
  } catch (error) {
    return skipped(
      '(file)',
      'a readable SKILL.md',
      `an error (${(error as Error).message})`,
      'make it readable.',
    );
  }
  const parsed = parseSkill(text, file, folder, map);
  if (parsed.kind === 'skipped') return { warnings: [parsed.warning] };
  const { label, scope, rank, own } = dir;
  const skill: Skill = {
    ...parsed.skill,
    realDir,
    source: { dir: dir.dir, label, scope, rank, own },
    stamp: `${info.size}:${info.mtimeMs}`,
  };
  return { skill, warnings: parsed.notes };
}

/** The same folder reached twice (say the workspace is the home folder) is read once, where it ranks highest. */
async function distinct(dirs: SkillDir[]): Promise<SkillDir[]> {
  const seen = new Set<string>();
  const out: SkillDir[] = [];
  for (const dir of dirs) {
    const real = await realpath(dir.dir).catch(() => dir.dir);
    if (seen.has(real)) continue;
    seen.add(real);
    out.push(dir);
  }
  return out;
}

/** Every skill visible from `opts.cwd`, and the folders that were looked at (for the cache). */
export async function loadSkills(opts: LoadOptions): Promise<SkillSet & { folders: string[] }> {
  const [dirs, fences] = await Promise.all([distinct(skillDirs(opts)), fencesFor(opts)]);
  const listings = await Promise.all(dirs.map(listFolders));
  const results = await Promise.all(
    listings.map((l) => Promise.all(l.folders.map((f) => readSkillFolder(f, l.dir, fences, opts.map)))),
  );
  const byName = new Map<string, Skill>();
  const shadowed: ShadowedSkill[] = [];
  const warnings: string[] = [];
  for (const [i, listing] of listings.entries()) {
    if (listing.warning) warnings.push(listing.warning);
    for (const result of results[i] ?? []) {
      warnings.push(...result.warnings);
      const skill = result.skill;
      if (!skill) continue;
      const winner = byName.get(skill.name);
      if (winner) {
        shadowed.push({ skill, by: winner.file });
        warnings.push(
          `${displayPath(skill.file)}: name: the skill "${skill.name}" is shadowed by ${displayPath(winner.file)}, which comes first. Fix: rename one of them, or delete the one you do not use.`,
        );
        continue;
      }
      byName.set(skill.name, skill);
    }
  }
  const skills = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  return { skills, shadowed, warnings, folders: listings.flatMap((l) => l.folders) };
}
