/** replace_in_files: a regex search-and-replace over many files, previewed before it writes. */
import { lstat, readFile, stat } from 'node:fs/promises';
import * as z from 'zod';
import { LinkGuard } from '../hardlinks.js';
import { defineTool, type Tool, type ToolContext, ToolError } from '../types.js';
import { displayPath, resolvePath, rootOf, workspaceRoots } from '../workspace.js';
import { writeFileAtomic } from './atomic-write.js';
import { normalizeFileGlob } from './grep-core.js';
import { compileJsRegex } from './grep-js.js';
import { walkWorkspace } from './search-walk.js';
import { clipLine, formatSize, looksBinary, plural } from './text.js';
import { decodeText, displayText, encodeText, utf16Bom } from './text-codec.js';

const SHOWN_SIDE_CHARS = 160;

export interface ReplaceOptions {
  /** Changed lines listed in the answer. */
  maxShown: number;
  /** Files one call may change. */
  maxFiles: number;
  /** Larger files are skipped, and named in the answer. */
  maxFileBytes: number;
}

interface FileChange {
  file: string;
  before: string;
  after: string;
  /** The new content in the file's own encoding (text-codec.ts). */
  bytes: Buffer;
  matches: number;
}

/** `old → new` lines for one file, numbered by the old file's lines. */
async function describeChange(ctx: ToolContext, change: FileChange): Promise<string[]> {
  const { diffLines } = await import('diff');
  const shown = displayPath(ctx, change.file);
  const out: string[] = [];
  const parts = diffLines(displayText(change.before), displayText(change.after));
  let line = 1;
  const text = (value: string): string[] => value.replace(/\n$/, '').split('\n');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (!part.added && !part.removed) {
      line += part.count ?? text(part.value).length;
      continue;
    }
    const next = parts[i + 1];
    const removed = part.removed ? text(part.value) : [];
    const added = part.added ? text(part.value) : next?.added && part.removed ? text(next.value) : [];
    if (part.removed && next?.added) i++;
    const side = (lines: string[]): string =>
      lines.length === 0 ? '(nothing)' : clipLine(lines.join(' ⏎ '), SHOWN_SIDE_CHARS);
    if (removed.length === added.length) {
      removed.forEach((old, k) => {
        out.push(`${shown}:${line + k}: ${side([old])} → ${side([added[k] ?? ''])}`);
      });
    } else {
      out.push(`${shown}:${line}: ${side(removed)} → ${side(added)}`);
    }
    line += removed.length;
  }
  return out;
}

async function filesToScan(ctx: ToolContext, root: string, glob: string | undefined): Promise<string[]> {
  if (!(await stat(root)).isDirectory()) return [root];
  const ignoreRoot = rootOf(ctx, root);
  const entries = await walkWorkspace({
    root,
    pattern: glob ? normalizeFileGlob(glob) : '**/*',
    ...(ignoreRoot === undefined ? {} : { ignoreRoot }),
    kind: 'file',
    signal: ctx.signal,
  });
  return entries.map((e) => e.path);
}

