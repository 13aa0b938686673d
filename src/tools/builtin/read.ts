/** read_file (text and images) and read_many_files. */
import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { pipeline, type Readable, Transform } from 'node:stream';
import * as z from 'zod';
import { defineTool, type Tool, type ToolContext, ToolError, type ToolResult } from '../types.js';
import { displayPath } from '../workspace.js';
import type { ResolvedFileOptions } from './file-options.js';
import { detectImageType, type ImageMediaType, imageSize } from './image.js';
import {
  BINARY_SNIFF_BYTES,
  binaryFileError,
  clipLine,
  formatSize,
  looksBinary,
  plural,
  readHead,
  resolveFile,
  splitLines,
} from './text.js';
import { utf16Bom } from './text-codec.js';

interface LineWindow {
  offset: number;
  limit: number;
  /** Stop before the formatted lines pass this many characters (at least one line is kept). */
  maxChars: number;
  maxLineChars: number;
}

interface NumberedLines {
  shown: string[];
  /** Lines in the whole file. */
  total: number;
  /** Number of the last line shown (offset - 1 when none). */
  last: number;
}

/** Swaps each pair of bytes (UTF-16 BE to LE), carrying an odd byte to the next chunk. */
function swapBytes(): Transform {
  let carry: Buffer | undefined;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const bytes = carry ? Buffer.concat([carry, chunk]) : chunk;
      const even = bytes.length - (bytes.length % 2);
      carry = even < bytes.length ? Buffer.from(bytes.subarray(even)) : undefined;
      done(null, Buffer.from(bytes.subarray(0, even)).swap16());
    },
  });
}

/** Lines without the UTF-8 byte order mark the first one may start with. */
async function* withoutBom(lines: AsyncIterable<string>): AsyncIterable<string> {
  let first = true;
  for await (const line of lines) {
    yield first && line.startsWith('\uFEFF') ? line.slice(1) : line;
    first = false;
  }
}

/** True when `head` (a file's first bytes) is binary: NUL bytes, and no UTF-16 byte order mark. */
function headIsBinary(head: Uint8Array): boolean {
  return utf16Bom(head) === undefined && looksBinary(head);
}

/** A file's lines streamed from disk: UTF-8, or UTF-16 when it starts with a byte order mark. */
function diskLines(abs: string, signal: AbortSignal, head: Uint8Array): AsyncIterable<string> {
  const utf16 = utf16Bom(head);
  let input: Readable;
  if (utf16 === 'UTF-16 LE') input = createReadStream(abs, { start: 2, encoding: 'utf16le', signal });
  else if (utf16 === 'UTF-16 BE') {
    input = pipeline(createReadStream(abs, { start: 2, signal }), swapBytes(), () => undefined);
    input.setEncoding('utf16le');
  } else input = createReadStream(abs, { encoding: 'utf8', signal });
  return withoutBom(createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY }));
}

/** Keeps the lines of the window formatted like `cat -n`. */
async function numberedLines(
  lines: AsyncIterable<string> | Iterable<string>,
  w: LineWindow,
): Promise<NumberedLines> {
  const shown: string[] = [];
  let chars = 0;
  let total = 0;
  let last = w.offset - 1;
  let full = false;
  for await (const line of lines) {
    total++;
    if (total < w.offset || full) continue;
    const formatted = `${String(total).padStart(6)}\t${clipLine(line, w.maxLineChars)}`;
    if (shown.length >= w.limit || (shown.length > 0 && chars + formatted.length + 1 > w.maxChars)) {
      full = true;
      continue;
    }
    shown.push(formatted);
    chars += formatted.length + 1;
    last = total;
  }
  return { shown, total, last };
}

async function readImage(
  ctx: ToolContext,
  abs: string,
  type: ImageMediaType,
  maxBytes: number,
): Promise<ToolResult> {
  const shown = displayPath(ctx, abs);
  const { size } = await stat(abs);
  if (size > maxBytes) {
    throw new ToolError(
      `${shown} is a ${formatSize(size)} image; images over ${formatSize(maxBytes)} are not returned`,
      'use a smaller image, or resize it first (e.g. with ImageMagick through bash)',
    );
  }
  const bytes = await readFile(abs, { signal: ctx.signal });
  const dims = imageSize(bytes, type);
  const label = dims ? `${dims.width}x${dims.height}, ` : '';
  return {
    output: `image ${shown} (${label}${plural(bytes.length, 'byte')})`,
    images: [{ type: 'image', mediaType: type, data: bytes.toString('base64') }],
  };
}

