/** Git tools, write side: git_branch, git_add, git_commit, git_stash, git_checkout_file. */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { defineTool, type Tool, type ToolContext, ToolError } from '../types.js';
import {
  cappedNote,
  checkRefLike,
  type Git,
  type GitSettings,
  gitPath,
  openGit,
  subjectOf,
} from './git-run.js';
import { HOOKS, type WriteNeeds } from './git-safety.js';

type PathMap = (p: string) => string;
const asGiven: PathMap = (p) => p;

const WRITE = { category: 'git', readOnly: false, concurrencySafe: false, approval: 'write' } as const;
const KEYWORDS = ['git', 'version control', 'repository', 'repo', '版本'];

const branchParams = z.object({
  action: z.enum(['list', 'create', 'switch', 'delete']).describe('What to do'),
  name: z.string().optional().describe('Branch name (for create, switch, delete)'),
  start_point: z.string().optional().describe('For create: commit or branch to start from (default HEAD)'),
});

function branchArgs(a: z.infer<typeof branchParams>): string[] {
  if (a.action === 'list') return ['branch', '--list', '-vv'];
  if (a.name === undefined) {
    throw new ToolError(`git_branch action "${a.action}" needs a name`, 'pass name, e.g. "feature/login"');
  }
  const name = checkRefLike(a.name, 'branch name');
  if (a.action === 'create') {
    const start = a.start_point === undefined ? [] : [checkRefLike(a.start_point, 'start point')];
    return ['branch', name, ...start];
  }
  if (a.action === 'switch') return ['switch', name];
  return ['branch', '--delete', name];
}

function gitBranchTool(settings: GitSettings): Tool {
  return defineTool({
    ...WRITE,
    name: 'git_branch',
    description:
      'List, create, switch to or delete local branches. Delete refuses branches that are not merged; ' +
      'create does not switch (call switch after).',
    parameters: branchParams,
    keywords: [...KEYWORDS, 'branch', 'switch', 'checkout', 'create branch', '分支', '切换'],
    timeoutMs: settings.timeoutMs + 5_000,
    subject: (a) => subjectOf(() => branchArgs(a), 'branch'),
    async execute(a, ctx) {
      const git = await openGit(ctx, settings);
      const args = branchArgs(a);
      if (a.action === 'switch') await git.refuseRepoPrograms(args, { hooks: HOOKS.checkout, filters: true });
      else if (a.action !== 'list') await git.refuseRepoPrograms(args, { hooks: HOOKS.refs });
      const result = await git.run(args).catch((error: unknown) => {
        if (a.action === 'switch' && error instanceof ToolError && /invalid reference/.test(error.message)) {
          throw new ToolError(
            error.message,
            'the branch does not exist; create it first with action "create"',
          );
        }
        if (a.action === 'delete' && error instanceof ToolError && /not fully merged/.test(error.message)) {
          throw new ToolError(
            error.message,
            'merge the branch first; deleting unmerged work needs the user to confirm and run `git branch -D` themselves',
          );
        }
        throw error;
      });
      if (a.action === 'list') return result.stdout.replace(/\n$/, '') || 'No branches yet (no commits)';
      if (a.action === 'create')
        return `Created branch ${a.name} at ${a.start_point ?? 'HEAD'} (not switched)`;
      if (a.action === 'switch') return `Switched to branch ${a.name}`;
      return result.stdout.trim() || `Deleted branch ${a.name}`;
    },
  });
}

const addParams = z.object({
  paths: z.array(z.string().min(1)).min(1).describe('Files or directories to stage'),
});

function gitAddTool(settings: GitSettings): Tool {
  return defineTool({
    ...WRITE,
    name: 'git_add',
    description:
      'Stage files or directories for the next commit (new, modified and deleted files). ' +
      'Paths are relative to the workspace.',
    parameters: addParams,
    keywords: [...KEYWORDS, 'add', 'stage', 'index', '暂存', '添加'],
    timeoutMs: settings.timeoutMs + 5_000,
    subject: (a) => subjectOf(() => ['add', '--', ...a.paths], 'add'),
    async execute(a, ctx) {
      const paths = a.paths.map((p) => gitPath(ctx, p));
      const git = await openGit(ctx, settings);
      await git.refuseRepoPrograms(['add', '--', ...paths], { hooks: HOOKS.index, filters: true });
      await git.run(['add', '--', ...paths]);
      const names = ['diff', '--no-ext-diff', '--no-textconv', '--cached', '--name-status', '--', ...paths];
      const staged = await git.run(names);
      const lines = staged.stdout.split('\n').filter((l) => l.length > 0);
      if (lines.length === 0) return `Nothing to stage in ${a.paths.join(', ')} (no changes)`;
      const shown = lines.slice(0, 200).map((l) => `  ${l.replace('\t', ' ')}`);
      if (lines.length > 200) shown.push(`  … ${lines.length - 200} more`);
      return `Staged (${lines.length}):\n${shown.join('\n')}`;
    },
  });
}

