/** Unified diffs for the model to read (jsdiff, loaded on first use). */
import { truncateHeadTail } from '../truncate.js';

export interface DiffText {
  /** `--- a` / `+++ b` headers and hunks with 3 lines of context, capped; '' when equal. */
  text: string;
  added: number;
  removed: number;
}

/** Lines of context around each change. */
const CONTEXT = 3;
/**
 * Lines kept around the changed stretch: the context, and as many again because the
 * line diff may line repeated lines up differently from the character comparison.
 */
const MARGIN = CONTEXT * 2 + 2;
/** Characters compared at once while looking for the first and last difference. */
const BLOCK = 4096;

/** Index just past the end of the line holding `index` (the text's length on the last line). */
function lineEnd(text: string, index: number): number {
  const newline = text.indexOf('\n', index);
  return newline === -1 ? text.length : newline + 1;
}

/**
 * The smallest stretch of both texts that holds every difference, widened to whole
 * lines and MARGIN more lines each side; outside it the texts are the same.
 */
export function changedWindow(
  before: string,
  after: string,
): { before: string; after: string; skippedLines: number } {
  const shorter = Math.min(before.length, after.length);
  // Whole blocks compared first (a string compare is far faster than a loop over characters).
  let prefix = 0;
  while (
    prefix + BLOCK <= shorter &&
    before.slice(prefix, prefix + BLOCK) === after.slice(prefix, prefix + BLOCK)
  ) {
    prefix += BLOCK;
  }
  while (prefix < shorter && before.charCodeAt(prefix) === after.charCodeAt(prefix)) prefix++;
  let suffix = 0;
  const tail = (text: string, from: number): string =>
    text.slice(text.length - from - BLOCK, text.length - from);
  while (suffix + BLOCK <= shorter - prefix && tail(before, suffix) === tail(after, suffix)) suffix += BLOCK;
  while (
    suffix < shorter - prefix &&
    before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)
  ) {
    suffix++;
  }
  let start = prefix === 0 ? 0 : before.lastIndexOf('\n', prefix - 1) + 1;
  for (let k = 0; k < MARGIN && start > 0; k++) {
    start = start < 2 ? 0 : before.lastIndexOf('\n', start - 2) + 1;
  }
  let end = lineEnd(before, Math.max(prefix, before.length - suffix - 1));
  for (let k = 0; k < MARGIN && end < before.length; k++) end = lineEnd(before, end);
  let skippedLines = 0;
  for (let i = before.indexOf('\n'); i !== -1 && i < start; i = before.indexOf('\n', i + 1)) skippedLines++;
  return {
    before: before.slice(start, end),
    after: after.slice(start, end + after.length - before.length),
    skippedLines,
  };
}

/** The unified diff of two texts; CR of CRLF line endings is not shown. */
export async function unifiedDiff(
  oldLabel: string,
  newLabel: string,
  before: string,
  after: string,
  maxChars: number,
): Promise<DiffText> {
  if (before === after) return { text: '', added: 0, removed: 0 };
  const { structuredPatch, formatPatch } = await import('diff');
  // Only the changed part (with its context lines) is diffed: an edit in a large file
  // costs what the change costs, not what the file costs.
  const w = changedWindow(before, after);
  const patch = structuredPatch(oldLabel, newLabel, w.before, w.after, undefined, undefined, {
    context: CONTEXT,
  });
  for (const hunk of patch.hunks) {
    hunk.oldStart += w.skippedLines;
    hunk.newStart += w.skippedLines;
  }
  let added = 0;
  let removed = 0;
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added++;
      else if (line.startsWith('-')) removed++;
    }
  }
  const lines = formatPatch(patch).split('\n');
  // Drop the `Index:` and `====` lines jsdiff puts before the `---` header.
  const header = lines.findIndex((line) => line.startsWith('--- '));
  const full = lines.slice(Math.max(0, header)).join('\n').replace(/\r\n/g, '\n').replace(/\n$/, '');
  return { text: capDiff(full, maxChars), added, removed };
}

function capDiff(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return truncateHeadTail(text, maxChars);
}
