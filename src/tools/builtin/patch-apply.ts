/**
 * Working out, in memory, what a parsed patch does to each file: every path is
 * resolved and checked and every hunk located before anything is written.
 */
import { lstat, readFile, readlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type ToolContext, ToolError } from '../types.js';
import { displayPath, resolvePath } from '../workspace.js';
import type { HunkLine, PatchHunk, PatchOp } from './patch-parse.js';
import { countLines, joinLines, resolveFile, splitLines } from './text.js';
import { encodeText, hasEscapes, readEditable } from './text-codec.js';

/**
 * A file's content: bytes on disk (the old ones exactly as read, the new ones in the
 * file's own encoding), text when an editor's file system is used (ctx.fs).
 */
export type Content = string | Buffer;

/** One file's planned change. */
export type FileChange =
  | { kind: 'A'; abs: string; shown: string; after: string; added: number }
  | { kind: 'M'; abs: string; shown: string; before: Content; after: Content; added: number; removed: number }
  | {
      kind: 'R';
      abs: string;
      dest: string;
      shown: string;
      destShown: string;
      mode: number;
      before: Content;
      after: Content;
      added: number;
      removed: number;
    }
  | { kind: 'D'; abs: string; shown: string; before: Buffer; linkTarget?: string; removed: number };

type Compare = (a: string, b: string) => boolean;

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A patch line copied from read_file, which shows bytes that are not valid UTF-8 as
 * U+FFFD (�), against the file's line, where they are escapes (text-codec.ts).
 */
function sameButUndecodable(fileLine: string, patchLine: string): boolean {
  if (!patchLine.includes('\uFFFD') || !hasEscapes(fileLine)) return false;
  const pattern = patchLine
    .trimEnd()
    .split(/\uFFFD+/)
    .map(escapeRegExp)
    .join('(?:(?<![\\uD800-\\uDBFF])[\\uDC80-\\uDCFF])+');
  return new RegExp(`^${pattern}$`).test(fileLine.trimEnd());
}

/** Exact first, then ignoring trailing whitespace, then surrounding whitespace, then undecodable bytes. */
const PASSES: Compare[] = [
  (a, b) => a === b,
  (a, b) => a.trimEnd() === b.trimEnd(),
  (a, b) => a.trim() === b.trim(),
  (a, b) => a.trimEnd() === b.trimEnd() || sameButUndecodable(a, b),
];

function matchesAt(lines: readonly string[], want: readonly string[], at: number, same: Compare): boolean {
  return want.every((w, k) => same(lines[at + k] ?? '', w));
}

/** Index where `want` matches at or after `from` (only at the very end when `atEnd`), or -1. */
function seek(lines: readonly string[], want: readonly string[], from: number, atEnd: boolean): number {
  for (const same of PASSES) {
    if (atEnd) {
      const at = lines.length - want.length;
      if (at >= from && matchesAt(lines, want, at, same)) return at;
      continue;
    }
    for (let at = from; at + want.length <= lines.length; at++) {
      if (matchesAt(lines, want, at, same)) return at;
    }
  }
  return -1;
}

function seekAnchor(lines: readonly string[], anchor: string, from: number): number {
  for (const same of PASSES) {
    for (let at = from; at < lines.length; at++) if (same(lines[at] ?? '', anchor)) return at;
  }
  return -1;
}

const after = (line: number): string => (line > 0 ? ` after line ${line}` : '');

const oldSide = (ops: readonly HunkLine[]): string[] => ops.filter((o) => o.op !== '+').map((o) => o.text);

function hunkError(shown: string, hunk: PatchHunk, n: number, total: number, detail: string): ToolError {
  return new ToolError(
    `apply_patch changed nothing: ${shown}, hunk ${n} of ${total} (patch line ${hunk.line}) ${detail}`,
    `read_file ${shown} and resend the whole patch with the context and "-" lines copied exactly from the file`,
  );
}

