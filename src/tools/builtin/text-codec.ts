/**
 * Reading and writing text files without losing a byte. UTF-8 (with or without a
 * byte order mark) and UTF-16 LE/BE with a byte order mark are decoded to strings;
 * a byte that is not part of valid UTF-8 becomes a lone surrogate U+DC80–U+DCFF
 * ("surrogate escape"), which no valid text contains, and is written back as the
 * same byte. So an edit changes only the bytes it replaces, whatever the rest is.
 */
import { isAscii, isUtf8 } from 'node:buffer';
import { open } from 'node:fs/promises';
import { type ToolContext, ToolError } from '../types.js';
import { writeFileAtomic } from './atomic-write.js';
import { binaryFileError, formatSize, lineAt, looksBinary } from './text.js';

export type FileEncoding = 'utf-8' | 'utf-8 with BOM' | 'UTF-16 LE' | 'UTF-16 BE';

export interface DecodedText {
  /** The text, undecodable bytes as U+DC80–U+DCFF, without the byte order mark. */
  text: string;
  encoding: FileEncoding;
  /** UTF-8 files: how many bytes are not valid UTF-8 (kept as escapes in `text`). */
  invalidBytes: number;
  /** UTF-8 files: whether any valid multi-byte sequence was seen (the file is UTF-8 with a few bad bytes). */
  multibyte: boolean;
  /** The bytes read from disk (absent for an editor's text). */
  bytes?: Buffer;
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** One escaped (undecodable) byte, not preceded by a high surrogate. */
const ESCAPE = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;
const ESCAPES = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]+/g;

/** True when `text` holds escaped bytes. */
export function hasEscapes(text: string): boolean {
  return ESCAPE.test(text);
}

/** The text as a model should see it: escaped bytes as U+FFFD, as read_file shows them. */
export function displayText(text: string): string {
  return hasEscapes(text) ? text.replace(ESCAPES, (run) => '\uFFFD'.repeat(run.length)) : text;
}

/** The UTF-16 byte order of a byte order mark at the start, if there is one (not UTF-32's). */
export function utf16Bom(head: Uint8Array): 'UTF-16 LE' | 'UTF-16 BE' | undefined {
  if (head[0] === 0xff && head[1] === 0xfe) return head[2] === 0 && head[3] === 0 ? undefined : 'UTF-16 LE';
  if (head[0] === 0xfe && head[1] === 0xff) return 'UTF-16 BE';
  return undefined;
}

