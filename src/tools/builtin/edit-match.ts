/**
 * Finding and replacing the text of one edit_file edit: an exact match first, then a
 * line-by-line match that ignores differences in whitespace when it is unique.
 */
import { distance } from 'fastest-levenshtein';
import { ToolError } from '../types.js';
import { joinLines, lineAt, plural, splitLines } from './text.js';
import { displayText, hasEscapes } from './text-codec.js';

export interface EditSpec {
  old_string: string;
  new_string: string;
  replace_all?: boolean | undefined;
}

export interface AppliedEdit {
  content: string;
  /** Occurrences replaced. */
  count: number;
  /** Line ranges of the new text in the updated content. */
  ranges: Array<[number, number]>;
  /** Set when the match ignored whitespace: where it was, and whether new_string was re-indented. */
  fuzzy?: { line: number; reindented: boolean };
}

/** Start indices of the non-overlapping occurrences of `needle` in `text`. */
export function findOccurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  if (needle.length === 0) return found;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) found.push(i);
  return found;
}

/** One place to replace: where, how long, and with what. */
interface Replacement {
  index: number;
  length: number;
  text: string;
}

/** Replaces each match (in order, not overlapping) and reports where the new text landed. */
function replaceMatches(
  text: string,
  matches: readonly Replacement[],
): { content: string; ranges: Array<[number, number]> } {
  const pieces: string[] = [];
  const starts: number[] = [];
  let cursor = 0;
  let length = 0;
  for (const match of matches) {
    const before = text.slice(cursor, match.index);
    pieces.push(before, match.text);
    length += before.length;
    starts.push(length);
    length += match.text.length;
    cursor = match.index + match.length;
  }
  pieces.push(text.slice(cursor));
  const content = pieces.join('');
  const ranges = starts.map((start, i): [number, number] => {
    const line = lineAt(content, start);
    return [line, line + spanOf(matches[i]?.text ?? '')];
  });
  return { content, ranges };
}

/** How many lines past its first one a piece of text reaches. */
function spanOf(text: string): number {
  const newLines = (text.match(/\n/g) ?? []).length;
  return text.endsWith('\n') && newLines > 0 ? newLines - 1 : newLines;
}

const toCrlf = (s: string): string => s.replace(/\r?\n/g, '\r\n');
const toCr = (s: string): string => s.replace(/\r?\n/g, '\r');

/** The line ending of the line holding `index`: CRLF, LF, or the file's usual one on a last line. */
function eolAt(text: string, index: number): '\n' | '\r\n' {
  const newline = text.indexOf('\n', index);
  if (newline === -1) return text.includes('\r\n') ? '\r\n' : '\n';
  return newline > 0 && text.charCodeAt(newline - 1) === 13 ? '\r\n' : '\n';
}

/**
 * The (old, new) pairs to look for, in order: as sent; then, when the model wrote LF
 * and the file uses CRLF (or only CR), both converted to the file's endings.
 */
function lineEndingVariants(file: string, oldText: string, newText: string): Array<[string, string]> {
  const variants: Array<[string, string]> = [[oldText, newText]];
  if (!oldText.includes('\n') || oldText.includes('\r')) return variants;
  if (file.includes('\r\n')) variants.push([toCrlf(oldText), toCrlf(newText)]);
  else if (!file.includes('\n') && file.includes('\r')) variants.push([toCr(oldText), toCr(newText)]);
  return variants;
}

/**
 * A one-line old_string found as sent, with a new_string of several LF lines: the new
 * lines take the line ending of the line they land in, so a CRLF file stays CRLF.
 */
function matchEndings(file: string, at: number, oldText: string, newText: string): string {
  if (oldText.includes('\n') || !newText.includes('\n') || newText.includes('\r')) return newText;
  return eolAt(file, at) === '\r\n' ? toCrlf(newText) : newText;
}

/** A line with leading/trailing whitespace dropped and inner runs collapsed to one space. */
export function normalizeWhitespace(line: string): string {
  return line.trim().replace(/\s+/g, ' ');
}

