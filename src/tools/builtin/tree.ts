/** tree: an indented view of a directory, respecting .gitignore. */
import type { Dirent } from 'node:fs';
import { readdir, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { defineTool, type Tool, type ToolContext, ToolError } from '../types.js';
import { displayPath, resolvePath } from '../workspace.js';
import type { ResolvedFileOptions } from './file-options.js';
import { type GitignoreMatcher, gitignoreFor, loadGitignore } from './gitignore.js';
import { plural } from './text.js';

interface TreeNode {
  name: string;
  abs: string;
  kind: 'dir' | 'file' | 'link';
  depth: number;
  /** Set once the directory's entries were read and (some) shown. */
  children?: TreeNode[];
  /** Entries of an expanded directory left out because of the entry cap. */
  hidden: number;
}

/** Entries of `dir` that are not ignored, sorted by name. */
async function visibleEntries(dir: string, matcher: GitignoreMatcher): Promise<Dirent[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  return entries
    .filter((e) => !matcher.isIgnored(join(dir, e.name), e.isDirectory()))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const kindOf = (e: Dirent): TreeNode['kind'] =>
  e.isSymbolicLink() ? 'link' : e.isDirectory() ? 'dir' : 'file';

/** Breadth-first, so a cap leaves every level partly shown rather than one branch fully. */
async function expand(
  root: TreeNode,
  depth: number,
  maxEntries: number,
  matcher: GitignoreMatcher,
  signal: AbortSignal,
) {
  let shown = 0;
  let capped = false;
  const queue: TreeNode[] = [root];
  for (let node = queue.shift(); node !== undefined; node = queue.shift()) {
    signal.throwIfAborted();
    if (node.depth >= depth) continue;
    const entries = await visibleEntries(node.abs, matcher);
    if (shown >= maxEntries && entries.length > 0) {
      capped = true;
      continue;
    }
    node.children = [];
    for (const entry of entries) {
      if (shown >= maxEntries) {
        node.hidden++;
        capped = true;
        continue;
      }
      const child: TreeNode = {
        name: entry.name,
        abs: join(node.abs, entry.name),
        kind: kindOf(entry),
        depth: node.depth + 1,
        hidden: 0,
      };
      node.children.push(child);
      shown++;
      if (child.kind === 'dir') queue.push(child);
    }
  }
  return { shown, capped };
}

/** Counts files below a directory that is not expanded, sharing one budget per call. */
class FileCounter {
  constructor(
    private budget: number,
    private readonly matcher: GitignoreMatcher,
  ) {}

  async count(dir: string): Promise<string> {
    let files = 0;
    let exhausted = false;
    const walk = async (d: string): Promise<void> => {
      for (const entry of await visibleEntries(d, this.matcher)) {
        if (this.budget <= 0) {
          exhausted = true;
          return;
        }
        this.budget--;
        if (entry.isDirectory()) await walk(join(d, entry.name));
        else files++;
        if (exhausted) return;
      }
    };
    const top = await visibleEntries(dir, this.matcher);
    if (top.length === 0) return 'empty';
    await walk(dir);
    return exhausted ? `${files}+ files` : plural(files, 'file');
  }
}

async function render(node: TreeNode, counter: FileCounter, out: string[]): Promise<void> {
  const indent = '  '.repeat(Math.max(0, node.depth - 1));
  if (node.depth > 0) {
    if (node.kind === 'link') {
      const target = await readlink(node.abs).catch(() => '?');
      out.push(`${indent}${node.name} -> ${target}`);
    } else if (node.kind === 'file') {
      out.push(`${indent}${node.name}`);
    } else if (node.children === undefined) {
      out.push(`${indent}${node.name}/ (${await counter.count(node.abs)})`);
    } else {
      out.push(`${indent}${node.name}/${node.children.length === 0 && node.hidden === 0 ? ' (empty)' : ''}`);
    }
  }
  for (const child of node.children ?? []) await render(child, counter, out);
  if (node.hidden > 0) {
    out.push(`${'  '.repeat(node.depth)}… ${plural(node.hidden, 'more entry', 'more entries')}`);
  }
}

/** Rules for walking `abs`: when it is itself ignored, the caller asked for it, so show all. */
async function matcherFor(
  ctx: ToolContext,
  abs: string,
): Promise<{ matcher: GitignoreMatcher; note: string }> {
  const matcher = await gitignoreFor(ctx, abs);
  if (!matcher.isIgnored(abs, true)) return { matcher, note: '' };
  return {
    matcher: await loadGitignore(abs, { useGitignore: false, alwaysSkip: ['.git'] }),
    note: ' (an ignored directory: .gitignore rules are not applied inside it)',
  };
}

export function treeTool(opts: ResolvedFileOptions): Tool {
  return defineTool({
    name: 'tree',
    description:
      "Show a directory as an indented tree (default depth 3), skipping .gitignore'd files, .git and " +
      'node_modules. Directories not expanded show their file count. Use it to learn a project layout.',
    parameters: z.object({
      path: z.string().optional().describe('Directory (default: workspace root)'),
      depth: z.number().int().min(1).max(20).optional().describe('Levels to expand (default 3)'),
      max_entries: z
        .number()
        .int()
        .min(1)
        .max(5000)
        .optional()
        .describe(`Entries shown (default ${opts.treeMaxEntries})`),
    }),
    category: 'files',
    keywords: [
      'tree',
      'structure',
      'layout',
      'directory',
      'folders',
      'overview',
      'project',
      '目录树',
      '结构',
    ],
    readOnly: true,
    concurrencySafe: true,
    approval: 'none',
    timeoutMs: 60_000,
    subject: (args) => args.path ?? '.',
    async execute(args, ctx) {
      const p = args.path ?? '.';
      const abs = resolvePath(ctx, p, { mustExist: true });
      if (!(await stat(abs)).isDirectory()) {
        throw new ToolError(`${p} is a file, not a directory`, 'use read_file or file_info for a file');
      }
      const { matcher, note } = await matcherFor(ctx, abs);
      const root: TreeNode = { name: '', abs, kind: 'dir', depth: 0, hidden: 0 };
      const maxEntries = args.max_entries ?? opts.treeMaxEntries;
      const { capped } = await expand(root, args.depth ?? 3, maxEntries, matcher, ctx.signal);
      const out = [`${displayPath(ctx, abs)}/${note}`];
      await render(root, new FileCounter(opts.treeCountLimit, matcher), out);
      if (out.length === 1) out.push('(empty directory)');
      if (capped) {
        out.push(`(capped at ${maxEntries} entries; tree a subdirectory or raise max_entries to see more)`);
      }
      return out.join('\n');
    },
  });
}