export function replaceInFilesTool(opts: ReplaceOptions): Tool {
  return defineTool({
    name: 'replace_in_files',
    description:
      'Regex search-and-replace across files (JavaScript regex, $1 for groups). A dry run by default: ' +
      'shows each change as `file:line: old → new`; pass dry_run: false to write.',
    parameters: z.object({
      pattern: z.string().min(1).describe('JavaScript regex; ^ and $ match at lines'),
      replacement: z.string().describe('Replacement text; $1, $<name>, $& allowed'),
      glob: z.string().optional().describe('Only files matching this glob, e.g. "*.ts"'),
      path: z.string().optional().describe('Directory or file (default: workspace)'),
      ignore_case: z.boolean().optional().describe('Case-insensitive match'),
      dry_run: z.boolean().optional().describe('Only preview (default true)'),
    }),
    category: 'search',
    keywords: ['replace', 'rename', 'substitute', 'refactor', 'sed', 'search and replace', '替换', '重命名'],
    readOnly: false,
    concurrencySafe: false,
    approval: 'write',
    timeoutMs: 120_000,
    subject: (args) => args.path ?? '.',
    async execute(args, ctx) {
      let regex: RegExp;
      try {
        regex = compileJsRegex(args.pattern, args.ignore_case ? 'gmi' : 'gm');
      } catch (error) {
        throw new ToolError(
          error instanceof Error ? error.message : String(error),
          'pattern is a JavaScript regex; escape special characters such as ( ) [ ] { } . * + ? | \\ with a backslash',
        );
      }
      const root = resolvePath(ctx, args.path ?? '.', { mustExist: true });
      const changes: FileChange[] = [];
      const guard = new LinkGuard(workspaceRoots(ctx));
      const linked: string[] = [];
      const large: string[] = [];
      let scanned = 0;
      for (const file of await filesToScan(ctx, root, args.glob)) {
        ctx.signal.throwIfAborted();
        const info = await lstat(file).catch(() => undefined);
        if (!info?.isFile()) continue;
        if (info.size > opts.maxFileBytes) {
          large.push(`${displayPath(ctx, file)} (${formatSize(info.size)})`);
          continue;
        }
        if (!guard.allows(file, info)) {
          linked.push(displayPath(ctx, file));
          continue;
        }
        const bytes = await readFile(file).catch(() => undefined);
        if (bytes === undefined || (utf16Bom(bytes) === undefined && looksBinary(bytes))) continue;
        scanned++;
        // Decoded losslessly and written back in the file's own encoding: bytes outside
        // the matches stay as they were, whatever the file's encoding.
        const shown = displayPath(ctx, file);
        const decoded = decodeText(bytes, shown);
        const before = decoded.text;
        let matches = 0;
        for (const _ of before.matchAll(regex)) matches++;
        if (matches === 0) continue;
        const after = before.replace(regex, args.replacement);
        if (after !== before)
          changes.push({ file, before, after, bytes: encodeText(after, decoded, shown), matches });
      }
      const where = displayPath(ctx, root);
      const notes: string[] = [];
      if (linked.length > 0) {
        notes.push(
          `(left out ${plural(linked.length, 'file')} that ${linked.length === 1 ? 'is a hard link' : 'are hard links'} to files outside the workspace: ${linked.slice(0, 5).join(', ')})`,
        );
      }
      if (large.length > 0) {
        notes.push(
          `(skipped ${plural(large.length, 'file')} over the ${formatSize(opts.maxFileBytes)} limit, not searched: ${large.slice(0, 5).join(', ')}${large.length > 5 ? ', …' : ''}; change ${large.length === 1 ? 'it' : 'them'} with bash, e.g. sed -i)`,
        );
      }
      const leftOut = notes.map((note) => `\n${note}`).join('');
      if (changes.length === 0) {
        return `No changes: /${args.pattern}/ matches nothing to replace in ${where}; searched ${plural(scanned, 'file')}${leftOut}`;
      }
      if (changes.length > opts.maxFiles) {
        throw new ToolError(
          `The replacement would change ${changes.length} files, more than the ${opts.maxFiles} allowed in one call; nothing was written`,
          'narrow it with path or glob and run it in parts',
        );
      }
      const dryRun = args.dry_run !== false;
      if (!dryRun) {
        // Checked for every file before the first write, so a refusal leaves everything untouched.
        for (const change of changes) resolvePath(ctx, change.file, { write: true });
        for (const change of changes) await writeFileAtomic(change.file, change.bytes);
      }
      const total = changes.reduce((sum, c) => sum + c.matches, 0);
      const counts = `${plural(total, 'replacement')} in ${plural(changes.length, 'file')}`;
      const lines = [
        dryRun
          ? `Dry run: ${counts} (nothing written; call again with dry_run: false to apply)`
          : `Replaced: ${counts}`,
      ];
      const described: string[] = [];
      for (const change of changes) {
        if (described.length > opts.maxShown) break;
        described.push(...(await describeChange(ctx, change)));
      }
      lines.push(...described.slice(0, opts.maxShown));
      if (described.length > opts.maxShown) lines.push('… more changed lines not shown');
      return lines.join('\n') + leftOut;
    },
  });
}
