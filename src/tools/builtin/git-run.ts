/**
 * Running the `git` CLI for the git tools: argument arrays (never a shell), a
 * non-interactive environment that runs none of the repository's programs (see
 * git-safety.ts), a time limit, the user's cancel signal, and an output cap that
 * stops git once enough has been read.
 */
import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { relative, resolve as resolveFrom } from 'node:path';
import { formatSeconds } from '../abort.js';
import { type ToolContext, ToolError } from '../types.js';
import { realpathLoose, resolvePath } from '../workspace.js';
import {
  analyzeConfig,
  configEnv,
  parseConfigList,
  parseSubmoduleNames,
  type RepoConfig,
  repoProgramsFor,
  SAFE_CONFIG,
  SAFE_ENV,
  type WriteNeeds,
} from './git-safety.js';

/** Limits for the git tools; tests shrink them. */
export interface GitToolOptions {
  /** Time limit for one git command (default 30 000 ms). */
  timeoutMs?: number;
  /** Output characters kept from one git command before it is stopped (default 28 000). */
  maxOutputChars?: number;
  /** The git executable (default `git` from PATH). */
  binary?: string;
  /** Time limit for `git commit`, which may wait for a signing program (default 120 000 ms). */
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

/** `-c` pairs placed before every subcommand: plain, stable output, and no program run. */
const GLOBAL_CONFIG: readonly (readonly [string, string])[] = [
  ['color.ui', 'false'],
  ['core.quotepath', 'false'],
  ...SAFE_CONFIG,
];

function globalArgs(keepHooksPath: boolean): string[] {
  const pairs = keepHooksPath ? GLOBAL_CONFIG.filter(([key]) => key !== 'core.hooksPath') : GLOBAL_CONFIG;
  return [...pairs.flatMap(([key, value]) => ['-c', `${key}=${value}`]), '--no-pager'];
}

/** Never prompt, never page, never open an editor, no transport, always English messages. */
const GIT_ENV = { ...SAFE_ENV, GIT_LITERAL_PATHSPECS: '1', LC_ALL: 'C', LANG: 'C' } as const;

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
  /** A time limit other than `settings.timeoutMs` (commits, whose hooks are not run but may be slow). */
  timeoutMs?: number;
}

interface SpawnOptions extends GitRunOptions {
  /** Config for this repository from `analyzeConfig`. */
  overrides?: readonly (readonly [string, string])[];
  /** Leave `core.hooksPath` as configured (only to ask git where the hooks are). */
  keepHooksPath?: boolean;
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
  if (/transport '.*' not allowed|lazy fetching disabled/i.test(message)) {
    return 'objects are missing (a partial clone) and git tools never contact a remote; fetch them with bash (git fetch), which asks for approval';
  }
  if (/unknown option.*show-scope/i.test(message)) {
    return 'git tools need git 2.31 or newer; upgrade git';
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

/** Git in one repository for one tool call: its config read once, its programs never run. */
export interface Git {
  /** What the repository's config asks git to run. */
  readonly config: RepoConfig;
  /** Runs git in `ctx.cwd`; rejects with a ToolError carrying git's own message on failure. */
  run(args: readonly string[], opts?: GitRunOptions): Promise<GitResult>;
  /**
   * Rejects with a ToolError naming them when `command` would run hooks or programs
   * set by the repository (git tools disable hooks, so a write that would fire one is
   * refused rather than run without it).
   */
  refuseRepoPrograms(command: readonly string[], needs: WriteNeeds): Promise<void>;
}

const CANARY = 'tea.configcount';

/** Both results; on a failure, the first error once both have ended (no git left running). */
async function both<A, B>(a: Promise<A>, b: Promise<B>): Promise<[A, B]> {
  const [ra, rb] = await Promise.allSettled([a, b]);
  if (ra.status === 'rejected') throw ra.reason;
  if (rb.status === 'rejected') throw rb.reason;
  return [ra.value, rb.value];
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (info) => info.isFile(),
    () => false,
  );
}

/**
 * Reads the repository's config (scopes and origins) and `.gitmodules` before the
 * first real command. Outside a repository this fails with the usual "not a git
 * repository" error, which also keeps `git diff` from turning into `diff --no-index`.
 */
export async function openGit(ctx: ToolContext, settings: GitSettings): Promise<Git> {
  const where = ['rev-parse', '--git-path', 'hooks', '--show-cdup'];
  const listing = ['config', '--list', '--show-scope', '--show-origin', '-z'];
  const [probe, listed] = await both(
    spawnGit(ctx, settings, where, { readOnly: true, keepHooksPath: true }),
    // The canary shows whether this git reads GIT_CONFIG_COUNT (2.31+), which carries the overrides.
    spawnGit(ctx, settings, listing, { readOnly: true, overrides: [[CANARY, 'true']] }),
  );
  const [hooksLine = '', cdup] = probe.stdout.split('\n');
  const hooksDir = hooksLine === '' ? undefined : resolveFrom(ctx.cwd, hooksLine);
  const entries = parseConfigList(listed.stdout);
  let submodules: string[] = [];
  const gitmodules = cdup === undefined ? undefined : resolveFrom(ctx.cwd, cdup, '.gitmodules');
  if (gitmodules !== undefined && (await isFile(gitmodules))) {
    const names = ['config', '--file', gitmodules, '--name-only', '--list', '-z'];
    // At a bad line git stops (and so does every command reading the file); the names before it count.
    const result = await spawnGit(ctx, settings, names, { readOnly: true, okCodes: [1, 3, 128] });
    submodules = parseSubmoduleNames(result.stdout);
  }
  const config = analyzeConfig(entries, submodules);
  if (config.overrides.length > 0 && !entries.some((e) => e.key === CANARY)) {
    throw new ToolError(
      'this git cannot be told to leave the programs this repository sets up alone (git tools need git 2.31 or newer)',
      'upgrade git; if the user trusts this repository, bash can run git instead (it asks for approval)',
    );
  }
  return {
    config,
    run: (args, opts = {}) => spawnGit(ctx, settings, args, { ...opts, overrides: config.overrides }),
    async refuseRepoPrograms(command, needs) {
      const found = await repoProgramsFor(config, hooksDir, needs);
      if (found.length === 0) return;
      throw new ToolError(
        `${commandLine(command)} was not run: it would run programs this repository sets up, and git ` +
          `tools never run those:\n${found.map((f) => `  - ${f}`).join('\n')}`,
        'if the user trusts this repository, run the same git command with bash (it asks for approval ' +
          'to run commands), or ask the user to run it',
      );
    },
  };
}

function spawnGit(
  ctx: ToolContext,
  settings: GitSettings,
  args: readonly string[],
  opts: SpawnOptions = {},
): Promise<GitResult> {
  return new Promise((resolve, reject) => {
    ctx.signal.throwIfAborted();
    const env = {
      ...process.env,
      ...GIT_ENV,
      ...configEnv(process.env, opts.overrides ?? []),
      ...(opts.readOnly ? { GIT_OPTIONAL_LOCKS: '0' } : {}),
    };
    const child = spawn(settings.binary, [...globalArgs(opts.keepHooksPath === true), ...args], {
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
    const timeoutMs = opts.timeoutMs ?? settings.timeoutMs;
    const timer = setTimeout(() => {
      stopped = 'timeout';
      kill();
    }, timeoutMs);
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
            `${commandLine(args)} timed out after ${formatSeconds(timeoutMs)}`,
            'narrow the command (a path, a ref range or a smaller max_count)',
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
