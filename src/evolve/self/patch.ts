/**
 * Reading a self-patch: a unified diff (git-style: `diff --git` headers, `new file
 * mode`, `deleted file mode`, renames; or plain `---`/`+++` with `/dev/null`), parsed
 * by the `diff` package, or the `*** Begin Patch` envelope of apply_patch (parsed by
 * tools/builtin/patch-parse.ts). Either way the result is a list of file edits, each
 * a function from the file's old text to its new text; nothing is read or written here.
 */
import { applyPatch, parsePatch as parseUnified, type StructuredPatch } from 'diff';
import { applyHunks } from '../../tools/builtin/patch-apply.js';
import { parsePatch as parseEnvelope } from '../../tools/builtin/patch-parse.js';

/** A refusal of the patch itself (nothing was touched); the pipeline turns it into `[ERROR] …`. */
export class PatchRefused extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
    this.name = 'PatchRefused';
  }
}

/** One file's edit, by repository-relative paths as the patch names them (not checked yet). */
export interface FileEdit {
  /** The file read (absent: a new file). */
  from?: string;
  /** The file written (absent: the file is deleted). */
  to?: string;
  /** The new text from the old ('' for a new file); a string saying why when it does not fit. */
  apply(old: string): string | { misfit: string };
  /** A new file's mode (0o644 unless the patch says 100755). */
  mode?: number;
  /** An edit that keeps the old file (a copy). */
  keepFrom?: boolean;
}

/** Patches larger than this are refused (a self-change should be reviewable). */
export const MAX_PATCH_CHARS = 1_000_000;
/** At most this many files per self-patch. */
export const MAX_PATCH_FILES = 100;

export const UNIFIED_HINT =
  'send a unified diff as `git diff` prints it ("diff --git a/p b/p", "--- a/p", "+++ b/p", "@@ -l,n +l,n @@" hunks; ' +
  '"--- /dev/null" for a new file, "+++ /dev/null" for a deleted one), or an apply_patch envelope ("*** Begin Patch" … "*** End Patch")';

const BINARY_LINE = /^(GIT binary patch|Binary files .* differ|literal \d+|delta \d+)$/m;

function refuse(message: string, hint = UNIFIED_HINT): never {
  throw new PatchRefused(message, hint);
}

/** A path as the patch names it, without git's `a/`/`b/` prefix; undefined for /dev/null. */
function stripName(name: string | undefined, prefix: 'a/' | 'b/', strip: boolean): string | undefined {
  if (name === undefined || name === '/dev/null') return undefined;
  return strip && name.startsWith(prefix) ? name.slice(2) : name;
}

function modeOf(mode: string | undefined, path: string): number | undefined {
  if (mode === undefined || mode === '100644') return mode === undefined ? undefined : 0o644;
  if (mode === '100755') return 0o755;
  if (mode === '120000')
    refuse(`${path}: the patch makes a symbolic link; self_modify writes regular files only`);
  if (mode === '160000') refuse(`${path}: the patch changes a submodule; self_modify cannot`);
  return refuse(`${path}: unknown file mode ${mode}`);
}

