/**
 * Running the `git` CLI for the git tools: argument arrays (never a shell), a
 * non-interactive environment, a time limit, the user's cancel signal, and an
 * output cap that stops git once enough has been read.
 */
import { spawn } from 'node:child_process';
import { relative } from 'node:path';
import { formatSeconds } from '../abort.js';
import { type ToolContext, ToolError } from '../types.js';
import { realpathLoose, resolvePath } from '../workspace.js';

/** Limits for the git tools; tests shrink them. */
export interface GitToolOptions {
  /** Time limit for one git command (default 30 000 ms). */
  timeoutMs?: number;
  /** Output characters kept from one git command before it is stopped (default 28 000). */
  maxOutputChars?: number;
  /** The git executable (default `git` from PATH). */
  binary?: string;
  /** Time limit for `git commit`, whose hooks may run linters or tests (default 120 000 ms). */
  commitTimeoutMs?: number;
}

export const GIT_DEFAULTS = {
  timeoutMs: 30_000,
  maxOutputChars: 28_000,
  binary: 'git',
  commitTimeoutMs: 120_000,
} as const satisfies Required<GitToolOptions>;

export type GitSettings = Required<GitToolOptions>;

export function gitSettings(opts: GitToolOptions = {}): GitSettings {
  return {
    timeoutMs: opts.timeoutMs ?? GIT_DEFAULTS.timeoutMs,
    maxOutputChars: opts.maxOutputChars ?? GIT_DEFAULTS.maxOutputChars,
    binary: opts.binary ?? GIT_DEFAULTS.binary,
    commitTimeoutMs: opts.commitTimeoutMs ?? GIT_DEFAULTS.commitTimeoutMs,
  };
}

/** Options placed before every subcommand: plain, stable, script-friendly output. */
const GLOBAL_ARGS = ['-c', 'color.ui=false', '-c', 'core.quotepath=false', '--no-pager'] as const;

/** Never prompt, never page, never open an editor, always English messages. */
const GIT_ENV = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  GIT_EDITOR: ':',
  GIT_SEQUENCE_EDITOR: ':',
  GIT_LITERAL_PATHSPECS: '1',
  LC_ALL: 'C',
  LANG: 'C',
} as const;

export interface GitResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  /** stdout went past the cap; git was stopped and `stdout` holds the first part. */
  truncated: boolean;
}

export interface GitRunOptions {
  /** Exit codes that are answers, not failures (e.g. 1 for `diff --quiet`). */
  okCodes?: readonly number[];
  /** Do not take optional locks (for read-only commands that may run in parallel). */
  readOnly?: boolean;
  /** Text written to git's stdin. */
  input?: string;
}

