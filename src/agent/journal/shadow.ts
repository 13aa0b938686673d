/**
 * The shadow repository of one workspace: a bare git repository under
 * `<home>/journal/<hash of the workspace path>/`, used with the workspace as its work
 * tree and one index file per session (two sessions in a workspace never share an
 * index, so their snapshots never wait on each other's lock). A snapshot is `add -A`
 * then `write-tree`: tracked and untracked files, the workspace's `.gitignore` files
 * honoured, `.git` always out, nested git repositories left out (they are their own).
 * The user's repository (index, HEAD, refs, stash, config) is never read or written.
 */
// fs.promises is reached at call time: a run that journals nothing never loads it.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../../util/node-crypto.js';
import { type ShadowPlace, shadowGit, zFields } from './git.js';

/** When a snapshot gives up (the journal is off for that round, with one notice). */
export interface JournalLimits {
  /** Files in the workspace (tracked and untracked, not ignored), at most. */
  maxFiles: number;
  /** A new or changed file larger than this turns the round's journal off. */
  maxFileBytes: number;
  /** One snapshot's time, at most. */
  timeoutMs: number;
}

export const DEFAULT_LIMITS: JournalLimits = {
  maxFiles: 50_000,
  maxFileBytes: 20 * 1024 * 1024,
  timeoutMs: 30_000,
};

export type Snapshot = { ok: true; tree: string; files: number } | { ok: false; reason: string };

/** One file that differs between two trees (a null blob: absent on that side). */
export interface TreeChange {
  path: string;
  beforeBlob: string | null;
  afterBlob: string | null;
  beforeMode: string | null;
  afterMode: string | null;
}

const ZERO = /^0+$/;
const GITLINK = '160000';

/** Files whose sizes are checked at once. */
const STAT_BATCH = 256;

/** `<home>/journal/<first 16 hex of sha-256 of the workspace path>`. */
export function shadowDir(home: string, workspace: string): string {
  return path.join(home, 'journal', sha256Hex(path.resolve(workspace)).slice(0, 16));
}

export class ShadowRepo {
  readonly place: ShadowPlace;
  private ready: Promise<void> | undefined;

  constructor(opts: { home: string; workspace: string; sessionId: string; git?: string }) {
    const gitDir = shadowDir(opts.home, opts.workspace);
    const safeId = opts.sessionId.replace(/[^A-Za-z0-9_-]/g, '_');
    this.place = {
      gitDir,
      indexFile: path.join(gitDir, `index-${safeId}`),
      workTree: path.resolve(opts.workspace),
      ...(opts.git ? { git: opts.git } : {}),
    };
  }

  /** Creates the bare repository on first use; its attributes keep blobs byte-exact. */
  ensure(): Promise<void> {
    this.ready ??= (async () => {
      const { gitDir } = this.place;
      await fsp.mkdir(gitDir, { recursive: true });
      const exists = await fsp.lstat(path.join(gitDir, 'HEAD')).then(
        () => true,
        () => false,
      );
      if (!exists) await shadowGit({ ...this.place, workTree: '' }, ['init', '-q', '--bare', gitDir]);
      await fsp.mkdir(path.join(gitDir, 'info'), { recursive: true });
      await fsp.writeFile(path.join(gitDir, 'info', 'exclude'), '.git\n');
      // The highest-precedence attributes: no eol conversion, filter or encoding touches a blob.
      await fsp.writeFile(
        path.join(gitDir, 'info', 'attributes'),
        '* -text -eol -filter -ident -working-tree-encoding\n',
      );
    })();
    this.ready.catch(() => {
      this.ready = undefined;
    });
    return this.ready;
  }

