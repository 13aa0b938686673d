/**
 * The journal's fast path for the file tools that name the one file they change
 * (write_file, append_file, edit_file): that file's state is read and its bytes
 * stored as a loose object of the shadow repository directly — no git process, no
 * walk of the workspace. A whole snapshot (shadow.ts) is for the calls that may change
 * anything (bash, user tools, sub-agents).
 */
// fs.promises is reached at call time: a run that journals nothing never loads it.
import { promises as fsp } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { realpathLoose } from '../../tools/workspace.js';
import { randomUUID } from '../../util/random-id.js';
import { blobId, errCode, type FileSide, unsafePath } from './workspace.js';

const lazyRequire = createRequire(import.meta.url);

/** A file's side as captured: stored in the repository, or why the round cannot keep it. */
export type Captured = { ok: true; side: FileSide } | { ok: false; reason: string };

/**
 * `abs` as a path relative to the workspace (both with symbolic links resolved the way the
 * file tools resolve their target: tools/workspace.ts realpathLoose), or undefined when it
 * is outside the workspace or not a path the journal may keep (a `.git` segment, `..`).
 */
export function workspacePath(realRoot: string, abs: string): string | undefined {
  let real: string;
  try {
    real = realpathLoose(abs);
  } catch {
    return undefined; // a loop of links: the tool refuses it too
  }
  const rel = path.relative(realRoot, real).split(path.sep).join('/');
  if (rel === '' || rel.startsWith('../') || rel === '..' || path.isAbsolute(rel)) return undefined;
  return unsafePath(rel) ? undefined : rel;
}

/**
 * The state of `rel` in the workspace now, its bytes stored in `gitDir` as a loose
 * object (a file, or a symbolic link's target), or absent. A directory or special file
 * is kept as absent-or-refused by the caller: `reason` says why.
 */
export async function capture(
  root: string,
  gitDir: string,
  rel: string,
  maxFileBytes: number,
): Promise<Captured> {
  const full = path.join(root, rel);
  let s: Awaited<ReturnType<typeof fsp.lstat>>;
  try {
    s = await fsp.lstat(full);
  } catch (e) {
    if (errCode(e) === 'ENOENT' || errCode(e) === 'ENOTDIR')
      return { ok: true, side: { blob: null, mode: null } };
    throw e;
  }
  if (s.isSymbolicLink()) {
    const target = await fsp.readlink(full, { encoding: 'buffer' });
    return { ok: true, side: { blob: await storeBlob(gitDir, target), mode: '120000' } };
  }
  if (!s.isFile()) return { ok: false, reason: `${rel} is not a regular file` };
  if (s.size > maxFileBytes)
    return { ok: false, reason: `${rel} is ${s.size} bytes, over journal.max_file_bytes (${maxFileBytes})` };
  const data = await fsp.readFile(full);
  return {
    ok: true,
    side: { blob: await storeBlob(gitDir, data), mode: s.mode & 0o100 ? '100755' : '100644' },
  };
}

/**
 * Stores `data` as a blob in the repository at `gitDir` (a zlib-deflated loose object,
 * as git writes one: written aside, then renamed into place) unless it is there already.
 * Returns its id.
 */
export async function storeBlob(gitDir: string, data: Buffer): Promise<string> {
  const id = blobId(data);
  const dir = path.join(gitDir, 'objects', id.slice(0, 2));
  const file = path.join(dir, id.slice(2));
  const present = await fsp.lstat(file).then(
    () => true,
    () => false,
  );
  if (present) return id;
  const zlib = lazyRequire('node:zlib') as typeof import('node:zlib');
  const body = zlib.deflateSync(Buffer.concat([Buffer.from(`blob ${data.length}\0`), data]));
  await fsp.mkdir(dir, { recursive: true });
  const temp = path.join(dir, `.tmp-${randomUUID().slice(0, 8)}`);
  await fsp.writeFile(temp, body, { mode: 0o444 });
  await fsp.rename(temp, file);
  return id;
}