function quoteLines(lines: readonly string[]): string {
  const shown = lines.slice(0, 12).map((l) => `  |${l}`);
  if (lines.length > 12) shown.push(`  … ${lines.length - 12} more lines`);
  return shown.join('\n');
}

/** A "+" line with U+FFFD where the file has undecodable bytes would not write them back. */
function checkAdded(hunk: PatchHunk, fail: (detail: string) => ToolError): void {
  const line = hunk.ops.find((o) => o.op === '+' && o.text.includes('\uFFFD'));
  if (line === undefined) return;
  throw fail(
    'adds a line with U+FFFD (�), which read_file shows for bytes of this file that are not valid UTF-8; ' +
      'writing it would replace those bytes. Keep lines holding such bytes as context (" ") lines, or change them with edit_file, which keeps the bytes',
  );
}

/** Applies the hunks of one Update File to `text`, in order; throws naming the hunk that fails. */
export function applyHunks(text: string, hunks: readonly PatchHunk[], shown: string): string {
  const file = splitLines(text);
  const undecodable = hasEscapes(text);
  const out: string[] = [];
  const eols: string[] = [];
  /**
   * Lines keep their own endings. An added line takes the ending of the line it replaces
   * (the last one removed just before it), else of the line it goes before.
   */
  let removedEol: string | undefined;
  const addedEol = (k: number): string => removedEol || file.eols[k] || eols.at(-1) || file.eol;
  const copy = (from: number, to: number): void => {
    out.push(...file.lines.slice(from, to));
    eols.push(...file.eols.slice(from, to));
  };
  let cursor = 0;
  hunks.forEach((hunk, index) => {
    const fail = (detail: string): ToolError => hunkError(shown, hunk, index + 1, hunks.length, detail);
    if (undecodable) checkAdded(hunk, fail);
    let from = cursor;
    if (hunk.anchor !== undefined) {
      const at = seekAnchor(file.lines, hunk.anchor, cursor);
      if (at === -1) throw fail(`has an @@ line "${hunk.anchor}" that is not in the file${after(cursor)}`);
      from = at + 1;
    }
    const want = oldSide(hunk.ops);
    let at: number;
    if (want.length === 0) {
      at = hunk.anchor !== undefined && !hunk.endOfFile ? from : file.lines.length;
    } else {
      at = seek(file.lines, want, from, hunk.endOfFile);
      if (at === -1) {
        const where = hunk.endOfFile ? ' at the end of the file' : after(from);
        throw fail(`does not match the file; expected these lines${where}:\n${quoteLines(want)}`);
      }
    }
    copy(cursor, at);
    removedEol = undefined;
    let k = at;
    for (const op of hunk.ops) {
      if (op.op === '+') {
        out.push(op.text);
        eols.push(addedEol(k));
      } else if (op.op === ' ') {
        out.push(file.lines[k] ?? op.text);
        eols.push(file.eols[k] ?? file.eol);
        removedEol = undefined;
        k++;
      } else {
        removedEol = file.eols[k] || removedEol;
        k++;
      }
    }
    cursor = k;
  });
  copy(cursor, file.lines.length);
  const finalNewline = file.finalNewline || (file.lines.length === 0 && out.length > 0);
  if (finalNewline && eols.at(-1) === '')
    eols[eols.length - 1] = file.eols.findLast((e) => e !== '') ?? file.eol;
  return joinLines({ lines: out, eols, eol: file.eol, finalNewline });
}

function countOps(hunks: readonly PatchHunk[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    for (const op of hunk.ops) {
      if (op.op === '+') added++;
      else if (op.op === '-') removed++;
    }
  }
  return { added, removed };
}

async function lstatOrUndefined(abs: string) {
  return lstat(abs).catch(() => undefined);
}

