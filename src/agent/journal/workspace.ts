/**
 * Reading and writing journaled files in the workspace, safely: a stored path must be
 * relative, without `.`/`..` segments or a `.git` segment; no directory on the way may
 * be a symbolic link (undo never writes through one, nor outside the workspace); a file
 * is replaced by renaming a sibling temporary file over it, so a symlink put in its
 * place is replaced, never followed.
 */
// fs.promises is reached at call time: a run that journals nothing never loads it.
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { nodeCrypto } from '../../util/node-crypto.js';
import { randomUUID } from '../../util/random-id.js';

/** One side of a journaled file: its blob and git mode, or absent (null blob). */
export interface FileSide {
  blob: string | null;
  mode: string | null;
}

/** What is at a path now, as git would record it; `other` names what blocks it. */
export type PathState =
  | { kind: 'absent' }
  | { kind: 'entry'; blob: string; mode: string }
  | { kind: 'other'; what: string };

/** Why a stored path may not be touched; undefined when it is safe. */
export function unsafePath(p: string): string | undefined {
  if (p === '' || p.includes('\0')) return 'an empty path or one with a NUL byte';
  if (path.posix.isAbsolute(p) || path.win32.isAbsolute(p) || p.includes('\\'))
    return 'an absolute path or one with a backslash';
  const parts = p.split('/');
  if (parts.some((s) => s === '' || s === '.' || s === '..'))
    return 'a path with an empty, `.` or `..` segment';
  if (parts.some((s) => s.toLowerCase() === '.git')) return 'a path inside a .git directory';
  return undefined;
}

/** The blob id git gives these bytes. */
export function blobId(data: Buffer): string {
  return nodeCrypto().createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex');
}

export function errCode(e: unknown): string | undefined {
  return e instanceof Error && 'code' in e ? String(e.code) : undefined;
}

/** Checks the directories between the workspace and `rel`'s parent: real directories or missing. */
async function parentsSafe(root: string, rel: string): Promise<string | undefined> {
  const parts = rel.split('/').slice(0, -1);
  let at = root;
  for (const part of parts) {
    at = path.join(at, part);
    try {
      const s = await fsp.lstat(at);
      if (s.isSymbolicLink()) return `its directory ${path.relative(root, at)} is now a symbolic link`;
      if (!s.isDirectory()) return `${path.relative(root, at)} is now a file, not a directory`;
    } catch (e) {
      if (errCode(e) === 'ENOENT') return undefined;
      throw e;
    }
  }
  return undefined;
}

/** What is at `rel` in the workspace now. */
export async function stateOf(root: string, rel: string): Promise<PathState> {
  const bad = await parentsSafe(root, rel);
  if (bad) return { kind: 'other', what: bad };
  const full = path.join(root, rel);
  let s: Awaited<ReturnType<typeof fsp.lstat>>;
  try {
    s = await fsp.lstat(full);
  } catch (e) {
    if (errCode(e) === 'ENOENT' || errCode(e) === 'ENOTDIR') return { kind: 'absent' };
    throw e;
  }
  if (s.isSymbolicLink()) {
    const target = await fsp.readlink(full, { encoding: 'buffer' });
    return { kind: 'entry', blob: blobId(target), mode: '120000' };
  }
  if (s.isDirectory()) return { kind: 'other', what: 'it is now a directory' };
  if (!s.isFile()) return { kind: 'other', what: 'it is now a special file' };
  const mode = s.mode & 0o100 ? '100755' : '100644';
  return { kind: 'entry', blob: blobId(await fsp.readFile(full)), mode };
}

/** Whether the path holds exactly this side (the same bytes and mode, or is absent). */
export function matches(state: PathState, side: FileSide): boolean {
  if (side.blob === null) return state.kind === 'absent';
  return state.kind === 'entry' && state.blob === side.blob && state.mode === side.mode;
}

/** Puts one side in place: writes the bytes with the mode, or removes the file. */
export async function putSide(
  root: string,
  rel: string,
  side: FileSide,
  data: Buffer | undefined,
): Promise<void> {
  const bad = await parentsSafe(root, rel);
  if (bad) throw new Error(`${rel}: ${bad}`);
  const full = path.join(root, rel);
  if (side.blob === null) {
    await fsp.unlink(full).catch((e: unknown) => {
      if (errCode(e) !== 'ENOENT') throw e;
    });
    return;
  }
  if (data === undefined) throw new Error(`${rel}: the journal has no content for it`);
  await fsp.mkdir(path.dirname(full), { recursive: true });
  const temp = path.join(path.dirname(full), `.${path.basename(full)}.tea-undo-${randomUUID().slice(0, 8)}`);
  try {
    if (side.mode === '120000') await fsp.symlink(data, temp);
    else {
      await fsp.writeFile(temp, data, { flag: 'wx', mode: 0o600 });
      await fsp.chmod(temp, side.mode === '100755' ? 0o755 : 0o644);
    }
    await fsp.rename(temp, full);
  } catch (e) {
    await fsp.rm(temp, { force: true });
    throw e;
  }
}
