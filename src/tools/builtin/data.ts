/**
 * The data family: arithmetic, JSON queries, hashes, encodings and UUIDs. Everything
 * here is pure computation except reading a workspace file for json_query and hash_text.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import * as z from 'zod';
import { HINTS } from '../hints.js';
import { defineTool, type Tool, ToolError } from '../types.js';
import { displayPath, resolvePath } from '../workspace.js';
import { calculateTool } from './data-calc.js';
import { jsonQueryTool } from './data-json.js';
import { formatSize, plural } from './text.js';

export interface DataToolOptions {
  /** json_query: largest file it reads (default 20 MB). */
  jsonMaxFileBytes?: number;
}

const HASH_ALGORITHMS = ['sha256', 'sha1', 'md5', 'sha512'] as const;
export const UUID_MAX_COUNT = 20;

function hashTextTool(): Tool {
  return defineTool({
    name: 'hash_text',
    description:
      'Compute the hex digest (sha256, sha1, md5 or sha512) of a text (UTF-8) or of a workspace file, e.g. ' +
      'to compare files or verify a download checksum.',
    parameters: z.object({
      text: z.string().optional().describe('Text to hash'),
      path: z.string().optional().describe('Or: a file in the workspace'),
      algorithm: z.enum(HASH_ALGORITHMS).optional().describe('Default sha256'),
    }),
    category: 'data',
    keywords: ['hash', 'checksum', 'sha256', 'sha1', 'md5', 'digest', 'verify', '哈希', '校验'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 120_000,
    subject: (args) => args.path ?? '(text)',
    async execute(args, ctx) {
      if ((args.text === undefined) === (args.path === undefined)) {
        throw new ToolError('Pass exactly one of `text` or `path`', 'e.g. {"path": "dist/app.js"}');
      }
      const algorithm = args.algorithm ?? 'sha256';
      const hash = createHash(algorithm);
      if (args.text !== undefined) {
        hash.update(args.text, 'utf8');
        const bytes = Buffer.byteLength(args.text, 'utf8');
        return `${algorithm} of the text (${plural(bytes, 'byte')}, UTF-8): ${hash.digest('hex')}`;
      }
      const abs = resolvePath(ctx, args.path ?? '', { mustExist: true });
      const info = await stat(abs);
      if (info.isDirectory()) throw new ToolError(`${args.path} is a directory, not a file`, HINTS.EISDIR);
      for await (const chunk of createReadStream(abs, { signal: ctx.signal })) hash.update(chunk as Buffer);
      return `${algorithm} of ${displayPath(ctx, abs)} (${formatSize(info.size)}): ${hash.digest('hex')}`;
    },
  });
}

const ENCODE_OPS = [
  'base64_encode',
  'base64_decode',
  'url_encode',
  'url_decode',
  'hex_encode',
  'hex_decode',
] as const;

/** Bytes as UTF-8 text, or a note with their hex when they are not valid UTF-8. */
function decodedText(bytes: Buffer): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const hex = bytes.toString('hex');
    const shown = hex.length > 2000 ? `${hex.slice(0, 2000)}…` : hex;
    return `(not UTF-8 text; ${plural(bytes.length, 'byte')} as hex: ${shown})`;
  }
}

function decodeBase64(text: string): string {
  const compact = text.replace(/\s+/g, '');
  const bad = /[^A-Za-z0-9+/=_-]/.exec(compact);
  if (bad) {
    throw new ToolError(
      `Not base64: unexpected character "${bad[0]}" at position ${bad.index + 1}`,
      'base64 uses A-Z a-z 0-9 + / (or - _) and = padding',
    );
  }
  if (/=[^=]/.test(compact) || compact.replace(/=+$/, '').length % 4 === 1) {
    throw new ToolError('Not base64: the padding or length is wrong', 'check that the text was copied whole');
  }
  return decodedText(Buffer.from(compact.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
}

function decodeHex(text: string): string {
  const compact = text.replace(/\s+/g, '').replace(/^0x/i, '');
  const bad = /[^0-9a-fA-F]/.exec(compact);
  if (bad)
    throw new ToolError(
      `Not hex: unexpected character "${bad[0]}" at position ${bad.index + 1}`,
      'hex uses 0-9 and a-f',
    );
  if (compact.length % 2 !== 0) {
    throw new ToolError(`Not hex: odd number of digits (${compact.length})`, 'each byte is two hex digits');
  }
  return decodedText(Buffer.from(compact, 'hex'));
}

function decodeUrl(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    const bad = /%(?![0-9a-fA-F]{2})/.exec(text);
    const where = bad ? ` (a "%" at position ${bad.index + 1} is not followed by two hex digits)` : '';
    throw new ToolError(`Not valid URL encoding${where}`, 'percent escapes must be %XX and form UTF-8 text');
  }
}

export function encode(op: (typeof ENCODE_OPS)[number], text: string): string {
  switch (op) {
    case 'base64_encode':
      return Buffer.from(text, 'utf8').toString('base64');
    case 'base64_decode':
      return decodeBase64(text);
    case 'url_encode':
      return encodeURIComponent(text);
    case 'url_decode':
      return decodeUrl(text);
    case 'hex_encode':
      return Buffer.from(text, 'utf8').toString('hex');
    case 'hex_decode':
      return decodeHex(text);
  }
}

function encodeTextTool(): Tool {
  return defineTool({
    name: 'encode_text',
    description:
      'Encode or decode text: base64, URL (percent) encoding, or hex of the UTF-8 bytes. Decoded bytes that ' +
      'are not UTF-8 are shown as hex.',
    parameters: z.object({
      text: z.string().describe('The input text'),
      op: z.enum(ENCODE_OPS).describe('What to do'),
    }),
    category: 'data',
    keywords: ['encode', 'decode', 'base64', 'url', 'hex', 'escape', 'percent', '编码', '解码'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 10_000,
    subject: (args) => args.op,
    async execute(args) {
      return encode(args.op, args.text);
    },
  });
}

function uuidTool(): Tool {
  return defineTool({
    name: 'uuid',
    description: `Generate random (version 4) UUIDs, one per line, up to ${UUID_MAX_COUNT} at a time.`,
    parameters: z.object({
      count: z.number().int().min(1).max(UUID_MAX_COUNT).optional().describe('How many (default 1)'),
    }),
    category: 'data',
    keywords: ['uuid', 'guid', 'id', 'random', 'identifier', 'unique'],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 5000,
    async execute(args) {
      return Array.from({ length: args.count ?? 1 }, () => randomUUID()).join('\n');
    },
  });
}

/** calculate, json_query, hash_text, encode_text, uuid. */
export function dataTools(options: DataToolOptions = {}): Tool[] {
  const jsonMaxFileBytes = options.jsonMaxFileBytes ?? 20 * 1024 * 1024;
  return [calculateTool(), jsonQueryTool({ jsonMaxFileBytes }), hashTextTool(), encodeTextTool(), uuidTool()];
}
