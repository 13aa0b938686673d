/** Unified diffs for the model to read (jsdiff, loaded on first use). */
import { truncateHeadTail } from '../truncate.js';

export interface DiffText {
  /** `--- a` / `+++ b` headers and hunks with 3 lines of context, capped; '' when equal. */
  text: string;
  added: number;
  removed: number;
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
  const patch = structuredPatch(oldLabel, newLabel, before, after, undefined, undefined, { context: 3 });
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
