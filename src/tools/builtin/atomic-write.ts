/** Writing a file so readers see the old or the new content, never half of it. */
import { readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomHex } from '../../util/random-id.js';
import type { ToolContext } from '../types.js';

/** Marks the temporary files this module creates (tests look for leftovers by it). */
export const TEMP_MARKER = '.tea-tmp-';

/** A fresh temporary path next to `abs` (same directory, so a rename is atomic). */
export function tempPathFor(abs: string): string {
  return join(dirname(abs), `.${basename(abs)}${TEMP_MARKER}${randomHex(6)}`);
}

export interface AtomicWriteOptions {
  /** File mode for a new file; an existing file keeps its own mode. */
  mode?: number;
  signal?: AbortSignal;
}

/**
 * Writes `content` to a temporary file beside `abs` and renames it into place.
 * The temporary file is removed when anything fails.
 */
export async function writeFileAtomic(
  abs: string,
  content: string | Uint8Array,
  opts: AtomicWriteOptions = {},
): Promise<void> {
  const temp = await writeTemp(abs, content, opts);
  try {
    await rename(temp, abs);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/**
 * Writes `content` to a new temporary file beside `abs` (with `abs`'s mode when it
 * exists) and returns its path; the caller renames it into place or removes it.
 */
export async function writeTemp(
  abs: string,
  content: string | Uint8Array,
  opts: AtomicWriteOptions = {},
): Promise<string> {
  const existing = await stat(abs).catch(() => undefined);
  const mode = existing ? existing.mode & 0o7777 : (opts.mode ?? 0o666);
  const temp = tempPathFor(abs);
  try {
    const options = opts.signal ? { mode, flag: 'wx', signal: opts.signal } : { mode, flag: 'wx' };
    await writeFile(temp, content, options);
    return temp;
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** Reads a whole text file: through the client's view (`ctx.fs`, an editor's buffers) when present. */
export function readTextVia(ctx: Pick<ToolContext, 'fs' | 'signal'>, abs: string): Promise<string> {
  if (ctx.fs) return ctx.fs.readTextFile(abs);
  return readFile(abs, { encoding: 'utf8', signal: ctx.signal });
}

/** Writes a whole text file: through the client (`ctx.fs`) when present, else atomically on disk. */
export function writeTextVia(
  ctx: Pick<ToolContext, 'fs' | 'signal'>,
  abs: string,
  content: string,
): Promise<void> {
  if (ctx.fs) return ctx.fs.writeTextFile(abs, content);
  return writeFileAtomic(abs, content, { signal: ctx.signal });
}
