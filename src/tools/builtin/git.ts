/**
 * Git tools, read side: git_status, git_diff, git_log, git_show, git_blame. The
 * write side (branch, add, commit, stash, checkout_file) lives in git-write.ts.
 */
import * as z from 'zod';
import { defineTool, type Tool, type ToolContext, ToolError } from '../types.js';
import {
  cappedNote,
  checkRefLike,
  type GitSettings,
  type GitToolOptions,
  gitPath,
  gitSettings,
  openGit,
  subjectOf,
} from './git-run.js';
import { filterNote } from './git-safety.js';
import { formatStatus, parseStatus } from './git-status.js';
import { gitWriteTools } from './git-write.js';

export type { GitToolOptions } from './git-run.js';

/** Maps a workspace path argument to the form git gets (identity for `subject`). */
type PathMap = (p: string) => string;
const asGiven: PathMap = (p) => p;
const inWorkspace =
  (ctx: ToolContext): PathMap =>
  (p) =>
    gitPath(ctx, p);

const KEYWORDS = ['git', 'version control', 'repository', 'repo', '版本'];
const STATUS_MAX_PER_SECTION = 200;
const LOG_MAX_COUNT = 500;

const READ = { category: 'git', readOnly: true, concurrencySafe: true, approval: 'none' } as const;

function gitStatusTool(settings: GitSettings): Tool {
  const args = [
    'status',
    '--porcelain=v2',
    '--branch',
    '--show-stash',
    '-z',
    '--untracked-files=all',
    // A submodule's own config is not read here: do not run git inside it.
    '--ignore-submodules=dirty',
  ];
  return defineTool({
    ...READ,
    name: 'git_status',
    description:
      'Show the git state of the workspace: branch, ahead/behind its upstream, and the staged, unstaged, ' +
      'untracked and conflicted files. Use it before committing or to see what changed.',
    parameters: z.object({}),
    keywords: [...KEYWORDS, 'status', 'changes', 'modified', 'staged', 'untracked', '状态', '改动'],
    timeoutMs: settings.timeoutMs + 5_000,
    subject: () => 'git status',
    async execute(_args, ctx) {
      const git = await openGit(ctx, settings);
      const result = await git.run(args, { readOnly: true });
      const summary = formatStatus(parseStatus(result.stdout), STATUS_MAX_PER_SECTION);
      return (
        summary +
        cappedNote(result, settings, 'the list is incomplete; pass a path to git_diff or list_dir') +
        filterNote(git.config)
      );
    },
  });
}

const diffParams = z.object({
  path: z.string().optional().describe('Limit to this file or directory'),
  staged: z.boolean().optional().describe('Show staged changes (the index) instead of unstaged ones'),
  ref: z.string().optional().describe('Compare against a commit or range, e.g. HEAD~1 or main..feature'),
  stat_only: z.boolean().optional().describe('Only the per-file summary of changed lines'),
});

function diffArgs(a: z.infer<typeof diffParams>, path: PathMap): string[] {
  // No external diff or textconv program, no git run inside submodules.
  const args = ['diff', '--no-ext-diff', '--no-textconv', '--ignore-submodules=dirty'];
  if (a.staged) args.push('--cached');
  if (a.stat_only) args.push('--stat');
  if (a.ref !== undefined) args.push(checkRefLike(a.ref, 'ref'));
  if (a.path !== undefined) args.push('--', path(a.path));
  return args;
}

function noDiffMessage(a: z.infer<typeof diffParams>): string {
  const where = a.path === undefined ? '' : ` in ${a.path}`;
  if (a.ref !== undefined) return `No differences against ${a.ref}${where}`;
  if (a.staged) return `No staged changes${where}`;
  return `No unstaged changes${where} (pass staged=true for staged changes; untracked files are not diffed, see git_status)`;
}