function fromUnified(p: StructuredPatch, n: number): FileEdit {
  const strip =
    p.isGit === true ||
    (p.oldFileName?.startsWith('a/') === true && p.newFileName?.startsWith('b/') === true) ||
    (p.oldFileName === '/dev/null' && p.newFileName?.startsWith('b/') === true) ||
    (p.newFileName === '/dev/null' && p.oldFileName?.startsWith('a/') === true);
  let from = stripName(p.oldFileName, 'a/', strip);
  let to = stripName(p.newFileName, 'b/', strip);
  const shown = to ?? from ?? `file ${n}`;
  if (from === undefined && to === undefined) refuse(`file ${n} of the patch names no file`);
  if (p.isBinary) refuse(`${shown}: the patch changes a binary file; self_modify changes text files only`);
  if (p.isCreate) from = undefined;
  if (p.isDelete) to = undefined;
  if (p.oldMode !== undefined && p.newMode !== undefined && p.oldMode !== p.newMode && !p.isCreate)
    refuse(`${shown}: the patch changes the file mode (${p.oldMode} → ${p.newMode}); self_modify cannot`);
  const mode = from === undefined ? modeOf(p.newMode, shown) : undefined;
  const moved = from !== undefined && to !== undefined && from !== to;
  if (p.hunks.length === 0 && from !== undefined && to !== undefined && !moved)
    refuse(`${shown}: the patch has no hunks for this file (a mode-only or binary change?)`);
  const apply = (old: string): string | { misfit: string } => {
    if (p.hunks.length === 0) return old;
    const out = applyPatch(old, { ...p, oldFileName: from, newFileName: to });
    return out === false
      ? { misfit: `${shown}: a hunk does not match the file (context or "-" lines differ)` }
      : out;
  };
  return {
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    apply,
    ...(mode !== undefined ? { mode } : {}),
    ...(p.isCopy ? { keepFrom: true } : {}),
  };
}

function unifiedEdits(text: string): FileEdit[] {
  let patches: StructuredPatch[];
  try {
    patches = parseUnified(text);
  } catch (error) {
    return refuse(`the patch is not a unified diff: ${(error as Error).message}`);
  }
  const real = patches.filter(
    (p) => p.oldFileName !== undefined || p.newFileName !== undefined || p.hunks.length > 0,
  );
  if (real.length === 0) refuse('the patch is not a unified diff: it names no file and has no hunks');
  return real.map((p, i) => fromUnified(p, i + 1));
}

function envelopeEdits(text: string): FileEdit[] {
  let ops: ReturnType<typeof parseEnvelope>;
  try {
    ops = parseEnvelope(text);
  } catch (error) {
    return refuse((error as Error).message);
  }
  return ops.map((op): FileEdit => {
    if (op.kind === 'add') {
      const after = op.lines.length > 0 ? `${op.lines.join('\n')}\n` : '';
      return { to: op.path, apply: () => after, mode: 0o644 };
    }
    if (op.kind === 'delete') return { from: op.path, apply: () => '' };
    const apply = (old: string): string | { misfit: string } => {
      try {
        return applyHunks(old, op.hunks, op.path);
      } catch (error) {
        return { misfit: (error as Error).message.replace(/^apply_patch changed nothing: /, '') };
      }
    };
    return { from: op.path, to: op.moveTo ?? op.path, apply };
  });
}

/** The file edits of a patch; throws `PatchRefused` naming what is wrong with it. */
export function readPatch(text: string): FileEdit[] {
  if (text.trim() === '') refuse('the patch is empty');
  if (text.length > MAX_PATCH_CHARS)
    refuse(
      `the patch has ${text.length} characters (at most ${MAX_PATCH_CHARS})`,
      'split the change into smaller self-patches',
    );
  if (text.includes('\0')) refuse('the patch holds a NUL byte; self_modify changes text files only');
  if (BINARY_LINE.test(text))
    refuse('the patch holds a binary change (GIT binary patch / Binary files … differ)', UNIFIED_HINT);
  const edits = /^\s*\*\*\* Begin Patch/.test(text) ? envelopeEdits(text) : unifiedEdits(text);
  if (edits.length > MAX_PATCH_FILES)
    refuse(
      `the patch changes ${edits.length} files (at most ${MAX_PATCH_FILES})`,
      'split it into smaller patches',
    );
  return edits;
}

/** The paths a patch names, from its headers alone (for approvals; never throws). */
export function namedPaths(text: string): string[] {
  const out = new Set<string>();
  for (const line of text.split('\n', 20_000)) {
    const m =
      /^(?:\+\+\+|---) (?:[ab]\/)?([^\t\n]+)/.exec(line) ??
      /^\*\*\* (?:Add|Delete|Update) File: (.+)$/.exec(line) ??
      /^\*\*\* Move to: (.+)$/.exec(line);
    const p = m?.[1]?.trim();
    if (p && p !== '/dev/null') out.add(p);
  }
  return [...out];
}
