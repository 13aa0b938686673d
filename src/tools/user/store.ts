/**
 * The user tools on disk (layout in manifest.ts). A version's files are written once
 * and never overwritten (exclusive create), the manifest is replaced whole (a
 * temporary file renamed over it), and nothing is followed through a symbolic link:
 * a tool directory that is a link is refused rather than written through.
 */
import { lstatSync, mkdirSync, readdirSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Evidence } from './analyse.js';
import type { CheckedTool } from './check.js';
import { sha256 } from './hash.js';
import {
  MANIFEST_FILE,
  NAME_PATTERN,
  readManifest,
  readPlainFile,
  toolDir,
  toolsRoot,
  type UserToolManifest,
  VERSION_PATTERN,
  type VersionEntry,
  versionFile,
} from './manifest.js';

export type Bump = 'patch' | 'minor' | 'major';

function parts(version: string): [number, number, number] {
  const [a, b, c] = version.split('.').map(Number);
  return [a!, b!, c!];
}

export function compareVersions(a: string, b: string): number {
  const [x, y] = [parts(a), parts(b)];
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

/** The version after the highest of `versions` (never one that exists: old ones are never overwritten). */
export function nextVersion(versions: readonly string[], bump: Bump = 'patch'): string {
  if (versions.length === 0) return '1.0.0';
  const [a, b, c] = parts([...versions].sort(compareVersions).at(-1)!);
  if (bump === 'major') return `${a + 1}.0.0`;
  if (bump === 'minor') return `${a}.${b + 1}.0`;
  return `${a}.${b}.${c + 1}`;
}

function isMissing(e: unknown): boolean {
  return (e as NodeJS.ErrnoException).code === 'ENOENT';
}

/** A saved version and the manifest before it (to put back when loading it fails). */
export interface Saved {
  manifest: UserToolManifest;
  entry: VersionEntry;
  previous: UserToolManifest | undefined;
}

export class UserToolStore {
  constructor(
    readonly home: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  get root(): string {
    return toolsRoot(this.home);
  }

  /** The tool's directory, checked to be a plain directory when it exists (false: it does not). */
  private dirExists(name: string): boolean {
    const dir = toolDir(this.home, name);
    try {
      const st = lstatSync(dir);
      if (st.isSymbolicLink())
        throw new Error(`${dir} is a symbolic link; Tea does not follow links in its tools directory`);
      if (!st.isDirectory()) throw new Error(`${dir} is not a directory`);
      return true;
    } catch (e) {
      if (isMissing(e)) return false;
      throw e;
    }
  }

  /** The tool's manifest, or undefined when there is no such tool; throws when it is damaged. */
  read(name: string): UserToolManifest | undefined {
    if (!NAME_PATTERN.test(name)) return undefined;
    if (!this.dirExists(name)) return undefined;
    try {
      return readManifest(toolDir(this.home, name), name);
    } catch (e) {
      if (isMissing(e)) return undefined;
      throw new Error(`the tool ${name} cannot be read: ${(e as Error).message}`);
    }
  }

  /** Every tool's manifest by name, and a problem line for each that cannot be read. */
  list(): { tools: UserToolManifest[]; problems: string[] } {
    let names: string[];
    try {
      names = readdirSync(this.root).sort();
    } catch (e) {
      if (isMissing(e)) return { tools: [], problems: [] };
      throw e;
    }
    const tools: UserToolManifest[] = [];
    const problems: string[] = [];
    for (const name of names) {
      if (!NAME_PATTERN.test(name)) {
        problems.push(`${path.join(this.root, name)}: not a tool name; ignored`);
        continue;
      }
      try {
        const manifest = this.read(name);
        if (manifest) tools.push(manifest);
        else problems.push(`${name}: no manifest; ignored`);
      } catch (e) {
        problems.push((e as Error).message);
      }
    }
    return { tools, problems };
  }

  /** The source of a version as it was written. */
  source(name: string, version: string): string {
    return readPlainFile(versionFile(this.home, name, version, 'ts'), 1024 * 1024);
  }

  private writeManifest(manifest: UserToolManifest): void {
    const dir = toolDir(this.home, manifest.name);
    const tmp = path.join(dir, `.${MANIFEST_FILE}.${process.pid}.${Math.random().toString(36).slice(2)}`);
    writeFileSync(tmp, `${JSON.stringify(manifest, null, 2)}\n`, { flag: 'wx' });
    renameSync(tmp, path.join(dir, MANIFEST_FILE));
  }

  /**
   * Saves `source` (checked as `checked`) as a new version of `name` and makes it
   * current: 1.0.0 for a new tool, else the next after the highest saved (`bump`).
   * `expectNew`: refuse when the tool exists (tool_create); otherwise refuse when it
   * does not (tool_update).
   */
  add(name: string, source: string, checked: CheckedTool, opts: { expectNew: boolean; bump?: Bump }): Saved {
    const previous = this.read(name);
    if (opts.expectNew && previous)
      throw new Error(
        `the tool ${name} exists already (version ${previous.current}); change it with tool_update`,
      );
    if (!opts.expectNew && !previous)
      throw new Error(`there is no tool ${name} to update; create it with tool_create`);
    const version = nextVersion(previous?.versions.map((v) => v.version) ?? [], opts.bump);
    const created = this.now().toISOString();
    const entry: VersionEntry = {
      version,
      created,
      sha256: sha256(source),
      bundleSha256: sha256(checked.bundle),
      description: checked.description,
      approval: checked.approval,
      keywords: checked.keywords,
      parameters: checked.parameters,
      needs: checked.needs,
      evidence: checked.evidence.map((e: Evidence) => `${e.what} (${e.why})`),
    };
    if (!previous) {
      mkdirSync(this.root, { recursive: true });
      try {
        mkdirSync(toolDir(this.home, name));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
        this.dirExists(name);
      }
    }
    // Exclusive create: a version file that exists (another process saved it) is never overwritten.
    writeFileSync(versionFile(this.home, name, version, 'ts'), source, { flag: 'wx' });
    writeFileSync(versionFile(this.home, name, version, 'cjs'), checked.bundle, { flag: 'wx' });
    const manifest: UserToolManifest = {
      format: 1,
      name,
      current: version,
      created: previous?.created ?? created,
      updated: created,
      versions: [...(previous?.versions ?? []), entry],
    };
    this.writeManifest(manifest);
    return { manifest, entry, previous };
  }

  /** Undoes `add` (its version could not be loaded): the manifest as it was, the new files gone. */
  undo(saved: Saved): void {
    const { name } = saved.manifest;
    for (const ext of ['ts', 'cjs'] as const) {
      try {
        unlinkSync(versionFile(this.home, name, saved.entry.version, ext));
      } catch {
        // already gone
      }
    }
    if (saved.previous) this.writeManifest(saved.previous);
    else rmSync(toolDir(this.home, name), { recursive: true, force: true });
  }

  /** Makes `version` current; returns the manifest before and after. */
  setCurrent(name: string, version: string): { before: UserToolManifest; after: UserToolManifest } {
    if (!VERSION_PATTERN.test(version))
      throw new Error(`${JSON.stringify(version)} is not a version (e.g. 1.0.0)`);
    const before = this.read(name);
    if (!before) throw new Error(`there is no tool ${name}`);
    if (!before.versions.some((v) => v.version === version)) {
      const known = before.versions.map((v) => v.version).join(', ');
      throw new Error(`the tool ${name} has no version ${version} (saved: ${known})`);
    }
    const after = { ...before, current: version, updated: this.now().toISOString() };
    this.writeManifest(after);
    return { before, after };
  }

  /** Puts a manifest back as it was. */
  restore(manifest: UserToolManifest): void {
    this.writeManifest(manifest);
  }

  /**
   * Removes the tool and every version of it (a damaged one too); false when there is
   * none. A tool directory that is a symbolic link loses the link only, never what it
   * points to.
   */
  remove(name: string): boolean {
    if (!NAME_PATTERN.test(name)) return false;
    const dir = toolDir(this.home, name);
    let link: boolean;
    try {
      link = lstatSync(dir).isSymbolicLink();
    } catch (e) {
      if (isMissing(e)) return false;
      throw e;
    }
    if (link) unlinkSync(dir);
    else rmSync(dir, { recursive: true, force: true });
    return true;
  }
}