const commitParams = z.object({
  message: z
    .string()
    .min(1)
    .refine((m) => m.trim().length > 0, 'must not be empty')
    .describe('The commit message'),
  all: z.boolean().optional().describe('Also stage every modified tracked file first (git commit -a)'),
  amend: z.boolean().optional().describe('Replace the last commit instead of adding one'),
});

function commitArgs(a: z.infer<typeof commitParams>): string[] {
  const args = ['commit', '--file=-'];
  if (a.all) args.push('--all');
  if (a.amend) args.push('--amend');
  return args;
}

/** The commit as a person would type it (the message as -m rather than on stdin). */
function typedCommit(a: z.infer<typeof commitParams>): string[] {
  return [...commitArgs(a).filter((x) => x !== '--file=-'), '-m', a.message];
}

async function stagedNothing(git: Git): Promise<boolean> {
  const args = ['diff', '--no-ext-diff', '--no-textconv', '--cached', '--quiet'];
  const result = await git.run(args, { okCodes: [1] });
  return result.exitCode === 0;
}

function gitCommitTool(settings: GitSettings): Tool {
  return defineTool({
    ...WRITE,
    name: 'git_commit',
    description:
      'Commit the staged changes with a message (all=true also stages modified tracked files; amend=true ' +
      'rewrites the last commit); returns the new commit hash. Refuses when hooks would run, or programs the ' +
      "repository's own config sets (signing; filters with all=true): git tools never run those.",
    parameters: commitParams,
    keywords: [...KEYWORDS, 'commit', 'save changes', 'amend', '提交'],
    timeoutMs: settings.commitTimeoutMs + 5 * settings.timeoutMs + 5_000,
    subject: (a) => subjectOf(() => typedCommit(a), 'commit'),
    async execute(a, ctx) {
      const nothing = (): ToolError =>
        new ToolError(
          'Nothing to commit: no changes are staged',
          'stage files with git_add first (see git_status), or pass all=true to commit every modified tracked file',
        );
      const git = await openGit(ctx, settings);
      if (!a.all && !a.amend && (await stagedNothing(git))) throw nothing();
      // Without all=true the commit takes the index as it is; filters are only off for reading.
      const hooks = a.amend ? HOOKS.amend : HOOKS.commit;
      const needs: WriteNeeds = { hooks, filters: a.all === true, commits: true };
      await git.refuseRepoPrograms(typedCommit(a), needs);
      const run = { input: a.message, timeoutMs: settings.commitTimeoutMs };
      const result = await git.run(commitArgs(a), run).catch((error: unknown) => {
        if (
          error instanceof ToolError &&
          /nothing to commit|no changes added to commit|nothing added to commit/.test(error.message)
        ) {
          throw nothing();
        }
        throw error;
      });
      const hash = (await git.run(['rev-parse', 'HEAD'], { readOnly: true })).stdout.trim();
      const summary = result.stdout.trim().split('\n').slice(0, 12).join('\n');
      return `${a.amend ? 'Amended' : 'Committed'} ${hash.slice(0, 12)} (${hash})\n${summary}`;
    },
  });
}

const stashParams = z.object({
  action: z.enum(['push', 'pop', 'list', 'show', 'drop']).describe('What to do'),
  message: z.string().optional().describe('For push: a note to find the stash by'),
  index: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('For pop, show, drop: which stash (default 0, the newest)'),
});

function stashArgs(a: z.infer<typeof stashParams>): string[] {
  const ref = a.index === undefined ? [] : [`stash@{${a.index}}`];
  switch (a.action) {
    case 'push':
      return ['stash', 'push', ...(a.message === undefined ? [] : ['--message', a.message])];
    case 'list':
      return ['stash', 'list'];
    case 'show':
      return ['stash', 'show', '--no-ext-diff', '--no-textconv', '--stat', '--patch', ...ref];
    case 'pop':
      return ['stash', 'pop', ...ref];
    case 'drop':
      return ['stash', 'drop', ...ref];
  }
}