function gitDiffTool(settings: GitSettings): Tool {
  return defineTool({
    ...READ,
    name: 'git_diff',
    description:
      'Show changes as a unified diff: unstaged by default, staged with staged=true, or against a ref/range. ' +
      `Output stops at ${settings.maxOutputChars} chars; narrow with path or use stat_only for an overview.`,
    parameters: diffParams,
    keywords: [...KEYWORDS, 'diff', 'changes', 'patch', 'compare', '差异', '改动'],
    timeoutMs: settings.timeoutMs + 5_000,
    subject: (a) => subjectOf(() => diffArgs(a, asGiven), 'diff'),
    async execute(a, ctx) {
      const git = await openGit(ctx, settings);
      const result = await git.run(diffArgs(a, inWorkspace(ctx)), { readOnly: true });
      const text = result.stdout.replace(/\n$/, '');
      if (text === '') return noDiffMessage(a) + filterNote(git.config);
      return (
        text +
        cappedNote(result, settings, 'pass path to diff fewer files, or stat_only=true') +
        filterNote(git.config)
      );
    },
  });
}

const logParams = z.object({
  max_count: z.number().int().min(1).max(LOG_MAX_COUNT).optional().describe('Commits to show (default 20)'),
  path: z.string().optional().describe('Only commits touching this path'),
  ref: z.string().optional().describe('Branch, commit or range to list, e.g. main or v1.0..HEAD'),
  author: z.string().optional().describe('Only commits whose author matches this text'),
  since: z.string().optional().describe('Only commits after this date, e.g. "2 weeks ago" or 2024-01-31'),
});

function logArgs(a: z.infer<typeof logParams>, path: PathMap): string[] {
  // One more than asked, to know whether more commits exist.
  const args = [
    'log',
    `--max-count=${(a.max_count ?? 20) + 1}`,
    '--date=short',
    '--format=%h%x09%ad%x09%an%x09%s',
  ];
  if (a.author !== undefined) args.push(`--author=${a.author}`);
  if (a.since !== undefined) args.push(`--since=${a.since}`);
  if (a.ref !== undefined) args.push(checkRefLike(a.ref, 'ref'));
  if (a.path !== undefined) args.push('--', path(a.path));
  return args;
}

function gitLogTool(settings: GitSettings): Tool {
  return defineTool({
    ...READ,
    name: 'git_log',
    description:
      'List commits, newest first, one line each: short hash, date, [author], subject. Filter by path, ' +
      'ref/range, author or date; default 20 commits.',
    parameters: logParams,
    keywords: [...KEYWORDS, 'log', 'history', 'commits', 'who changed', '历史', '提交记录'],
    timeoutMs: settings.timeoutMs + 5_000,
    subject: (a) => subjectOf(() => logArgs(a, asGiven), 'log'),
    async execute(a, ctx) {
      const git = await openGit(ctx, settings);
      const result = await git
        .run(logArgs(a, inWorkspace(ctx)), { readOnly: true })
        .catch((error: unknown) => {
          if (error instanceof ToolError && /does not have any commits yet/.test(error.message)) {
            throw new ToolError(
              'No commits yet in this repository',
              'commit something first with git_commit',
            );
          }
          throw error;
        });
      const max = a.max_count ?? 20;
      const lines = result.stdout.split('\n').filter((l) => l.length > 0);
      if (lines.length === 0) return 'No commits match';
      const shown = lines.slice(0, max).map((line) => {
        const [hash = '', date = '', author = '', ...subject] = line.split('\t');
        return `${hash} ${date} [${author}] ${subject.join('\t')}`;
      });
      if (lines.length > max)
        shown.push(`… more commits exist; raise max_count (up to ${LOG_MAX_COUNT}) or narrow`);
      return shown.join('\n');
    },
  });
}

const showParams = z.object({
  ref: z.string().min(1).describe('Commit, branch or tag, e.g. HEAD, HEAD~2, a1b2c3d'),
  path: z.string().optional().describe('Show this file as it is at ref instead of the commit'),
});