/** Length of the valid UTF-8 sequence of 2–4 bytes starting at `i`, or 0 (Unicode table 3-7). */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i] ?? 0;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => {
    const b = bytes[i + k];
    return b !== undefined && b >= lo && b <= hi;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const lo = b0 === 0xe0 ? 0xa0 : 0x80;
    const hi = b0 === 0xed ? 0x9f : 0xbf;
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const lo = b0 === 0xf0 ? 0x90 : 0x80;
    const hi = b0 === 0xf4 ? 0x8f : 0xbf;
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/** Decodes UTF-8, turning every byte that is not part of a valid sequence into an escape. */
function decodeUtf8Escaped(bytes: Buffer): { text: string; invalid: number; multibyte: boolean } {
  if (isUtf8(bytes)) return { text: bytes.toString('utf8'), invalid: 0, multibyte: !isAscii(bytes) };
  const pieces: string[] = [];
  let invalid = 0;
  let multibyte = false;
  let runStart = 0;
  let i = 0;
  while (i < bytes.length) {
    const b = bytes[i] ?? 0;
    if (b < 0x80) {
      i++;
      continue;
    }
    const n = sequenceLength(bytes, i);
    if (n > 0) {
      multibyte = true;
      i += n;
      continue;
    }
    pieces.push(bytes.toString('utf8', runStart, i), String.fromCharCode(0xdc00 + b));
    invalid++;
    i++;
    runStart = i;
  }
  pieces.push(bytes.toString('utf8', runStart));
  return { text: pieces.join(''), invalid, multibyte };
}

/** Decodes a file's bytes losslessly (see the module comment). */
export function decodeText(bytes: Buffer, shown: string): DecodedText {
  const utf16 = utf16Bom(bytes);
  if (utf16 !== undefined) {
    if (bytes.length % 2 !== 0) {
      throw new ToolError(
        `${shown} starts with a ${utf16} byte order mark but has an odd number of bytes, so it is not valid ${utf16}`,
        'inspect it with bash, e.g. `file <path>` or `xxd <path> | tail`',
      );
    }
    const body = Buffer.from(bytes.subarray(2));
    if (utf16 === 'UTF-16 BE') body.swap16();
    return { text: body.toString('utf16le'), encoding: utf16, invalidBytes: 0, multibyte: true };
  }
  const bom = bytes.subarray(0, 3).equals(UTF8_BOM);
  const { text, invalid, multibyte } = decodeUtf8Escaped(bom ? bytes.subarray(3) : bytes);
  return { text, encoding: bom ? 'utf-8 with BOM' : 'utf-8', invalidBytes: invalid, multibyte };
}

/**
 * Reads a text file that is about to be changed: refused past `maxBytes` and when it is
 * binary (NUL bytes, unless it is UTF-16 with a byte order mark), decoded losslessly.
 * Through an editor's file system (`ctx.fs`) the editor's text is used as it is.
 */
export async function readEditable(
  ctx: Pick<ToolContext, 'fs' | 'signal'>,
  abs: string,
  shown: string,
  limit: { maxBytes: number; tool: string },
): Promise<DecodedText> {
  if (ctx.fs) {
    return { text: await ctx.fs.readTextFile(abs), encoding: 'utf-8', invalidBytes: 0, multibyte: true };
  }
  const handle = await open(abs, 'r');
  let bytes: Buffer;
  try {
    const { size } = await handle.stat();
    if (size > limit.maxBytes) throw tooLargeToEdit(shown, size, limit.maxBytes, limit.tool);
    bytes = await handle.readFile({ signal: ctx.signal });
  } finally {
    await handle.close();
  }
  if (utf16Bom(bytes) === undefined && looksBinary(bytes)) throw binaryFileError(shown);
  return { ...decodeText(bytes, shown), bytes };
}

/** Writes changed text back in the encoding it was read with: atomically, or through the editor. */
export function writeEdited(
  ctx: Pick<ToolContext, 'fs' | 'signal'>,
  abs: string,
  text: string,
  original: DecodedText,
  shown: string,
): Promise<void> {
  if (ctx.fs) return ctx.fs.writeTextFile(abs, text);
  return writeFileAtomic(abs, encodeText(text, original, shown), { signal: ctx.signal });
}

/** UTF-8 of `text`, escapes written back as their bytes. */
function encodeUtf8Escaped(text: string): Buffer {
  if (!hasEscapes(text)) return Buffer.from(text, 'utf8');
  const parts: Buffer[] = [];
  let last = 0;
  for (const match of text.matchAll(ESCAPES)) {
    parts.push(Buffer.from(text.slice(last, match.index), 'utf8'));
    parts.push(Buffer.from(Array.from(match[0], (c) => c.charCodeAt(0) - 0xdc00)));
    last = match.index + match[0].length;
  }
  parts.push(Buffer.from(text.slice(last), 'utf8'));
  return Buffer.concat(parts);
}

/**
 * The file's bytes for `text`, in the encoding `original` was read with. A file that
 * is not UTF-8 at all (bytes such as Latin-1's, and no UTF-8 sequence anywhere) only
 * takes new ASCII text: anything else would mix two encodings, so it is refused.
 */
export function encodeText(text: string, original: DecodedText, shown: string): Buffer {
  switch (original.encoding) {
    case 'UTF-16 LE':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    case 'UTF-16 BE':
      return Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(text, 'utf16le').swap16()]);
    case 'utf-8 with BOM':
      return Buffer.concat([UTF8_BOM, encodeUtf8Escaped(text)]);
    case 'utf-8':
      if (isLegacy8Bit(original)) checkAscii(text, original, shown);
      return encodeUtf8Escaped(text);
  }
}

/** Not UTF-8 and nothing in it looks like UTF-8: an 8-bit encoding such as Latin-1 or Windows-1252. */
export function isLegacy8Bit(decoded: DecodedText): boolean {
  return decoded.encoding === 'utf-8' && decoded.invalidBytes > 0 && !decoded.multibyte;
}

/** Where the first undecodable byte is, for messages: `byte 0xE9 on line 3`. */
export function firstBadByte(text: string): string {
  const match = ESCAPE.exec(text);
  if (match === null) return 'a byte';
  const byte = (text.charCodeAt(match.index) - 0xdc00).toString(16).toUpperCase();
  return `byte 0x${byte} on line ${lineAt(text, match.index)}`;
}

function checkAscii(text: string, original: DecodedText, shown: string): void {
  let foreign: string | undefined;
  for (const char of text.replace(ESCAPES, '')) {
    if ((char.codePointAt(0) ?? 0) > 0x7f) {
      foreign = char;
      break;
    }
  }
  if (foreign === undefined) return;
  throw new ToolError(
    `${shown} is not UTF-8 (${firstBadByte(original.text)} is not valid UTF-8; it looks like an 8-bit encoding such as Latin-1 or Windows-1252), ` +
      `so the new text's non-ASCII character "${foreign}" cannot be written in the file's own encoding; nothing was written`,
    'use only ASCII in the new text (the bytes already in the file are kept as they are), ' +
      'or convert the file to UTF-8 first with bash, e.g. `iconv -f latin1 -t utf-8 <path> > tmp && mv tmp <path>`',
  );
}

/** The error for a file too large for the in-memory edit tools. */
export function tooLargeToEdit(shown: string, size: number, limit: number, tool: string): ToolError {
  return new ToolError(
    `${shown} is ${formatSize(size)}; ${tool} only changes files up to ${formatSize(limit)} (it holds the whole file in memory); nothing was written`,
    'change it with bash instead (e.g. `sed -i` or a short script that streams the file), and read parts of it with read_file offset/limit',
  );
}
