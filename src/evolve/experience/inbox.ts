/**
 * The skill inbox, from the drafting side: which skills exist already (installed ones
 * in every folder the skills loader reads, and drafts waiting in the inbox), whether a
 * new draft repeats one of them, and writing a draft as `TEA_HOME/skill-inbox/<name>/
 * SKILL.md` without ever replacing anything.
 *
 * A draft whose description matches an existing skill's is skipped (a duplicate). One
 * whose name is taken by a different skill gets a suffix (`-2` … `-9`). The folder is
 * written whole under a hidden temporary name and renamed into place: rename(2) refuses
 * a non-empty folder (or a file, or a symlink) of that name, so a draft written at the
 * same moment by another process is never overwritten either.
 */
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { lessonTerms } from '../../memory/lessons.js';
import { randomHex } from '../../util/random-id.js';
import { inboxDir, skillDirs, userSkillsDir } from '../skills/dirs.js';
import { type ExistingSkill, renderSkill, SKILL_NAME, type SkillDraft } from './draft.js';

/** Descriptions this alike (shared meaningful words over all) make two skills one. */
export const SAME_SKILL_OVERLAP = 0.5;
const MAX_SUFFIX = 9;
/** Bytes read of each SKILL.md: enough for any frontmatter. */
const HEAD_BYTES = 8192;
const MAX_SKILLS_READ = 300;

/** Where skills live that a draft must not repeat: the inbox, then every folder the skills loader reads. */
export function knownSkillDirs(home: string, cwd: string, userHome?: string): string[] {
  return [inboxDir(home), ...skillDirs({ home, cwd, ...(userHome ? { userHome } : {}) }).map((d) => d.dir)];
}

/** The frontmatter mapping of a SKILL.md (undefined when it has none or it is not YAML). */
function frontmatter(text: string): Record<string, unknown> | undefined {
  const m = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/.exec(text);
  if (!m) return undefined;
  try {
    const data: unknown = parse(m[1] ?? '');
    return data !== null && typeof data === 'object' && !Array.isArray(data)
      ? (data as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** `name` and `description` from a SKILL.md's frontmatter (undefined when it has none). */
export function readFrontmatter(text: string): ExistingSkill | undefined {
  const data = frontmatter(text);
  if (!data || typeof data.name !== 'string') return undefined;
  return { name: data.name, description: typeof data.description === 'string' ? data.description : '' };
}

/** The session a tea draft came from (`metadata.session`), if it is one. */
export function readMetadataSession(text: string): string | undefined {
  const meta = frontmatter(text)?.metadata;
  if (meta === null || typeof meta !== 'object') return undefined;
  const { source, session } = meta as Record<string, unknown>;
  return source === 'tea-draft' && typeof session === 'string' ? session : undefined;
}

async function head(file: string): Promise<string | undefined> {
  try {
    const text = await readFile(file, 'utf8');
    return text.slice(0, HEAD_BYTES);
  } catch {
    return undefined;
  }
}

/** The skills in `dirs` (folders holding a readable SKILL.md), first folder first. */
export async function existingSkills(dirs: readonly string[]): Promise<ExistingSkill[]> {
  const out: ExistingSkill[] = [];
  for (const dir of dirs) {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (out.length >= MAX_SKILLS_READ) return out;
      if (entry.name.startsWith('.') || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
      const text = await head(path.join(dir, entry.name, 'SKILL.md'));
      const front = text === undefined ? undefined : readFrontmatter(text);
      if (front) out.push({ name: front.name || entry.name, description: front.description });
      else if (text !== undefined) out.push({ name: entry.name, description: '' });
    }
  }
  return out;
}

/** Shared meaningful words of two descriptions over the words of the shorter one (0–1). */
export function descriptionOverlap(a: string, b: string): number {
  const x = lessonTerms(a);
  const y = lessonTerms(b);
  const smaller = Math.min(x.size, y.size);
  if (smaller === 0) return 0;
  let shared = 0;
  for (const term of x) if (y.has(term)) shared += 1;
  return shared / smaller;
}

/** The existing skill `draft` repeats: a description this alike. */
export function duplicateOf(
  draft: SkillDraft,
  existing: readonly ExistingSkill[],
): ExistingSkill | undefined {
  return existing.find((s) => descriptionOverlap(draft.description, s.description) >= SAME_SKILL_OVERLAP);
}

async function taken(dirs: readonly string[], name: string): Promise<boolean> {
  for (const dir of dirs) {
    if (
      await lstat(path.join(dir, name)).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}

export type DraftWrite = { written: string; path: string } | { skipped: string };

/**
 * Writes `draft` into the inbox under its name, or the first free `<name>-N`; never
 * replaces a draft or an installed skill. `existing` are the known skills (for duplicates).
 */
export async function writeDraft(
  home: string,
  draft: SkillDraft,
  meta: { session: string; draftedAt: string },
  existing: readonly ExistingSkill[],
): Promise<DraftWrite> {
  const same = duplicateOf(draft, existing);
  if (same) return { skipped: `it repeats the skill "${same.name}"` };
  const inbox = inboxDir(home);
  const installed = userSkillsDir(home);
  await mkdir(inbox, { recursive: true, mode: 0o700 });
  // A name any known skill has (in any folder) would shadow it or be shadowed.
  const names = new Set(existing.map((s) => s.name));
  for (let n = 1; n <= MAX_SUFFIX; n++) {
    const name = n === 1 ? draft.name : `${draft.name.slice(0, 61).replace(/-+$/, '')}-${n}`;
    if (!SKILL_NAME.test(name)) return { skipped: `"${name}" is no valid skill name` };
    if (names.has(name) || (await taken([inbox, installed], name))) continue;
    const temp = path.join(inbox, `.${name}.tea-tmp-${randomHex(6)}`);
    try {
      await mkdir(temp, { mode: 0o700 });
      await writeFile(path.join(temp, 'SKILL.md'), renderSkill({ ...draft, name }, meta), {
        mode: 0o600,
        flag: 'wx',
      });
      const final = path.join(inbox, name);
      try {
        await rename(temp, final);
        return { written: name, path: path.join(final, 'SKILL.md') };
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOTDIR' && code !== 'EISDIR') throw err;
      }
    } finally {
      await rm(temp, { recursive: true, force: true });
    }
  }
  return { skipped: `the names ${draft.name} to ${draft.name}-${MAX_SUFFIX} are all taken` };
}
