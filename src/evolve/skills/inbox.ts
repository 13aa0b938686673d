/**
 * The inbox of drafted skills (`<tea home>/skill-inbox/<name>/SKILL.md`, written by
 * the drafting job with `metadata: { source: tea-draft, session, drafted_at }`). Nothing
 * here is offered to the model: a person reads a draft, then accepts it (the folder
 * moves to `<tea home>/skills/<name>`) or rejects it (the folder is deleted).
 */
import type { Dirent } from 'node:fs';
import { cp, lstat, mkdir, readdir, readFile, rename, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { displayPath } from '../../config/errors.js';
import { inboxDir, userSkillsDir } from './dirs.js';
import { checkedName, SkillsError } from './errors.js';
import { skillFiles } from './files.js';
import { MAX_SKILL_BYTES } from './load.js';
import { nameProblem } from './names.js';
import { parseSkill } from './parse.js';
import type { SkillSet, ToolNameMapper } from './types.js';

export interface InboxOptions {
  home: string;
  map: ToolNameMapper;
  /** The installed skills (to refuse a name that is taken). */
  installed(): Promise<SkillSet>;
  /** Told after a skill was installed. */
  changed(): void;
}

export interface DraftView {
  /** The draft's folder name. */
  name: string;
  dir: string;
  file: string;
  description?: string;
  /** From `metadata`: `source` (tea-draft), the session it came from and when it was drafted. */
  source?: string;
  session?: string;
  draftedAt?: string;
  metadata: Record<string, string>;
  /** Acceptable as it is; otherwise `problems` says why not. */
  valid: boolean;
  problems: string[];
  /** The SKILL.md of an installed skill of the same name (accepting it needs `force`). */
  conflictsWith?: string;
}

export interface DraftDetail extends DraftView {
  body: string;
  files: string[];
}

export interface AcceptResult {
  name: string;
  dir: string;
  /** A skill folder of that name in the Tea home was replaced (`force`). */
  replaced: boolean;
  /** Where it stands against a skill of the same name in another folder. */
  note?: string;
}

type Read = DraftView & { body: string };

const isCode = (error: unknown, code: string): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;

export class SkillInbox {
  readonly dir: string;

  constructor(private readonly opts: InboxOptions) {
    this.dir = inboxDir(opts.home);
  }

  /** The draft in folder `name`, checked; undefined when there is none. */
  private async read(name: string, installed?: SkillSet): Promise<Read | undefined> {
    const dir = join(this.dir, name);
    const file = join(dir, 'SKILL.md');
    const base: Read = { name, dir, file, metadata: {}, valid: false, problems: [], body: '' };
    let info: Awaited<ReturnType<typeof lstat>>;
    try {
      info = await lstat(dir);
    } catch (error) {
      if (isCode(error, 'ENOENT')) return undefined;
      throw error;
    }
    if (!info.isDirectory())
      return {
        ...base,
        problems: [
          `${displayPath(dir)} is ${info.isSymbolicLink() ? 'a link' : 'not a folder'}; a draft is a folder of its own. Reject it.`,
        ],
      };
    const nameIssue = nameProblem(name);
    if (nameIssue) return { ...base, problems: [`the folder's name has ${nameIssue}; reject it`] };
    let text: string;
    try {
      const fileInfo = await lstat(file);
      if (!fileInfo.isFile())
        return { ...base, problems: [`${displayPath(file)} is not a regular file. Reject the draft.`] };
      if (fileInfo.size > MAX_SKILL_BYTES)
        return {
          ...base,
          problems: [`${displayPath(file)} is over ${MAX_SKILL_BYTES / 1024} KiB. Reject the draft.`],
        };
      text = await readFile(file, 'utf8');
    } catch (error) {
      return {
        ...base,
        problems: [`${displayPath(file)} could not be read (${(error as Error).message}). Reject the draft.`],
      };
    }
    const parsed = parseSkill(text, file, dir, this.opts.map);
    if (parsed.kind === 'skipped') return { ...base, problems: [parsed.warning] };
    const { skill } = parsed;
    const problems = [...parsed.notes];
    if (skill.name !== name) problems.push(`its name "${skill.name}" differs from its folder "${name}"`);
    const meta = skill.metadata;
    const taken = installed?.skills.find((s) => s.name === name);
    return {
      ...base,
      description: skill.description,
      ...(meta.source ? { source: meta.source } : {}),
      ...(meta.session ? { session: meta.session } : {}),
      ...(meta.drafted_at ? { draftedAt: meta.drafted_at } : {}),
      metadata: meta,
      valid: skill.name === name,
      problems,
      ...(taken ? { conflictsWith: taken.file } : {}),
      body: parsed.body,
    };
  }

  /** Every draft, oldest first by its `drafted_at` (then by name). */
  async list(): Promise<DraftView[]> {
    let entries: Dirent[];
    try {
      entries = await readdir(this.dir, { withFileTypes: true });
    } catch (error) {
      if (isCode(error, 'ENOENT')) return [];
      throw error;
    }
    const installed = await this.opts.installed();
    const names = entries
      .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !e.name.startsWith('.'))
      .map((e) => e.name);
    const drafts = (await Promise.all(names.map((n) => this.read(n, installed)))).flatMap((d) =>
      d ? [d] : [],
    );
    return drafts
      .map(({ body: _body, ...view }) => view)
      .sort((a, b) => (a.draftedAt ?? '').localeCompare(b.draftedAt ?? '') || a.name.localeCompare(b.name));
  }

  private async existing(raw: string, installed?: SkillSet): Promise<Read> {
    const name = checkedName(raw, 'draft');
    const draft = await this.read(name, installed);
    if (!draft)
      throw new SkillsError(
        'not_found',
        `no draft named "${name}" in the inbox (tea skills inbox lists them)`,
      );
    return draft;
  }

  async show(raw: string): Promise<DraftDetail> {
    const draft = await this.existing(raw, await this.opts.installed());
    const files = draft.problems.length > 0 && !draft.valid ? [] : (await skillFiles(draft.dir)).files;
    return { ...draft, files };
  }

  /** Installs the draft as `<tea home>/skills/<name>`; a name already installed needs `force`. */
  async accept(raw: string, opts: { force?: boolean } = {}): Promise<AcceptResult> {
    const installed = await this.opts.installed();
    const draft = await this.existing(raw, installed);
    const { name } = draft;
    if (!draft.valid)
      throw new SkillsError(
        'invalid_skill',
        `the draft "${name}" cannot be accepted: ${draft.problems.join('; ')}`,
      );
    const dest = join(userSkillsDir(this.opts.home), name);
    const destExists = await lstat(dest).then(
      () => true,
      () => false,
    );
    const other = installed.skills.find((s) => s.name === name && s.dir !== dest);
    if ((destExists || other) && opts.force !== true) {
      const where = destExists ? displayPath(dest) : displayPath(other!.dir);
      throw new SkillsError(
        'conflict',
        destExists
          ? `a skill named "${name}" is already installed at ${where}; accept with --force (force=true) to replace it, or reject the draft`
          : `a skill named "${name}" is already installed at ${where}; accept with --force (force=true) to install the draft in ${displayPath(userSkillsDir(this.opts.home))} as well (the folder that comes first keeps precedence: tea skills list shows it), or reject the draft`,
      );
    }
    await mkdir(userSkillsDir(this.opts.home), { recursive: true });
    if (destExists) {
      if ((await lstat(dest)).isSymbolicLink()) await unlink(dest);
      else await rm(dest, { recursive: true, force: true });
    }
    try {
      await rename(draft.dir, dest);
    } catch (error) {
      if (!isCode(error, 'EXDEV')) throw error;
      await cp(draft.dir, dest, { recursive: true, errorOnExist: true, force: false });
      await rm(draft.dir, { recursive: true, force: true });
    }
    this.opts.changed();
    const note = other
      ? other.source.scope === 'project'
        ? `the project's skill at ${displayPath(other.dir)} comes first, so in this project it is used instead`
        : `it now comes before ${displayPath(other.dir)}`
      : undefined;
    return { name, dir: dest, replaced: destExists, ...(note ? { note } : {}) };
  }

  /** Deletes the draft's folder (a link is removed, not what it points to). */
  async reject(raw: string): Promise<{ name: string; dir: string }> {
    const name = checkedName(raw, 'draft');
    const dir = join(this.dir, name);
    let info: Awaited<ReturnType<typeof lstat>>;
    try {
      info = await lstat(dir);
    } catch (error) {
      if (isCode(error, 'ENOENT'))
        throw new SkillsError(
          'not_found',
          `no draft named "${name}" in the inbox (tea skills inbox lists them)`,
        );
      throw error;
    }
    if (info.isDirectory()) await rm(dir, { recursive: true, force: true });
    else await unlink(dir);
    return { name, dir };
  }
}