export function readFileTool(opts: ResolvedFileOptions): Tool {
  return defineTool({
    name: 'read_file',
    description: `Read a file as numbered lines (${opts.readDefaultLimit} from offset; a footer gives the next offset), or an image.`,
    parameters: z.object({
      path: z.string().describe('File path'),
      offset: z.number().int().min(1).optional().describe('1-based first line (default 1)'),
      limit: z.number().int().min(1).optional().describe(`Max lines (default ${opts.readDefaultLimit})`),
    }),
    category: 'files',
    keywords: [
      'read',
      'file',
      'open',
      'view',
      'cat',
      'show',
      'contents',
      'lines',
      'image',
      '读取',
      '查看',
      '文件',
    ],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 30_000,
    subject: (args) => args.path,
    async execute(args, ctx) {
      const abs = await resolveFile(ctx, args.path);
      const head = await readHead(abs, BINARY_SNIFF_BYTES);
      const image = detectImageType(head);
      if (image) return readImage(ctx, abs, image, opts.readImageMaxBytes);
      if (headIsBinary(head)) throw binaryFileError(args.path);
      const offset = args.offset ?? 1;
      const limit = args.limit ?? opts.readDefaultLimit;
      // Text comes from the editor's buffer when the client offers one (ctx.fs).
      const lines = ctx.fs
        ? splitLines(await ctx.fs.readTextFile(abs)).lines
        : diskLines(abs, ctx.signal, head);
      const { shown, total, last } = await numberedLines(lines, {
        offset,
        limit,
        maxChars: opts.readMaxChars,
        maxLineChars: opts.readMaxLineChars,
      });
      if (total === 0) return `(${args.path} is empty)`;
      if (offset > total) {
        throw new ToolError(
          `offset ${offset} is past the end of ${args.path}, which has ${plural(total, 'line')}`,
          `use an offset between 1 and ${total}`,
        );
      }
      const remaining = total - last;
      if (remaining > 0) {
        const why = shown.length < limit ? ' (output size limit reached)' : '';
        shown.push(`… ${plural(remaining, 'more line')}${why}; call again with offset=${last + 1}`);
      }
      return shown.join('\n');
    },
  });
}

/** One file of read_many_files: its header line and body, or why it could not be read. */
async function readOne(
  ctx: ToolContext,
  p: string,
  maxChars: number,
  opts: ResolvedFileOptions,
): Promise<{ text: string; ok: boolean }> {
  let abs: string;
  try {
    abs = await resolveFile(ctx, p);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { text: `==> ${p} <==\n[error] ${message}`, ok: false };
  }
  const shown = displayPath(ctx, abs);
  const head = await readHead(abs, BINARY_SNIFF_BYTES);
  if (detectImageType(head))
    return { text: `==> ${shown} <==\n(an image; use read_file to view it)`, ok: true };
  if (headIsBinary(head)) return { text: `==> ${shown} <==\n[error] binary file, not shown`, ok: false };
  const lines = await numberedLines(diskLines(abs, ctx.signal, head), {
    offset: 1,
    limit: Number.MAX_SAFE_INTEGER,
    maxChars,
    maxLineChars: opts.readMaxLineChars,
  });
  if (lines.total === 0) return { text: `==> ${shown} (empty) <==`, ok: true };
  const body = [...lines.shown];
  const rest = lines.total - lines.last;
  if (rest > 0) {
    body.push(
      `… ${plural(rest, 'more line')}; read_file ${shown} with offset=${lines.last + 1} for the rest`,
    );
  }
  return { text: `==> ${shown} (${plural(lines.total, 'line')}) <==\n${body.join('\n')}`, ok: true };
}

export function readManyFilesTool(opts: ResolvedFileOptions): Tool {
  return defineTool({
    name: 'read_many_files',
    description:
      'Read several small text files at once (at most 20), each under a `==> path <==` header with numbered ' +
      `lines; each file is cut after max_chars_per_file (default ${opts.readManyMaxCharsPerFile}).`,
    parameters: z.object({
      paths: z.array(z.string()).min(1).max(20).describe('Files to read (1-20)'),
      max_chars_per_file: z.number().int().min(100).optional().describe('Characters shown per file'),
    }),
    category: 'files',
    keywords: ['read', 'files', 'several', 'many', 'multiple', 'batch', 'cat', '读取', '多个文件'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 30_000,
    subject: (args) => args.paths.join(', '),
    async execute(args, ctx) {
      const perFile = args.max_chars_per_file ?? opts.readManyMaxCharsPerFile;
      const parts: string[] = [];
      const skipped: string[] = [];
      let used = 0;
      let failures = 0;
      for (const p of args.paths) {
        ctx.signal.throwIfAborted();
        const budget = Math.min(perFile, opts.readMaxChars - used);
        if (budget < 100) {
          skipped.push(p);
          continue;
        }
        const { text, ok } = await readOne(ctx, p, budget, opts);
        if (!ok) failures++;
        parts.push(text);
        used += text.length + 2;
      }
      if (skipped.length > 0) {
        parts.push(`(output budget reached; not shown: ${skipped.join(', ')}; read them in another call)`);
      }
      const output = parts.join('\n\n');
      return failures === args.paths.length ? { output, isError: true } : output;
    },
  });
}