/** The nearest existing ancestor of a new path must be a directory. */
async function checkCreatable(ctx: ToolContext, abs: string, shown: string): Promise<void> {
  if (await lstatOrUndefined(abs)) {
    throw new ToolError(
      `apply_patch changed nothing: ${shown} already exists`,
      'use "*** Update File:" to change it',
    );
  }
  for (let dir = dirname(abs); ; dir = dirname(dir)) {
    const info = await lstatOrUndefined(dir);
    if (info) {
      if (!info.isDirectory()) {
        throw new ToolError(
          `apply_patch changed nothing: cannot create ${shown}: ${displayPath(ctx, dir)} is a file`,
          'pick another path',
        );
      }
      return;
    }
    if (dirname(dir) === dir) return;
  }
}

/** Resolves, reads and applies every operation in memory. Throws before anything is written. */
export async function planPatch(
  ctx: ToolContext,
  ops: readonly PatchOp[],
  maxFileBytes: number,
): Promise<FileChange[]> {
  const claimed = new Map<string, number>();
  const claim = (abs: string, shown: string, line: number): void => {
    const earlier = claimed.get(abs);
    if (earlier !== undefined) {
      throw new ToolError(
        `Invalid patch, line ${line}: ${shown} is already changed at line ${earlier}`,
        'put all changes to one file in a single "*** Update File:" section',
      );
    }
    claimed.set(abs, line);
  };
  const changes: FileChange[] = [];
  for (const op of ops) {
    ctx.signal.throwIfAborted();
    if (op.kind === 'add') {
      const abs = resolvePath(ctx, op.path, { write: true });
      const shown = displayPath(ctx, abs);
      claim(abs, shown, op.line);
      await checkCreatable(ctx, abs, shown);
      const after = op.lines.length > 0 ? `${op.lines.join('\n')}\n` : '';
      changes.push({ kind: 'A', abs, shown, after, added: op.lines.length });
    } else if (op.kind === 'delete') {
      const abs = resolvePath(ctx, op.path, { write: true, keepLink: true, mustExist: true });
      const shown = displayPath(ctx, abs);
      claim(abs, shown, op.line);
      const info = await lstat(abs);
      if (info.isDirectory()) {
        throw new ToolError(
          `apply_patch changed nothing: ${shown} is a directory`,
          'use delete_path for directories',
        );
      }
      if (info.isSymbolicLink()) {
        changes.push({
          kind: 'D',
          abs,
          shown,
          before: Buffer.alloc(0),
          linkTarget: await readlink(abs),
          removed: 0,
        });
      } else {
        const before = await readFile(abs);
        changes.push({ kind: 'D', abs, shown, before, removed: countLines(before.toString('utf8')) });
      }
    } else {
      const abs = await resolveFile(ctx, op.path, { write: true });
      const shown = displayPath(ctx, abs);
      claim(abs, shown, op.line);
      // The editor's buffer when a client file system is present (unsaved edits count).
      const decoded = await readEditable(ctx, abs, shown, { maxBytes: maxFileBytes, tool: 'apply_patch' });
      const text = applyHunks(decoded.text, op.hunks, shown);
      // On disk: the old bytes as they were and the new ones in the file's own encoding.
      const before = decoded.bytes ?? decoded.text;
      const after = ctx.fs ? text : encodeText(text, decoded, shown);
      const { added, removed } = countOps(op.hunks);
      const dest = op.moveTo === undefined ? abs : resolvePath(ctx, op.moveTo, { write: true });
      if (dest === abs) {
        changes.push({ kind: 'M', abs, shown, before, after, added, removed });
        continue;
      }
      const destShown = displayPath(ctx, dest);
      claim(dest, destShown, op.line);
      await checkCreatable(ctx, dest, destShown);
      const { mode } = await lstat(abs);
      changes.push({
        kind: 'R',
        abs,
        dest,
        shown,
        destShown,
        mode: mode & 0o7777,
        before,
        after,
        added,
        removed,
      });
    }
  }
  return changes;
}