function gitStashTool(settings: GitSettings): Tool {
  return defineTool({
    ...WRITE,
    name: 'git_stash',
    description:
      'Set uncommitted changes aside and bring them back: push (save and clean the tree), pop, list, ' +
      'show (a stash as a diff), drop.',
    parameters: stashParams,
    keywords: [...KEYWORDS, 'stash', 'shelve', 'save for later', '暂存', '储藏'],
    timeoutMs: settings.timeoutMs + 5_000,
    subject: (a) => subjectOf(() => stashArgs(a), 'stash'),
    async execute(a, ctx) {
      const git = await openGit(ctx, settings);
      const args = stashArgs(a);
      if (a.action === 'push' || a.action === 'pop') {
        await git.refuseRepoPrograms(args, { hooks: HOOKS.stash, filters: true, merges: a.action === 'pop' });
      } else if (a.action === 'drop') await git.refuseRepoPrograms(args, { hooks: HOOKS.refs });
      const result = await git.run(args);
      const text = result.stdout.replace(/\n$/, '');
      if (a.action === 'list') return text || 'No stashes';
      if (a.action === 'push' && /No local changes to save/.test(text)) {
        return 'No local changes to save; nothing was stashed';
      }
      return (
        (text || result.stderr.trim()) +
        cappedNote(result, settings, 'the stash is large; use git_diff after pop')
      );
    },
  });
}

const checkoutParams = z.object({
  path: z.string().min(1).describe('File to restore'),
  ref: z.string().optional().describe('Commit or branch to take it from (default HEAD)'),
});

function checkoutArgs(a: z.infer<typeof checkoutParams>, path: PathMap): string[] {
  return ['checkout', checkRefLike(a.ref ?? 'HEAD', 'ref'), '--', path(a.path)];
}

function gitCheckoutFileTool(settings: GitSettings): Tool {
  return defineTool({
    ...WRITE,
    name: 'git_checkout_file',
    description:
      "Restore a file to its version at HEAD (or ref), discarding the file's uncommitted changes, staged " +
      'and unstaged. The restored version is staged when ref is not HEAD.',
    parameters: checkoutParams,
    keywords: [...KEYWORDS, 'restore', 'revert file', 'discard changes', 'undo', '恢复', '撤销'],
    timeoutMs: settings.timeoutMs + 5_000,
    subject: (a) => subjectOf(() => checkoutArgs(a, asGiven), 'checkout'),
    async execute(a, ctx) {
      const rel = gitPath(ctx, a.path);
      const ref = checkRefLike(a.ref ?? 'HEAD', 'ref');
      const git = await openGit(ctx, settings);
      const checkout = checkoutArgs(a, () => rel);
      await git.refuseRepoPrograms(checkout, { hooks: HOOKS.checkout, filters: true });
      const diff = ['diff', '--no-ext-diff', '--no-textconv', '--numstat', ref, '--', rel];
      const before = await git.run(diff, { readOnly: true });
      if (before.stdout.trim() === '') {
        await git.run(checkout);
        return `${a.path} already matched ${ref}; nothing changed`;
      }
      const kept = await keepWorkingCopy(ctx, git, rel);
      await git.run(checkout);
      const lines = countNumstat(before.stdout);
      const recover = kept === undefined ? '' : `; the discarded content is kept: git cat-file -p ${kept}`;
      return `Restored ${a.path} from ${ref} (${lines} changed lines discarded${recover})`;
    },
  });
}

/** Added plus removed lines in `git diff --numstat` output (binary files count 0). */
function countNumstat(numstat: string): number {
  let total = 0;
  for (const line of numstat.split('\n')) {
    const [added = '0', removed = '0'] = line.split('\t');
    total += (Number(added) || 0) + (Number(removed) || 0);
  }
  return total;
}

/**
 * Writes the working copy into git's object store before it is overwritten, so a
 * restore loses nothing; returns the blob hash (undefined when there is no file).
 */
async function keepWorkingCopy(ctx: ToolContext, git: Git, rel: string): Promise<string | undefined> {
  const exists = await stat(join(ctx.cwd, rel)).then(
    (info) => info.isFile(),
    () => false,
  );
  if (!exists) return undefined;
  // The bytes on disk, as they are: no clean filter.
  const result = await git.run(['hash-object', '-w', '--no-filters', '--', rel]);
  return result.stdout.trim().slice(0, 12) || undefined;
}

export function gitWriteTools(settings: GitSettings): Tool[] {
  return [
    gitBranchTool(settings),
    gitAddTool(settings),
    gitCommitTool(settings),
    gitStashTool(settings),
    gitCheckoutFileTool(settings),
  ];
}
