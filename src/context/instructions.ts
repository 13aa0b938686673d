/**
 * Discovery of instruction files (AGENTS.md) for the builder's `instructions`
 * input: the user's global file in Tea's data home first, then project files from
 * the outermost directory to the innermost (the closest file comes last and wins
 * on conflicts). Missing, unreadable and binary files are skipped silently.
 */
import { open, realpath, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface Instruction {
  /** Absolute path of the file; `''` for a note about skipped files. */
  path: string;
  text: string;
  /** The file was cut (per-file or total cap), or this is a note about skipped files. */
  truncated: boolean;
  /** On a note instruction: the files left out because the total cap was reached. */
  skipped?: string[];
}

export interface LoadInstructionsOptions {
  cwd: string;
  /** Tea's data home (e.g. `~/.tea`); its `AGENTS.md` is the user's global file. */
  home: string;
  /** Default 32 KB. */
  maxBytesPerFile?: number;
  /** Default 64 KB, across all files. */
  maxTotalBytes?: number;
}

export const INSTRUCTION_FILE = 'AGENTS.md';
export const DEFAULT_MAX_BYTES_PER_FILE = 32 * 1024;
export const DEFAULT_MAX_TOTAL_BYTES = 64 * 1024;

/** Loads the instruction files in the order they should be shown to the model. */
export async function loadInstructions(opts: LoadInstructionsOptions): Promise<Instruction[]> {
  const perFile = positive(opts.maxBytesPerFile, DEFAULT_MAX_BYTES_PER_FILE, 'maxBytesPerFile');
  const total = positive(opts.maxTotalBytes, DEFAULT_MAX_TOTAL_BYTES, 'maxTotalBytes');
  let remaining = total;
  const candidates = [
    path.join(path.resolve(opts.home), INSTRUCTION_FILE),
    ...(await projectFiles(opts.cwd)),
  ];

  const out: Instruction[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  for (const file of candidates) {
    const real = await realpath(file).catch(() => undefined);
    if (real === undefined || seen.has(real)) continue;
    seen.add(real);
    if (remaining <= 0) {
      // Only files that would have been loaded are worth listing.
      if ((await readText(file, 1)) !== undefined) skipped.push(file);
      continue;
    }
    const read = await readText(file, Math.min(perFile, remaining));
    if (read === undefined) continue;
    remaining -= read.keptBytes;
    const instruction: Instruction = { path: file, text: read.text, truncated: read.moreBytes > 0 };
    if (read.moreBytes > 0) instruction.text += `\n… [truncated: ${read.moreBytes} more bytes]`;
    out.push(instruction);
  }
  if (skipped.length > 0) {
    out.push({
      path: '',
      text: `[instruction files skipped: the total cap of ${formatBytes(total)} was reached: ${skipped.join(', ')}]`,
      truncated: true,
      skipped,
    });
  }
  return out;
}

/**
 * One string per file, `# <path>\n<text>`, for the builder's `instructions` input.
 * Paths inside `cwd` are shown relative to it, paths under the user's home as
 * `~/…`, others in full.
 */
export function formatInstructions(
  list: Instruction[],
  opts: { cwd?: string; userHome?: string } = {},
): string[] {
  const cwd = path.resolve(opts.cwd ?? process.cwd());
  const userHome = path.resolve(opts.userHome ?? os.homedir());
  return list.map((item) =>
    item.path === '' ? item.text : `# ${displayPath(item.path, cwd, userHome)}\n${item.text}`,
  );
}

function displayPath(file: string, cwd: string, userHome: string): string {
  const fromCwd = inside(cwd, file);
  if (fromCwd !== undefined) return fromCwd;
  const fromHome = inside(userHome, file);
  if (fromHome !== undefined) return `~/${fromHome}`;
  return file;
}

/** `file` relative to `dir` with `/` separators, or undefined when it is not inside `dir`. */
function inside(dir: string, file: string): string | undefined {
  const rel = path.relative(dir, file);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join('/');
}

/**
 * Project candidates: `AGENTS.md` and `.tea/AGENTS.md` in every directory from
 * `cwd` up to the git root (the first directory holding `.git`), or up to the
 * filesystem root when there is none; outermost first.
 */
async function projectFiles(cwd: string): Promise<string[]> {
  const dirs: string[] = [];
  let dir = path.resolve(cwd);
  for (;;) {
    dirs.push(dir);
    if (await exists(path.join(dir, '.git'))) break;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return dirs
    .reverse()
    .flatMap((d) => [path.join(d, INSTRUCTION_FILE), path.join(d, '.tea', INSTRUCTION_FILE)]);
}

async function exists(p: string): Promise<boolean> {
  return stat(p).then(
    () => true,
    () => false,
  );
}

interface ReadResult {
  text: string;
  keptBytes: number;
  /** Bytes of the file left out. */
  moreBytes: number;
}

/**
 * Reads at most `limit` bytes of a regular UTF-8 text file, cut on a character
 * boundary. Undefined when the file is missing, unreadable, not a regular file,
 * or not UTF-8 text (NUL bytes or invalid sequences).
 */
async function readText(file: string, limit: number): Promise<ReadResult | undefined> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, 'r');
    const info = await handle.stat();
    if (!info.isFile()) return undefined;
    // Read a few extra bytes so a cap landing inside a character can be detected as such.
    const want = Math.min(info.size, limit + 4);
    const buffer = Buffer.alloc(want);
    const { bytesRead } = await handle.read(buffer, 0, want, 0);
    const bytes = buffer.subarray(0, bytesRead);
    if (bytes.includes(0)) return undefined;
    const kept = bytesRead > limit ? bytes.subarray(0, utf8Boundary(bytes, limit)) : bytes;
    const text = new TextDecoder('utf-8', { fatal: true }).decode(kept);
    return { text, keptBytes: kept.length, moreBytes: Math.max(0, info.size - kept.length) };
  } catch {
    return undefined;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/** The largest index ≤ `limit` that does not fall inside a multi-byte UTF-8 sequence. */
function utf8Boundary(bytes: Uint8Array, limit: number): number {
  let end = limit;
  // Continuation bytes look like 10xxxxxx; step back to the lead byte of that character.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return end;
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`loadInstructions: ${name} must be a positive number of bytes, got ${value}`);
  return Math.floor(value);
}

function formatBytes(n: number): string {
  return n % 1024 === 0 ? `${n / 1024} KB` : `${n} bytes`;
}
