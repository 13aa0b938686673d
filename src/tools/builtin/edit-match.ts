/**
 * Finding and replacing the text of one edit_file edit: an exact match first, then a
 * line-by-line match that ignores differences in whitespace when it is unique.
 */
import { distance } from 'fastest-levenshtein';
import { ToolError } from '../types.js';
import { lineAt, splitLines } from './text.js';

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

/** Replaces the occurrences at `indices` and reports where the new text landed. */
export function replaceAt(
  text: string,
  indices: readonly number[],
  oldText: string,
  newText: string,
): { content: string; ranges: Array<[number, number]> } {
  const pieces: string[] = [];
  const starts: number[] = [];
  let cursor = 0;
  let length = 0;
  for (const index of indices) {
    const before = text.slice(cursor, index);
    pieces.push(before, newText);
    length += before.length;
    starts.push(length);
    length += newText.length;
    cursor = index + oldText.length;
  }
  pieces.push(text.slice(cursor));
  const content = pieces.join('');
  const span = spanOf(newText);
  const ranges = starts.map((start): [number, number] => {
    const line = lineAt(content, start);
    return [line, line + span];
  });
  return { content, ranges };
}

/** How many lines past its first one a piece of text reaches. */
function spanOf(text: string): number {
  const newLines = (text.match(/\n/g) ?? []).length;
  return text.endsWith('\n') && newLines > 0 ? newLines - 1 : newLines;
}

const toCrlf = (s: string): string => s.replace(/\r?\n/g, '\r\n');

/** When the file uses CRLF and the model sent LF, match the file's line endings. */
function adaptLineEndings(file: string, oldText: string, newText: string): [string, string] {
  if (!file.includes('\r\n') || oldText.includes('\r\n') || !oldText.includes('\n'))
    return [oldText, newText];
  return [toCrlf(oldText), toCrlf(newText)];
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
  const oldSplit = splitLines(edit.old_string);
  const oldLines = oldSplit.lines;
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
  const lines = [...file.lines.slice(0, start), ...newLines, ...file.lines.slice(end)];
  const content = lines.length === 0 ? '' : lines.join(file.eol) + (file.finalNewline ? file.eol : '');
  const last = newLines.length === 0 ? start + 1 : start + newLines.length;
  return {
    content,
    count: 1,
    ranges: [[start + 1, Math.max(start + 1, last)]],
    fuzzy: { line: start + 1, reindented: swap !== undefined },
  };
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
  const shown = best.text.length > 120 ? `${best.text.slice(0, 120)}…` : best.text;
  return `the closest line is ${best.line}: "${shown}"; ${base}`;
}

/** Applies one edit to `text`; throws a ToolError saying why when it cannot. */
export function applyEdit(text: string, edit: EditSpec, path: string): AppliedEdit {
  if (edit.old_string.length === 0) {
    throw new ToolError('old_string is empty', 'to create a file or replace all of it use write_file');
  }
  if (edit.old_string === edit.new_string) {
    throw new ToolError('old_string and new_string are identical; nothing would change', 'pass the new text');
  }
  const [oldText, newText] = adaptLineEndings(text, edit.old_string, edit.new_string);
  const found = findOccurrences(text, oldText);
  if (found.length > 1 && edit.replace_all !== true) {
    const lines = found.map((i) => lineAt(text, i));
    throw new ToolError(
      `old_string matches ${found.length} times in ${path} (at lines ${lines.join(', ')}); it must be unique`,
      'include more surrounding lines in old_string so it matches exactly once, or set replace_all: true to change every occurrence',
    );
  }
  if (found.length > 0) {
    const { content, ranges } = replaceAt(text, found, oldText, newText);
    return { content, count: found.length, ranges };
  }
  const fuzzy = fuzzyReplace(text, edit, path);
  if (fuzzy) return fuzzy;
  throw new ToolError(`old_string was not found in ${path}`, notFoundHint(text, edit.old_string));
}
