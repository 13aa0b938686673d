/**
 * The unified diff of a round recorded from captured files (no trees to compare: the
 * fast path of capture.ts), in the form `git diff` prints: a `diff --git` header, mode
 * lines, then the hunks, or a line saying binary files differ.
 */
import type { JournalRoundRow } from '../../store/index.js';

type FileRow = JournalRoundRow['files'][number];

/** Larger than any diff a face shows whole. */
const MAX_CHARS = 50_000_000;

export async function filesDiff(
  files: readonly FileRow[],
  blobs: (ids: string[]) => Promise<Map<string, Buffer>>,
): Promise<string> {
  // Loaded when a diff is asked for: a turn never needs it.
  const { unifiedDiff } = await import('../../tools/builtin/diff-text.js');
  const ids = files.flatMap((f) => [f.beforeBlob, f.afterBlob].filter((b): b is string => b !== null));
  const data = await blobs(ids);
  const parts: string[] = [];
  for (const f of files) {
    const head = [`diff --git a/${f.path} b/${f.path}`];
    if (f.beforeBlob === null) head.push(`new file mode ${f.afterMode}`);
    else if (f.afterBlob === null) head.push(`deleted file mode ${f.beforeMode}`);
    else if (f.beforeMode !== f.afterMode) head.push(`old mode ${f.beforeMode}`, `new mode ${f.afterMode}`);
    const before = f.beforeBlob === null ? Buffer.alloc(0) : data.get(f.beforeBlob);
    const after = f.afterBlob === null ? Buffer.alloc(0) : data.get(f.afterBlob);
    if (!before || !after) throw new Error(`the journal lost the contents of ${f.path}`);
    const from = f.beforeBlob === null ? '/dev/null' : `a/${f.path}`;
    const to = f.afterBlob === null ? '/dev/null' : `b/${f.path}`;
    if (before.includes(0) || after.includes(0)) {
      if (!before.equals(after)) head.push(`Binary files ${from} and ${to} differ`);
      parts.push(head.join('\n'));
      continue;
    }
    const { text } = await unifiedDiff(from, to, before.toString('utf8'), after.toString('utf8'), MAX_CHARS);
    parts.push(text === '' ? head.join('\n') : `${head.join('\n')}\n${text}`);
  }
  return parts.length === 0 ? '' : `${parts.join('\n')}\n`;
}
