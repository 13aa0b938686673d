/** Small helpers shared by the file and search tools. */
import { open, stat } from 'node:fs/promises';
import { HINTS } from '../hints.js';
import { type ToolContext, ToolError } from '../types.js';
import { type ResolveOptions, resolvePath } from '../workspace.js';

/** How many leading bytes are checked for NUL when deciding a file is binary. */
export const BINARY_SNIFF_BYTES = 8192;

/** True when the buffer's first 8 KB contain a NUL byte. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, BINARY_SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/** The first `bytes` bytes of a file (fewer when it is shorter). */
export async function readHead(path: string, bytes = BINARY_SNIFF_BYTES): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Reads the first 8 KB of a file and checks them for NUL bytes. */
export async function fileLooksBinary(path: string): Promise<boolean> {
  return looksBinary(await readHead(path));
}

/** The error for a binary file that a text tool was asked to read or change. */
export function binaryFileError(p: string): ToolError {
  return new ToolError(
    `${p} looks like a binary file (it has NUL bytes in the first 8 KB); only text files can be read or edited`,
    'inspect it with bash instead, e.g. `file <path>` or `xxd <path> | head`',
  );
}

/** Cuts a line longer than `max` characters and says how much was cut. */
export function clipLine(line: string, max: number): string {
  if (line.length <= max) return line;
  return `${line.slice(0, max)}… [line truncated, ${line.length - max} more chars]`;
}

/** 1-based line number of a character index. */
export function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** `12`, `12-14`, joined: a compact list of line ranges. */
export function formatRanges(ranges: ReadonlyArray<readonly [number, number]>): string {
  return ranges.map(([a, b]) => (a === b ? `${a}` : `${a}-${b}`)).join(', ');
}

export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** `1.2 KB`, `3.4 MB`: sizes as people read them. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}

/** Resolves `p` and checks it is an existing regular file. */
export async function resolveFile(
  ctx: ToolContext,
  p: string,
  opts: Pick<ResolveOptions, 'write'> = {},
): Promise<string> {
  const abs = resolvePath(ctx, p, { ...opts, mustExist: true });
  const info = await stat(abs);
  if (info.isDirectory()) throw new ToolError(`${p} is a directory, not a file`, HINTS.EISDIR);
  if (!info.isFile())
    throw new ToolError(`${p} is not a regular file`, 'pass the path of a regular text file');
  return abs;
}

/** Resolves `p` and checks it is an existing regular file that is not binary. */
export async function resolveTextFile(
  ctx: ToolContext,
  p: string,
  opts: Pick<ResolveOptions, 'write'> = {},
): Promise<string> {
  const abs = await resolveFile(ctx, p, opts);
  if (await fileLooksBinary(abs)) throw binaryFileError(p);
  return abs;
}

/** Number of lines in `text`; a final newline does not start another line. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  let lines = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines++;
  return text.endsWith('\n') ? lines : lines + 1;
}

/** A text split into lines, remembering each line's ending and the usual one. */
export interface SplitText {
  lines: string[];
  /** The ending after each line: '\r\n', '\n', or '' (a last line without one). */
  eols: string[];
  /** The file's usual line ending, for new lines: CRLF when at least as many lines end with it as with LF. */
  eol: '\n' | '\r\n';
  finalNewline: boolean;
}

/** Splits on LF or CRLF (a lone CR stays inside its line), keeping every line's own ending. */
export function splitLines(text: string): SplitText {
  const lines: string[] = [];
  const eols: string[] = [];
  let crlf = 0;
  let lf = 0;
  let start = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', start)) {
    const cr = i > start && text.charCodeAt(i - 1) === 13;
    lines.push(text.slice(start, cr ? i - 1 : i));
    eols.push(cr ? '\r\n' : '\n');
    if (cr) crlf++;
    else lf++;
    start = i + 1;
  }
  if (start < text.length) {
    lines.push(text.slice(start));
    eols.push('');
  }
  const eol = crlf > 0 && crlf >= lf ? '\r\n' : '\n';
  return { lines, eols, eol, finalNewline: lines.length > 0 && eols.at(-1) !== '' };
}

/**
 * Joins lines with their own endings (`eols[i]`; the usual `eol` where a line has
 * none but is not the last). The last line ends with a newline when `finalNewline`.
 */
export function joinLines(
  split: Pick<SplitText, 'lines' | 'eol' | 'finalNewline'> & { eols?: string[] },
): string {
  const { lines, eol } = split;
  if (lines.length === 0) return '';
  const parts: string[] = [];
  const last = lines.length - 1;
  for (let i = 0; i < last; i++) parts.push(lines[i] ?? '', split.eols?.[i] || eol);
  parts.push(lines[last] ?? '', split.finalNewline ? split.eols?.[last] || eol : '');
  return parts.join('');
}