function showArgs(a: z.infer<typeof showParams>, path: PathMap): string[] {
  const ref = checkRefLike(a.ref, 'ref');
  // `./` makes the path relative to the working directory rather than the repository root.
  if (a.path !== undefined) return ['show', `${ref}:./${path(a.path)}`];
  return ['show', '--no-ext-diff', '--no-textconv', '--stat', '--patch', '--format=fuller', ref];
}

function gitShowTool(settings: GitSettings): Tool {
  return defineTool({
    ...READ,
    name: 'git_show',
    description:
      "Show a commit (message, changed-file summary and diff), or with path a file's content at that ref. " +
      `Output stops at ${settings.maxOutputChars} chars.`,
    parameters: showParams,
    keywords: [...KEYWORDS, 'show', 'commit', 'revision', 'old version', '查看提交'],
    timeoutMs: settings.timeoutMs + 5_000,
    subject: (a) => subjectOf(() => showArgs(a, asGiven), 'show'),
    async execute(a, ctx) {
      const git = await openGit(ctx, settings);
      const result = await git.run(showArgs(a, inWorkspace(ctx)), { readOnly: true });
      if (a.path !== undefined && result.stdout.includes('\0')) {
        return `${a.path} at ${a.ref} is a binary file; not shown`;
      }
      if (result.stdout === '') return `${a.path ?? a.ref} is empty at ${a.ref}`;
      const narrow =
        a.path === undefined ? 'use git_diff with ref and path to see one file' : 'the file is long';
      return result.stdout.replace(/\n$/, '') + cappedNote(result, settings, narrow);
    },
  });
}

const blameParams = z.object({
  path: z.string().min(1).describe('File to annotate'),
  start_line: z.number().int().min(1).optional().describe('First line (1-based)'),
  end_line: z.number().int().min(1).optional().describe('Last line (inclusive)'),
});

function blameArgs(a: z.infer<typeof blameParams>, path: PathMap): string[] {
  const args = ['blame', '--no-textconv', '--date=short'];
  if (a.start_line !== undefined || a.end_line !== undefined) {
    const start = a.start_line ?? 1;
    if (a.end_line !== undefined && a.end_line < start) {
      throw new ToolError(
        `end_line ${a.end_line} is before start_line ${start}`,
        'pass end_line >= start_line, or leave it out to blame to the end',
      );
    }
    args.push('-L', `${start},${a.end_line ?? ''}`);
  }
  args.push('--', path(a.path));
  return args;
}

function gitBlameTool(settings: GitSettings): Tool {
  return defineTool({
    ...READ,
    name: 'git_blame',
    description:
      'Show who last changed each line of a file and in which commit (hash, author, date, line). ' +
      'Pass start_line/end_line for a range; long files are cut.',
    parameters: blameParams,
    keywords: [...KEYWORDS, 'blame', 'annotate', 'who wrote', 'author', '作者', '谁改的'],
    timeoutMs: settings.timeoutMs + 5_000,
    subject: (a) => subjectOf(() => blameArgs(a, asGiven), 'blame'),
    async execute(a, ctx) {
      const git = await openGit(ctx, settings);
      const result = await git.run(blameArgs(a, inWorkspace(ctx)), { readOnly: true });
      const text = result.stdout.replace(/\n$/, '');
      if (text === '') return `${a.path} is empty`;
      return (
        text +
        cappedNote(result, settings, 'pass start_line and end_line for a smaller range') +
        filterNote(git.config)
      );
    },
  });
}

/** The git family: status, diff, log, show, blame (read) and branch, add, commit, stash, checkout_file (write). */
export function gitTools(opts: GitToolOptions = {}): Tool[] {
  const settings = gitSettings(opts);
  return [
    gitStatusTool(settings),
    gitDiffTool(settings),
    gitLogTool(settings),
    gitShowTool(settings),
    gitBlameTool(settings),
    ...gitWriteTools(settings),
  ];
}
