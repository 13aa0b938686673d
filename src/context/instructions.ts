/**
 * Discovery of instruction files (AGENTS.md) for the builder's `instructions`
 * input: the user's global file in Tea's data home first, then project files from
 * the outermost directory to the innermost (the closest file comes last and wins
 * on conflicts). Missing, unreadable and binary files are skipped silently.
 */
import { close, fstat, open, read, realpath as realpathCb, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

// node:fs's callback API, promisified: node:fs/promises (and the stream and readline
// modules it loads, ~2 ms) stays out of a prompt's path.
const realpath = promisify(realpathCb);
const openFile = promisify(open);
const statFd = promisify(fstat);
const readFd = promisify(read);
const closeFd = promisify(close);

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

/**
 * Loads the instruction files in the order they should be shown to the model.
 * Results are cached per directory and caps, and reused while every path the
 * discovery looked at (each `.git` probe, each candidate file) is unchanged, so a
 * server opening many sessions in one workspace does not re-read them each time.
 */
export async function loadInstructions(opts: LoadInstructionsOptions): Promise<Instruction[]> {
  const perFile = positive(opts.maxBytesPerFile, DEFAULT_MAX_BYTES_PER_FILE, 'maxBytesPerFile');
  const total = positive(opts.maxTotalBytes, DEFAULT_MAX_TOTAL_BYTES, 'maxTotalBytes');
  const home = path.resolve(opts.home);
  const cwd = path.resolve(opts.cwd);
  const key = `${perFile}\0${total}\0${home}\0${cwd}`;
  const cached = cache.get(key);
  if (cached?.probes.every((p) => signature(p.path, p.kind) === p.signature)) {
    return (await cached.list).map(copyInstruction);
  }
  // Signatures are taken before reading, so a change during the read invalidates the entry;
  // the pending read is cached at once, so sessions opened together share it.
  const { files, gitProbes } = projectFiles(cwd);
  const candidates = [path.join(home, INSTRUCTION_FILE), ...files];
  const probes: Probe[] = [
    ...gitProbes.map((p) => probe(p, 'exists')),
    ...candidates.map((p) => probe(p, 'file')),
  ];
  const list = readCandidates(candidates, perFile, total);
  cache.delete(key);
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value ?? '');
  const entry = { list, probes };
  cache.set(key, entry);
  list.catch(() => {
    if (cache.get(key) === entry) cache.delete(key);
  });
  return (await list).map(copyInstruction);
}

async function readCandidates(candidates: string[], perFile: number, total: number): Promise<Instruction[]> {
  let remaining = total;
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

/** A path the discovery depended on and its state at the time. */
interface Probe {
  path: string;
  kind: 'exists' | 'file';
  signature: string;
}

const MAX_CACHED = 64;
const cache = new Map<string, { list: Promise<Instruction[]>; probes: Probe[] }>();

function probe(p: string, kind: Probe['kind']): Probe {
  return { path: p, kind, signature: signature(p, kind) };
}

/** What a probe saw: existence for `.git`, identity, size, times and mode for a candidate file. */
function signature(p: string, kind: Probe['kind']): string {
  let info: ReturnType<typeof statSync>;
  try {
    info = statSync(p, { throwIfNoEntry: false });
  } catch {
    return 'error';
  }
  if (info === undefined) return 'missing';
  if (kind === 'exists') return 'present';
  return `${info.dev}:${info.ino}:${info.mode}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
}

function copyInstruction(item: Instruction): Instruction {
  return item.skipped ? { ...item, skipped: [...item.skipped] } : { ...item };
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
 * filesystem root when there is none; outermost first. Also returns the `.git`
 * paths it probed. Synchronous: a few `stat` calls are cheaper than the thread
 * pool round trips of their async versions.
 */
function projectFiles(cwd: string): { files: string[]; gitProbes: string[] } {
  const dirs: string[] = [];
  const gitProbes: string[] = [];
  let dir = cwd;
  for (;;) {
    dirs.push(dir);
    const git = path.join(dir, '.git');
    gitProbes.push(git);
    if (signature(git, 'exists') === 'present') break;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const files = dirs
    .reverse()
    .flatMap((d) => [path.join(d, INSTRUCTION_FILE), path.join(d, '.tea', INSTRUCTION_FILE)]);
  return { files, gitProbes };
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
  let fd: number | undefined;
  try {
    fd = await openFile(file, 'r');
    const info = await statFd(fd);
    if (!info.isFile()) return undefined;
    // Read a few extra bytes so a cap landing inside a character can be detected as such.
    const want = Math.min(info.size, limit + 4);
    const buffer = Buffer.alloc(want);
    const bytesRead = want === 0 ? 0 : (await readFd(fd, buffer, 0, want, 0)).bytesRead;
    const bytes = buffer.subarray(0, bytesRead);
    if (bytes.includes(0)) return undefined;
    const kept = bytesRead > limit ? bytes.subarray(0, utf8Boundary(bytes, limit)) : bytes;
    const text = new TextDecoder('utf-8', { fatal: true }).decode(kept);
    return { text, keptBytes: kept.length, moreBytes: Math.max(0, info.size - kept.length) };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) await closeFd(fd).catch(() => undefined);
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