const indentOf = (line: string): string => /^\s*/.exec(line)?.[0] ?? '';

/** Start line indices where `needle` matches `lines` with whitespace normalised. */
function fuzzyStarts(lines: readonly string[], needle: readonly string[]): number[] {
  const want = needle.map(normalizeWhitespace);
  const have = lines.map(normalizeWhitespace);
  const starts: number[] = [];
  for (let s = 0; s + want.length <= have.length; s++) {
    if (want.every((w, i) => have[s + i] === w)) starts.push(s);
  }
  return starts;
}

/**
 * When every non-blank line of old_string is indented by the same prefix where the file
 * has another one (tabs vs spaces, a missing level), the prefix swap for new_string.
 */
function indentSwap(oldLines: readonly string[], fileLines: readonly string[]): [string, string] | undefined {
  const first = oldLines.findIndex((l) => l.trim() !== '');
  if (first === -1) return undefined;
  const from = indentOf(oldLines[first] ?? '');
  const to = indentOf(fileLines[first] ?? '');
  if (from === to) return undefined;
  const consistent = oldLines.every((line, i) => {
    if (line.trim() === '') return true;
    const fileLine = fileLines[i] ?? '';
    if (!line.startsWith(from) || !fileLine.startsWith(to)) return false;
    return indentOf(line).slice(from.length) === indentOf(fileLine).slice(to.length);
  });
  return consistent ? [from, to] : undefined;
}

