/**
 * What a file-writing call would change, computed before it runs (from the file as
 * it is now), so every face can show it while asking for approval: the terminal as
 * a unified diff, ACP as a diff block the editor renders, the web UI as the diff
 * `tea serve` adds to the approval request.
 */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { unifiedDiff } from './builtin/diff-text.js';
import { FILE_WRITERS } from './file-writers.js';
import { expandHome } from './workspace.js';

/** Files larger than this are not read for a preview. */
const MAX_PREVIEW_BYTES = 2 * 1024 * 1024;

export { FILE_WRITERS } from './file-writers.js';

export interface ProposedEdit {
  old: string;
  next: string;
  all: boolean;
}

export interface ProposedChange {
  /** Absolute path of the file. */
  file: string;
  /** The path as the call wrote it. */
  shown: string;
  /** The text now ('' and `created` when the file does not exist yet). */
  before: string;
  created: boolean;
  /** The text after the call; undefined when an edit does not match the file exactly. */
  after: string | undefined;
  /** The edits of an edit_file call (to show them when they cannot be placed). */
  edits: ProposedEdit[];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The edits of an edit_file call (one edit, or `edits: [...]`). */
export function proposedEdits(args: Record<string, unknown>): ProposedEdit[] {
  const list = Array.isArray(args.edits) ? (args.edits as Array<Record<string, unknown>>) : [args];
  return list
    .map((e) => ({ old: str(e.old_string), next: str(e.new_string), all: e.replace_all === true }))
    .filter((e): e is ProposedEdit => e.old !== undefined && e.next !== undefined);
}

/** The text after the edits, or undefined when an edit does not match exactly. */
function applyEdits(before: string, edits: readonly ProposedEdit[]): string | undefined {
  let text = before;
  for (const e of edits) {
    if (e.old === '' || !text.includes(e.old)) return undefined;
    text = e.all ? text.split(e.old).join(e.next) : text.replace(e.old, () => e.next);
  }
  return text;
}

/** The file's text now: '' when it does not exist; undefined when it cannot be shown (binary, huge, unreadable). */
async function current(file: string): Promise<{ text: string; created: boolean } | undefined> {
  try {
    if ((await stat(file)).size > MAX_PREVIEW_BYTES) return undefined;
    const text = await readFile(file, 'utf8');
    return text.includes('\0') ? undefined : { text, created: false };
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? { text: '', created: true } : undefined;
  }
}

/**
 * The change a write_file, append_file or edit_file call would make, or undefined
 * when it cannot be previewed (another tool, no path, a binary or huge file).
 */
export async function proposedChange(
  tool: string,
  args: Record<string, unknown>,
  cwd: string,
  /** Reads the file as the tool will see it (an editor's buffer); undefined: it does not exist. */
  read?: (file: string) => Promise<string | undefined>,
): Promise<ProposedChange | undefined> {
  const shown = str(args.path);
  if (!FILE_WRITERS.has(tool) || shown === undefined) return undefined;
  const file = path.resolve(cwd, expandHome(shown));
  const now = read
    ? await read(file).then((text) =>
        text === undefined ? { text: '', created: true } : { text, created: false },
      )
    : await current(file);
  if (now === undefined) return undefined;
  const base = { file, shown, before: now.text, created: now.created };
  const content = str(args.content);
  if (tool === 'write_file')
    return content === undefined ? undefined : { ...base, after: content, edits: [] };
  if (tool === 'append_file') {
    return content === undefined ? undefined : { ...base, after: now.text + content, edits: [] };
  }
  const edits = proposedEdits(args);
  if (edits.length === 0) return undefined;
  return { ...base, after: applyEdits(now.text, edits), edits };
}

/** A proposed file change as a unified diff, for a face that shows it as text (the web UI). */
export interface ProposedDiff {
  /** The path as the call wrote it. */
  path: string;
  /** The file does not exist yet. */
  created: boolean;
  /** `---`/`+++` headers and `@@` hunks with 3 lines of context (cut head and tail past `maxChars`); '' when nothing changes. */
  text: string;
}

/**
 * The unified diff a write_file, append_file or edit_file call would make to the file
 * as it is now, or undefined when it cannot be shown (see `proposedChange`, and an
 * edit whose text to replace is not in the file).
 */
export async function proposedDiff(
  tool: string,
  args: Record<string, unknown>,
  cwd: string,
  maxChars = 100_000,
): Promise<ProposedDiff | undefined> {
  const change = await proposedChange(tool, args, cwd);
  if (change?.after === undefined) return undefined;
  const label = change.created ? '/dev/null' : change.shown;
  const { text } = await unifiedDiff(label, change.shown, change.before, change.after, maxChars);
  return { path: change.shown, created: change.created, text };
}