/** The command as a person would type it, words quoted only where needed; for subjects and messages. */
export function commandLine(args: readonly string[]): string {
  const quote = (a: string): string => (/^[\w@%+=:,./~^{}-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  return ['git', ...args].map(quote).join(' ');
}

/** A call's subject (its git command line); never throws, falling back to `git <subcommand>`. */
export function subjectOf(build: () => readonly string[], subcommand: string): string {
  try {
    return commandLine(build());
  } catch {
    return `git ${subcommand}`;
  }
}

/** Refuses refs and names that git would read as options or that cannot be names at all. */
export function checkRefLike(value: string, what: string): string {
  const trimmed = value.trim();
  if (trimmed === '') throw new ToolError(`The ${what} is empty`, `pass a ${what}, e.g. HEAD or main`);
  if (trimmed.startsWith('-')) {
    throw new ToolError(
      `The ${what} "${trimmed}" starts with "-", which git would read as an option`,
      `pass a ${what} such as HEAD~1, main or a commit hash`,
    );
  }
  if (/[\s\0]/.test(trimmed)) {
    throw new ToolError(
      `The ${what} "${trimmed}" contains whitespace`,
      `pass a single ${what} without spaces`,
    );
  }
  return trimmed;
}

/**
 * A workspace path as git should see it from `ctx.cwd`: checked by `resolvePath`
 * (inside the workspace, symlinks resolved) and made relative to the real cwd.
 */
export function gitPath(ctx: ToolContext, p: string): string {
  const abs = resolvePath(ctx, p);
  return relative(realpathLoose(ctx.cwd), abs) || '.';
}

const NOT_A_REPO = /not a git repository/i;

/** The first lines of git's stderr, without the `fatal: ` / `error: ` prefixes. */
export function gitMessage(stderr: string, stdout = ''): string {
  const text = (stderr.trim() || stdout.trim()).replace(/^(fatal|error): /gm, '');
  const lines = text.split('\n');
  const shown = lines.slice(0, 20).join('\n');
  return lines.length > 20 ? `${shown}\n… (${lines.length - 20} more lines)` : shown;
}

/** A hint for the commonest git failures, or undefined. */
function hintFor(message: string): string | undefined {
  if (/unknown revision|bad revision|ambiguous argument|invalid object name|bad object/i.test(message)) {
    return 'the ref does not exist; list commits with git_log or branches with git_branch';
  }
  if (/did not match any file|does not exist in|exists on disk, but not in|no such path/i.test(message)) {
    return 'check the path with git_status or list_dir; paths are relative to the workspace';
  }
  if (/dubious ownership/i.test(message)) {
    return 'the repository belongs to another user; the user can allow it with `git config --global --add safe.directory <path>`';
  }
  if (/index\.lock/i.test(message)) {
    return 'another git process is running in this repository; wait for it, then retry';
  }
  if (/tell me who you are|empty ident|unable to auto-detect email/i.test(message)) {
    return 'set an identity first: git config user.name "Name" && git config user.email "you@example.com" (ask the user for the values)';
  }
  return undefined;
}

/**
 * Runs git in `ctx.cwd`; rejects with a ToolError carrying git's own message on failure.
 * Outside a repository `git diff` would quietly turn into `diff --no-index` on arbitrary
 * paths, so diffs first check that there is a repository.
 */
export async function runGit(
  ctx: ToolContext,
  settings: GitSettings,
  args: readonly string[],
  opts: GitRunOptions = {},
): Promise<GitResult> {
  if (args[0] === 'diff') await spawnGit(ctx, settings, ['rev-parse', '--git-dir'], { readOnly: true });
  return spawnGit(ctx, settings, args, opts);
}

function spawnGit(
  ctx: ToolContext,
  settings: GitSettings,
  args: readonly string[],
  opts: GitRunOptions = {},
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    ctx.signal.throwIfAborted();
    const env = { ...process.env, ...GIT_ENV, ...(opts.readOnly ? { GIT_OPTIONAL_LOCKS: '0' } : {}) };
    const child = spawn(settings.binary, [...GLOBAL_ARGS, ...args], {
      cwd: ctx.cwd,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      // Its own process group, so hooks and helpers it starts are killed with it.
      detached: true,
    });
    const out: string[] = [];
    let outChars = 0;
    let err = '';
    let truncated = false;
    let stopped: 'timeout' | 'cancelled' | undefined;
    const kill = (): void => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // The group is already gone.
      }
    };
    const timer = setTimeout(() => {
      stopped = 'timeout';
      kill();
    }, settings.timeoutMs);
    const onAbort = (): void => {
      stopped = 'cancelled';
      kill();
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    const cleanup = (): void => {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onAbort);
    };

    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (truncated) return;
      const room = settings.maxOutputChars - outChars;
      if (chunk.length > room) {
        out.push(chunk.slice(0, room));
        outChars += room;
        truncated = true;
        kill();
        return;
      }
      out.push(chunk);
      outChars += chunk.length;
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (err.length < 64_000) err += chunk;
    });
    child.stdin.on('error', () => {}); // git may exit before reading it all.
    child.stdin.end(opts.input ?? '');

    child.on('error', (error: NodeJS.ErrnoException) => {
      cleanup();
      if (error.code === 'ENOENT') {
        reject(
          new ToolError(
            `git is not installed or not on PATH (tried "${settings.binary}")`,
            'install git, or use bash if another version control tool is meant',
          ),
        );
      } else reject(error);
    });
    child.on('close', (code) => {
      cleanup();
      const stdout = out.join('');
      if (stopped === 'cancelled') return reject(ctx.signal.reason ?? new Error('cancelled'));
      if (stopped === 'timeout') {
        return reject(
          new ToolError(
            `${commandLine(args)} timed out after ${formatSeconds(settings.timeoutMs)}`,
            'narrow the command (a path, a ref range or a smaller max_count); for commits, check for slow hooks',
          ),
        );
      }
      if (truncated || code === 0 || (code !== null && opts.okCodes?.includes(code))) {
        return resolve({ stdout, stderr: err, exitCode: code, truncated });
      }
      reject(gitFailure(ctx, args, err, stdout, code));
    });
  });
}

function gitFailure(
  ctx: ToolContext,
  args: readonly string[],
  stderr: string,
  stdout: string,
  code: number | null,
): ToolError {
  if (NOT_A_REPO.test(stderr)) {
    return new ToolError(
      `not a git repository: ${ctx.cwd}`,
      'run `git init` there to create one (ask the user first), or start tea with --cwd inside a git repository',
    );
  }
  const message = gitMessage(stderr, stdout) || `exit code ${code}`;
  return new ToolError(`git ${args[0] ?? ''} failed: ${message}`, hintFor(message));
}

/** A footer for output that hit the cap. */
export function cappedNote(result: GitResult, settings: GitSettings, narrow: string): string {
  return result.truncated ? `\n… [output stopped at ${settings.maxOutputChars} chars; ${narrow}]` : '';
}