function fuzzyReplace(text: string, edit: EditSpec, path: string): AppliedEdit | undefined {
  const file = splitLines(text);
  const oldLines = splitLines(edit.old_string).lines;
  if (oldLines.every((l) => l.trim() === '')) return undefined;
  const starts = fuzzyStarts(file.lines, oldLines);
  if (starts.length === 0) return undefined;
  if (starts.length > 1) {
    throw new ToolError(
      `old_string was not found in ${path} exactly, and ignoring whitespace it matches ${starts.length} places (lines ${starts.map((s) => s + 1).join(', ')})`,
      'use read_file to copy the exact text, with enough surrounding lines to be unique',
    );
  }
  const start = starts[0] ?? 0;
  const end = start + oldLines.length;
  const swap = indentSwap(oldLines, file.lines.slice(start, end));
  let newLines = splitLines(edit.new_string).lines;
  if (swap) newLines = newLines.map((l) => (l.startsWith(swap[0]) ? swap[1] + l.slice(swap[0].length) : l));
  // Whole lines are replaced; a new_string without a final newline still ends its line.
  // New lines take the endings of the lines they replace, so mixed files stay as they were.
  const replaced = file.eols.slice(start, end);
  const inner = replaced.find((e) => e !== '') ?? file.eol;
  const newEols = newLines.map((_, i) => (i === newLines.length - 1 ? (replaced.at(-1) ?? inner) : inner));
  const lines = [...file.lines.slice(0, start), ...newLines, ...file.lines.slice(end)];
  const eols = [...file.eols.slice(0, start), ...newEols, ...file.eols.slice(end)];
  const content = joinLines({ lines, eols, eol: file.eol, finalNewline: eols.at(-1) !== '' });
  const last = newLines.length === 0 ? start + 1 : start + newLines.length;
  return {
    content,
    count: 1,
    ranges: [[start + 1, Math.max(start + 1, last)]],
    fuzzy: { line: start + 1, reindented: swap !== undefined },
  };
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** A run of undecodable bytes (see text-codec.ts), captured. */
const ESCAPED_RUN = '((?:(?<![\\uD800-\\uDBFF])[\\uDC80-\\uDCFF])+)';
const REPLACEMENT_RUNS = /\uFFFD+/;

/**
 * read_file shows bytes that are not valid UTF-8 as U+FFFD (�). An old_string copied
 * from it matches those bytes: each run of � stands for a run of undecodable bytes, and
 * the same runs in new_string write the very same bytes back.
 */
function undecodableMatches(text: string, edit: EditSpec, path: string): Replacement[] | undefined {
  if (!edit.old_string.includes('\uFFFD') || !hasEscapes(text)) return undefined;
  for (const [oldText, newText] of lineEndingVariants(text, edit.old_string, edit.new_string)) {
    const oldParts = oldText.split(REPLACEMENT_RUNS);
    const found = [...text.matchAll(new RegExp(oldParts.map(escapeRegExp).join(ESCAPED_RUN), 'g'))];
    if (found.length === 0) continue;
    const newParts = newText.split(REPLACEMENT_RUNS);
    if (newParts.length > 1 && newParts.length !== oldParts.length) {
      throw new ToolError(
        `new_string has ${plural(newParts.length - 1, 'run')} of U+FFFD (�) but old_string has ${oldParts.length - 1}; in ${path} each stands for bytes that are not valid UTF-8, which can only be kept where old_string has them`,
        'keep the � characters in new_string where they are in old_string (the original bytes are written back there), or leave them all out of new_string to delete those bytes',
      );
    }
    return found.map((m) => ({
      index: m.index,
      length: m[0].length,
      text:
        newParts.length === 1
          ? newText
          : newParts.map((part, i) => (i === 0 ? part : `${m[i] ?? ''}${part}`)).join(''),
    }));
  }
  return undefined;
}

/** The hint for text that matches nowhere: the closest line when one is near. */
function notFoundHint(text: string, oldText: string): string {
  const base =
    'use read_file to see the current text, then copy the exact lines (including indentation) into old_string';
  const wanted = normalizeWhitespace(oldText.split(/\r?\n/).find((l) => l.trim() !== '') ?? '');
  if (wanted.length < 4) return base;
  let best: { line: number; text: string; d: number } | undefined;
  splitLines(text).lines.forEach((line, i) => {
    const d = distance(wanted, normalizeWhitespace(line));
    if (best === undefined || d < best.d) best = { line: i + 1, text: line.trim(), d };
  });
  if (best === undefined || best.d > Math.max(2, Math.floor(wanted.length * 0.3))) return base;
  const line = displayText(best.text);
  const shown = line.length > 120 ? `${line.slice(0, 120)}…` : line;
  return `the closest line is ${best.line}: "${shown}"; ${base}`;
}

function ambiguous(text: string, path: string, at: readonly number[]): ToolError {
  const lines = at.map((i) => lineAt(text, i));
  return new ToolError(
    `old_string matches ${at.length} times in ${path} (at lines ${lines.join(', ')}); it must be unique`,
    'include more surrounding lines in old_string so it matches exactly once, or set replace_all: true to change every occurrence',
  );
}

/** Applies one edit to `text`; throws a ToolError saying why when it cannot. */
export function applyEdit(text: string, edit: EditSpec, path: string): AppliedEdit {
  if (edit.old_string.length === 0) {
    throw new ToolError('old_string is empty', 'to create a file or replace all of it use write_file');
  }
  if (edit.old_string === edit.new_string) {
    throw new ToolError('old_string and new_string are identical; nothing would change', 'pass the new text');
  }
  for (const [oldText, newText] of lineEndingVariants(text, edit.old_string, edit.new_string)) {
    const found = findOccurrences(text, oldText);
    if (found.length === 0) continue;
    if (found.length > 1 && edit.replace_all !== true) throw ambiguous(text, path, found);
    const replacement = matchEndings(text, found[0] ?? 0, oldText, newText);
    const matches = found.map((index) => ({ index, length: oldText.length, text: replacement }));
    const { content, ranges } = replaceMatches(text, matches);
    return { content, count: found.length, ranges };
  }
  const undecodable = undecodableMatches(text, edit, path);
  if (undecodable !== undefined) {
    if (undecodable.length > 1 && edit.replace_all !== true) {
      throw ambiguous(
        text,
        path,
        undecodable.map((m) => m.index),
      );
    }
    const { content, ranges } = replaceMatches(text, undecodable);
    return { content, count: undecodable.length, ranges };
  }
  const fuzzy = fuzzyReplace(text, edit, path);
  if (fuzzy) return fuzzy;
  throw new ToolError(`old_string was not found in ${path}`, notFoundHint(text, edit.old_string));
}
