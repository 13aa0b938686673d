/**
 * The skills of each workspace, scanned once and kept until something changes. Before
 * each prompt the cache is checked with a few `stat` calls (the skill folders, each
 * skill's folder and SKILL.md); only a changed stamp rescans. Nothing is spawned and
 * no file is read on an unchanged prompt.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { skillDirs } from './dirs.js';
import { type LoadOptions, loadSkills } from './load.js';
import type { SkillSet } from './types.js';

interface Entry {
  /** Each watched path with its stamp when it was scanned. */
  stamps: Map<string, string>;
  set: SkillSet;
}

function stampOf(path: string): string {
  try {
    const s = statSync(path);
    return `${s.size}:${s.mtimeMs}:${s.ctimeMs}:${s.ino}`;
  } catch {
    return '-';
  }
}

export type CatalogOptions = Omit<LoadOptions, 'cwd'>;

export class SkillCatalog {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<SkillSet>>();
  /** How many full scans ran (tests check the cache holds). */
  scans = 0;

  constructor(private readonly opts: CatalogOptions) {}

  /** The skills visible from `cwd`, scanned again only when a watched stamp changed. */
  get(cwd: string): Promise<SkillSet> {
    const entry = this.entries.get(cwd);
    if (entry && [...entry.stamps].every(([path, stamp]) => stampOf(path) === stamp))
      return Promise.resolve(entry.set);
    let scan = this.pending.get(cwd);
    if (!scan) {
      scan = this.scan(cwd).finally(() => this.pending.delete(cwd));
      this.pending.set(cwd, scan);
    }
    return scan;
  }

  /** Forgets what was scanned (after tea itself changed a skill folder). */
  invalidate(): void {
    this.entries.clear();
  }

  private async scan(cwd: string): Promise<SkillSet> {
    this.scans++;
    const dirs = skillDirs({ ...this.opts, cwd }).map((d) => d.dir);
    // Stamps first: a change made during the scan makes the next call scan again.
    const stamps = new Map<string, string>();
    for (const dir of dirs) stamps.set(dir, stampOf(dir));
    const { folders, ...set } = await loadSkills({ ...this.opts, cwd });
    for (const folder of folders) {
      stamps.set(folder, stampOf(folder));
      stamps.set(join(folder, 'SKILL.md'), stampOf(join(folder, 'SKILL.md')));
    }
    this.entries.set(cwd, { stamps, set });
    return set;
  }
}
