/**
 * The skills as the faces manage them: list (with the folders in precedence order,
 * the shadowed skills and the warnings), show one, and remove one. `rm` deletes only
 * in tea's own folders (the project's `.tea/skills`, the Tea home's `skills`) unless
 * forced: a skill in `.claude/skills` or `.agents/skills` belongs to another agent the
 * user also runs. A linked skill folder loses its link only, never the files behind it.
 */
import { existsSync } from 'node:fs';
import { lstat, readFile, rm, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { displayPath } from '../../config/errors.js';
import { closest } from '../../config/suggest.js';
import type { SkillCatalog } from './catalog.js';
import { skillDirs, userSkillsDir } from './dirs.js';
import { checkedName, SkillsError } from './errors.js';
import { skillFiles } from './files.js';
import { type InboxOptions, SkillInbox } from './inbox.js';
import { loadSkills } from './load.js';
import { parseSkill } from './parse.js';
import type { SkillSet, ToolNameMapper } from './types.js';
import { type SkillDetail, type SkillListing, skillView } from './views.js';

export interface SkillsServiceOptions {
  home: string;
  cwd: string;
  userHome?: string;
  map: ToolNameMapper;
  /** The runtime's catalog (its cache is dropped after a change); absent: scan on each call. */
  catalog?: SkillCatalog;
}

export interface RemoveResult {
  name: string;
  dir: string;
  /** The folder was a link: the link went, the files it pointed to stayed. */
  linkOnly: boolean;
  /** The skill of the same name that takes its place (it was shadowed), if any. */
  nowFrom?: string;
}

export class SkillsService {
  readonly inbox: SkillInbox;

  constructor(private readonly opts: SkillsServiceOptions) {
    const inboxOpts: InboxOptions = {
      home: opts.home,
      map: opts.map,
      installed: () => this.set(),
      changed: () => opts.catalog?.invalidate(),
    };
    this.inbox = new SkillInbox(inboxOpts);
  }

  private async set(): Promise<SkillSet> {
    if (this.opts.catalog) return this.opts.catalog.get(this.opts.cwd);
    const { folders: _folders, ...set } = await loadSkills(this.opts);
    return set;
  }

  async list(): Promise<SkillListing> {
    const set = await this.set();
    return {
      skills: set.skills.map(skillView),
      shadowed: set.shadowed.map((s) => ({ ...skillView(s.skill), shadowedBy: s.by })),
      warnings: set.warnings,
      dirs: skillDirs(this.opts).map((d) => ({
        rank: d.rank,
        label: d.label,
        scope: d.scope,
        dir: d.dir,
        exists: existsSync(d.dir),
        own: d.own,
      })),
    };
  }

  async show(raw: string): Promise<SkillDetail> {
    const name = checkedName(raw);
    const set = await this.set();
    const skill = set.skills.find((s) => s.name === name);
    if (!skill) throw notInstalled(name, set);
    const [text, list] = await Promise.all([readFile(skill.file, 'utf8'), skillFiles(skill.realDir)]);
    const parsed = parseSkill(text, skill.file, skill.dir, this.opts.map);
    if (parsed.kind === 'skipped') throw new SkillsError('invalid_skill', parsed.warning);
    return { ...skillView(skill), body: parsed.body, files: list.files, moreFiles: list.more };
  }

  async remove(raw: string, opts: { force?: boolean } = {}): Promise<RemoveResult> {
    const name = checkedName(raw);
    const set = await this.set();
    const skill = set.skills.find((s) => s.name === name);
    if (!skill) throw notInstalled(name, set);
    if (!skill.source.own && opts.force !== true)
      throw new SkillsError(
        'not_owned',
        `the skill "${name}" is in ${displayPath(skill.source.dir)}, another agent's skills folder; tea removes skills only from .tea/skills and ${displayPath(userSkillsDir(this.opts.home))} on its own. Remove it with that agent, or pass --force (force=true) to delete ${displayPath(skill.dir)} anyway`,
      );
    // The folder is the one the scan found, directly in its skills folder.
    if (dirname(skill.dir) !== skill.source.dir)
      throw new SkillsError(
        'invalid_skill',
        `${displayPath(skill.dir)} is not a folder of ${displayPath(skill.source.dir)}`,
      );
    const link = (await lstat(skill.dir)).isSymbolicLink();
    if (link) await unlink(skill.dir);
    else await rm(skill.dir, { recursive: true, force: true });
    this.opts.catalog?.invalidate();
    const next = set.shadowed.find((s) => s.skill.name === name);
    return { name, dir: skill.dir, linkOnly: link, ...(next ? { nowFrom: next.skill.file } : {}) };
  }
}

/** 404 for `name`, naming the closest installed skills. */
export function notInstalled(name: string, set: SkillSet): SkillsError {
  const names = set.skills.map((s) => s.name);
  const near = closest(name, names);
  const hint =
    near.length > 0
      ? `; did you mean ${near.join(' or ')}?`
      : names.length === 0
        ? '; no skills are installed'
        : '';
  return new SkillsError(
    'not_found',
    `no skill named "${name}" is installed${hint} (tea skills list shows them)`,
  );
}
