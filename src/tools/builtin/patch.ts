/**
 * apply_patch: a multi-file patch applied all-or-nothing. Every change is computed
 * in memory first; then new contents go to temporary files beside their targets and
 * are renamed into place. A failure while writing undoes what was already done.
 */
import { mkdir, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as z from 'zod';
import { errorCode } from '../hints.js';
import { type ClientFs, defineTool, type Tool, ToolError } from '../types.js';
import { writeFileAtomic, writeTemp } from './atomic-write.js';
import type { ResolvedFileOptions } from './file-options.js';
import { type Content, type FileChange, planPatch } from './patch-apply.js';
import { parsePatch, patchPaths } from './patch-parse.js';
import { plural } from './text.js';

interface Staged {
  change: FileChange;
  /** Temporary file holding the new content (A, M, R). */
  temp?: string;
}

/** Where the new content of a change goes. */
function targetOf(change: FileChange): string | undefined {
  if (change.kind === 'A' || change.kind === 'M') return change.abs;
  if (change.kind === 'R') return change.dest;
  return undefined;
}

/** Writes every new content to a temp file; on failure removes them and any directories made. */
async function stage(
  changes: readonly FileChange[],
  signal: AbortSignal,
): Promise<{ staged: Staged[]; dirs: string[] }> {
  const staged: Staged[] = [];
  const dirs: string[] = [];
  try {
    for (const change of changes) {
      const target = targetOf(change);
      if (target === undefined) {
        staged.push({ change });
        continue;
      }
      const made = await mkdir(dirname(target), { recursive: true });
      if (made !== undefined) dirs.push(made);
      const after = change.kind === 'D' ? '' : change.after;
      const mode = change.kind === 'R' ? { mode: change.mode } : {};
      staged.push({ change, temp: await writeTemp(target, after, { ...mode, signal }) });
    }
    return { staged, dirs };
  } catch (error) {
    await discard(staged, dirs);
    throw error;
  }
}

async function discard(staged: readonly Staged[], dirs: readonly string[]): Promise<void> {
  for (const s of staged) if (s.temp) await unlink(s.temp).catch(() => undefined);
  for (const dir of [...dirs].reverse())
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
}

/** Puts one staged change in place; returns how to undo it. */
async function commitOne(s: Staged): Promise<() => Promise<void>> {
  const c = s.change;
  switch (c.kind) {
    case 'A':
      await rename(s.temp ?? '', c.abs);
      return () => unlink(c.abs);
    case 'M':
      await rename(s.temp ?? '', c.abs);
      return () => writeFileAtomic(c.abs, c.before);
    case 'R':
      await rename(s.temp ?? '', c.dest);
      await unlink(c.abs).catch(async (error: unknown) => {
        await unlink(c.dest).catch(() => undefined);
        throw error;
      });
      return async () => {
        await writeFile(c.abs, c.before, { mode: c.mode });
        await unlink(c.dest);
      };
    case 'D':
      await unlink(c.abs);
      return c.linkTarget !== undefined
        ? () => symlink(c.linkTarget ?? '', c.abs)
        : () => writeFile(c.abs, c.before);
  }
}

async function commit(staged: Staged[], dirs: string[]): Promise<void> {
  const undo: Array<() => Promise<void>> = [];
  for (const [i, s] of staged.entries()) {
    try {
      undo.push(await commitOne(s));
    } catch (error) {
      for (const step of undo.reverse()) await step().catch(() => undefined);
      await discard(staged.slice(i), []);
      await discard([], dirs);
      const code = errorCode(error);
      const detail = error instanceof Error ? error.message : String(error);
      throw new ToolError(
        `apply_patch failed while writing ${s.change.shown} (${code ?? detail}); the files already written were restored`,
        'check the path and permissions, then send the patch again',
      );
    }
  }
}

/**
 * Writes planned changes all-or-nothing: stages every new content in a temp file,
 * then puts each in place, undoing the ones already done if a later one fails.
 */
export async function writeChanges(changes: readonly FileChange[], signal: AbortSignal): Promise<void> {
  const { staged, dirs } = await stage(changes, signal);
  await commit(staged, dirs);
}

/** Text for the editor (planPatch keeps text, not bytes, when an editor's file system is used). */
const text = (content: Content): string => (typeof content === 'string' ? content : content.toString('utf8'));

/**
 * With a client file system (an editor over ACP), new and updated files are written
 * through it, so open buffers follow; a failure writes the earlier files' old text
 * back. Moves and deletions have no client method: a patch with any of them is
 * written on disk as usual.
 */
async function writeThroughClient(fs: ClientFs, changes: readonly FileChange[]): Promise<void> {
  const undo: Array<() => Promise<void>> = [];
  for (const c of changes) {
    if (c.kind !== 'A' && c.kind !== 'M') continue;
    try {
      await fs.writeTextFile(c.abs, text(c.after));
      if (c.kind === 'M') undo.push(() => fs.writeTextFile(c.abs, text(c.before)));
    } catch (error) {
      for (const step of undo.reverse()) await step().catch(() => undefined);
      const detail = error instanceof Error ? error.message : String(error);
      throw new ToolError(
        `apply_patch failed while writing ${c.shown} through the editor (${detail}); the files already updated were restored`,
        'check the path, then send the patch again',
      );
    }
  }
}

function summaryLine(c: FileChange): string {
  const counts = (added: number, removed: number): string => {
    const parts = [added > 0 ? `+${added}` : '', removed > 0 ? `-${removed}` : ''].filter((p) => p !== '');
    return parts.length > 0 ? ` (${parts.join(' ')})` : '';
  };
  switch (c.kind) {
    case 'A':
      return `A ${c.shown}${counts(c.added, 0)}`;
    case 'M':
      return `M ${c.shown}${counts(c.added, c.removed)}`;
    case 'R':
      return `R ${c.shown} -> ${c.destShown}${counts(c.added, c.removed)}`;
    case 'D':
      return `D ${c.shown}${counts(0, c.removed)}`;
  }
}

export function applyPatchTool(opts: ResolvedFileOptions): Tool {
  return defineTool({
    name: 'apply_patch',
    description:
      'Apply a multi-file patch ("*** Begin Patch" … "*** End Patch" with Add/Update/Delete File sections, ' +
      '@@ hunks of " ", "-", "+" lines, optional "*** Move to:"). All or nothing.',
    parameters: z.object({
      patch: z.string().min(1).describe('The whole patch text, from *** Begin Patch to *** End Patch'),
    }),
    category: 'files',
    keywords: ['patch', 'apply', 'diff', 'edit', 'multiple files', 'refactor', 'rename', '补丁', '修改'],
    readOnly: false,
    concurrencySafe: false,
    approval: 'write',
    timeoutMs: 60_000,
    subject: (args) => patchPaths(args.patch).join(', '),
    async execute(args, ctx) {
      const changes = await planPatch(ctx, parsePatch(args.patch), opts.editMaxFileBytes);
      ctx.signal.throwIfAborted();
      if (ctx.fs && changes.every((c) => c.kind === 'A' || c.kind === 'M')) {
        await writeThroughClient(ctx.fs, changes);
      } else {
        await writeChanges(changes, ctx.signal);
      }
      const added = changes.reduce((n, c) => n + (c.kind === 'D' ? 0 : c.added), 0);
      const removed = changes.reduce((n, c) => n + (c.kind === 'A' ? 0 : c.removed), 0);
      const head = `Applied patch: ${plural(changes.length, 'file')} changed (+${added} -${removed})`;
      return [head, ...changes.map(summaryLine)].join('\n');
    },
  });
}
