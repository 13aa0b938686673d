/**
 * Git for the operation journal: every command runs against the SHADOW repository
 * (`GIT_DIR`, `GIT_INDEX_FILE`, `GIT_WORK_TREE`), never the user's. No global or system
 * config is read (`core.autocrlf`, filters or an excludes file there would make blobs
 * differ from the bytes on disk), no hook, fsmonitor, pager or transport can run, and
 * every inherited `GIT_*` variable is dropped so a user's `GIT_DIR` cannot redirect us.
 */
import { runCaptured, runQuiet } from '../../util/captured-run.js';

export class ShadowGitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
    readonly code: number | null,
    readonly timedOut: boolean,
  ) {
    const why = timedOut ? 'timed out' : `failed (${code})`;
    super(`git ${args[0] ?? ''} ${why}: ${stderr.trim().split('\n').slice(0, 3).join(' ')}`);
    this.name = 'ShadowGitError';
  }
}

/** Where one command runs: the shadow repository, its index, the workspace. */
export interface ShadowPlace {
  /** The git program (default `git`). */
  git?: string;
  gitDir: string;
  indexFile: string;
  workTree: string;
}

export interface RunOptions {
  input?: string | Buffer;
  timeoutMs?: number;
}

const CONFIG = [
  ['core.autocrlf', 'false'],
  ['core.safecrlf', 'false'],
  ['core.fsmonitor', 'false'],
  ['core.hooksPath', '/dev/null'],
  ['core.quotepath', 'false'],
  ['core.pager', 'cat'],
  ['core.fileMode', 'true'],
  ['core.symlinks', 'true'],
  ['core.untrackedCache', 'true'],
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['protocol.allow', 'never'],
  ['submodule.recurse', 'false'],
  ['color.ui', 'false'],
].flatMap(([k, v]) => ['-c', `${k}=${v}`]);

function env(place: ShadowPlace): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('GIT_')) out[k] = v;
  return {
    ...out,
    GIT_DIR: place.gitDir,
    // No work tree: the repository itself is made (`init --bare`).
    ...(place.workTree === '' ? {} : { GIT_INDEX_FILE: place.indexFile, GIT_WORK_TREE: place.workTree }),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_NO_LAZY_FETCH: '1',
    GIT_ALLOW_PROTOCOL: '',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    LC_ALL: 'C',
    LANG: 'C',
  };
}

/** Runs git in the workspace against the shadow repository; resolves with stdout bytes. */
export function shadowGit(
  place: ShadowPlace,
  args: readonly string[],
  opts: RunOptions = {},
): Promise<Buffer> {
  return runCaptured(place.git ?? 'git', [...CONFIG, ...args], {
    cwd: place.workTree || place.gitDir,
    env: env(place),
    timeoutMs: opts.timeoutMs ?? 60_000,
    ...(opts.input === undefined ? {} : { input: opts.input }),
  }).then((r) => {
    if (r.code === 0 && !r.timedOut) return r.stdout;
    throw new ShadowGitError(args, r.stderr, r.code, r.timedOut);
  });
}

const available = new Map<string, boolean>();

/** Whether the git program runs here (asked once per process and program). */
export function gitInstalled(program = 'git'): boolean {
  let ok = available.get(program);
  if (ok === undefined) {
    ok = runQuiet(program, ['--version'], 10_000) === 0;
    available.set(program, ok);
  }
  return ok;
}

/** Splits NUL-separated output into its non-empty fields. */
export function zFields(out: Buffer): string[] {
  return out
    .toString('utf8')
    .split('\0')
    .filter((s) => s !== '');
}