  /** A tree of the workspace now, or why none was taken (a limit, git failing). */
  async snapshot(limits: JournalLimits, now: () => number = Date.now): Promise<Snapshot> {
    const deadline = now() + limits.timeoutMs;
    const left = (): number => deadline - now();
    const timedOut = `the snapshot took longer than ${limits.timeoutMs / 1000} s (journal.timeout_s)`;
    try {
      await this.ensure();
      const listed = await shadowGit(
        this.place,
        ['ls-files', '-z', '-t', '-c', '-o', '-m', '--exclude-standard'],
        { timeoutMs: left() },
      );
      const files = new Set<string>();
      const check: string[] = [];
      const nested: string[] = [];
      for (const field of zFields(listed)) {
        const tag = field[0];
        const p = field.slice(2);
        if (tag === '?' && p.endsWith('/')) nested.push(p);
        else if (tag === 'H' || tag === '?') files.add(p);
        if (tag === '?' || tag === 'C') check.push(p);
      }
      if (files.size > limits.maxFiles)
        return {
          ok: false,
          reason: `the workspace has ${files.size} files, over journal.max_files (${limits.maxFiles})`,
        };
      const big = await this.firstLarger(check, limits.maxFileBytes);
      if (big)
        return {
          ok: false,
          reason: `${big.path} is ${big.size} bytes, over journal.max_file_bytes (${limits.maxFileBytes})`,
        };
      if (left() <= 0) return { ok: false, reason: timedOut };
      const specs = ['.', ...nested.map((n) => `:(exclude,literal)${n}`)].join('\0');
      await shadowGit(this.place, ['add', '-A', '--pathspec-from-file=-', '--pathspec-file-nul'], {
        input: `${specs}\0`,
        timeoutMs: left(),
      });
      const tree = (await shadowGit(this.place, ['write-tree'], { timeoutMs: left() })).toString().trim();
      return { ok: true, tree, files: files.size };
    } catch (e) {
      if (e instanceof Error && 'timedOut' in e && e.timedOut === true)
        return { ok: false, reason: timedOut };
      return { ok: false, reason: e instanceof Error ? e.message : String(e) };
    }
  }

  private async firstLarger(
    paths: string[],
    max: number,
  ): Promise<{ path: string; size: number } | undefined> {
    for (let i = 0; i < paths.length; i += STAT_BATCH) {
      const sizes = await Promise.all(
        paths.slice(i, i + STAT_BATCH).map((p) =>
          fsp.lstat(path.join(this.place.workTree, p)).then(
            (s) => (s.isFile() ? s.size : 0),
            () => 0,
          ),
        ),
      );
      const at = sizes.findIndex((s) => s > max);
      if (at >= 0) return { path: paths[i + at]!, size: sizes[at]! };
    }
    return undefined;
  }

  /** The files that differ between two trees (nested repositories left out). */
  async changes(before: string, after: string): Promise<TreeChange[]> {
    if (before === after) return [];
    const out = zFields(
      await shadowGit(this.place, ['diff-tree', '-r', '-z', '--no-renames', before, after]),
    );
    const changes: TreeChange[] = [];
    for (let i = 0; i + 1 < out.length; i += 2) {
      const [srcMode, dstMode, srcBlob, dstBlob] = out[i]!.slice(1).split(' ');
      if (srcMode === GITLINK || dstMode === GITLINK) continue;
      const gone = (blob: string | undefined): boolean => blob === undefined || ZERO.test(blob);
      changes.push({
        path: out[i + 1]!,
        beforeBlob: gone(srcBlob) ? null : srcBlob!,
        afterBlob: gone(dstBlob) ? null : dstBlob!,
        beforeMode: gone(srcBlob) ? null : srcMode!,
        afterMode: gone(dstBlob) ? null : dstMode!,
      });
    }
    return changes;
  }

  /** The contents of these blobs (one `cat-file --batch`). */
  async blobs(ids: readonly string[]): Promise<Map<string, Buffer>> {
    const unique = [...new Set(ids)];
    const found = new Map<string, Buffer>();
    if (unique.length === 0) return found;
    const out = await shadowGit(this.place, ['cat-file', '--batch'], { input: `${unique.join('\n')}\n` });
    let at = 0;
    while (at < out.length) {
      const eol = out.indexOf(0x0a, at);
      if (eol < 0) break;
      const [id, type, size] = out.subarray(at, eol).toString().split(' ');
      if (type === 'missing' || size === undefined) throw new Error(`the journal lost blob ${id}`);
      const n = Number(size);
      found.set(id!, Buffer.from(out.subarray(eol + 1, eol + 1 + n)));
      at = eol + 1 + n + 1;
    }
    return found;
  }

  /** The unified diff between two trees (no external diff or textconv program runs). */
  async diff(before: string, after: string): Promise<string> {
    if (before === after) return '';
    const out = await shadowGit(this.place, [
      'diff-tree',
      '-p',
      '-r',
      '--no-renames',
      '--no-ext-diff',
      '--no-textconv',
      '--ignore-submodules',
      before,
      after,
    ]);
    return out.toString('utf8');
  }
}
