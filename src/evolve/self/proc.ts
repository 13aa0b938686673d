/**
 * Running one gate's program (tsc, biome, vitest, git) with a time limit and the
 * call's cancel signal. A gate runs in a process group of its own, so a timeout or a
 * cancel kills the program and everything it started (vitest's workers, biome's
 * native binary), and the group is killed again once the program exits: nothing a
 * gate started may keep writing to the tree while it is being restored.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

export interface ProcResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Killed at the time limit. */
  timedOut: boolean;
  /** Killed because the signal was aborted. */
  cancelled: boolean;
  ms: number;
}

export interface ProcOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal: AbortSignal;
  /** Characters of stdout (and of stderr) kept; the rest is dropped (default 2 000 000). */
  maxOutput?: number;
  input?: string;
}

const KEEP = 2_000_000;

/**
 * The environment a gate runs in: the caller's, without variables that would point
 * git at another repository or index, or make vitest think it runs inside a test.
 */
export function gateEnv(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(base)) {
    if (value === undefined || key.startsWith('GIT_') || key === 'VITEST' || key.startsWith('VITEST_'))
      continue;
    env[key] = value;
  }
  // The same node as Tea's first on PATH, for programs started through `#!/usr/bin/env node`.
  env.PATH = [path.dirname(process.execPath), base.PATH ?? ''].filter((p) => p !== '').join(path.delimiter);
  env.NO_COLOR = '1';
  env.FORCE_COLOR = '0';
  env.CI = '1';
  return env;
}

/** Gate process groups running now: killed if Tea exits while they run (they are detached). */
const running = new Set<number>();
let exitHook = false;

function watch(pid: number | undefined): void {
  if (pid === undefined) return;
  running.add(pid);
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const p of running) killGroup(p);
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}

/** Runs `command args` to its end, its time limit or the signal; never rejects for the program's own failure. */
export function runProcess(command: string, args: readonly string[], opts: ProcOptions): Promise<ProcResult> {
  const started = Date.now();
  const keep = opts.maxOutput ?? KEEP;
  return new Promise((resolve, reject) => {
    if (opts.signal.aborted) {
      resolve({ code: null, stdout: '', stderr: '', timedOut: false, cancelled: true, ms: 0 });
      return;
    }
    const child = spawn(command, [...args], {
      cwd: opts.cwd,
      env: opts.env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    watch(child.pid);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    let cancelled = false;
    child.stdout.setEncoding('utf8');
    child.stderr.setEncoding('utf8');
    child.stdout.on('data', (d: string) => {
      if (stdout.length < keep) stdout += d.slice(0, keep - stdout.length);
    });
    child.stderr.on('data', (d: string) => {
      if (stderr.length < keep) stderr += d.slice(0, keep - stderr.length);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, opts.timeoutMs);
    const onAbort = (): void => {
      cancelled = true;
      killGroup(child.pid);
    };
    opts.signal.addEventListener('abort', onAbort, { once: true });
    child.on('error', (error) => {
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
      reject(error);
    });
    // Stragglers holding the pipes would keep 'close' from coming: they go when the program ends.
    child.on('exit', () => killGroup(child.pid));
    child.on('close', (code) => {
      clearTimeout(timer);
      opts.signal.removeEventListener('abort', onAbort);
      // Whatever the program left running in its group goes with it.
      killGroup(child.pid);
      if (child.pid !== undefined) running.delete(child.pid);
      resolve({ code, stdout, stderr, timedOut, cancelled, ms: Date.now() - started });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}

/** Terminal colour codes, which some programs print even when told not to. */
export function stripAnsi(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: ESC starts the sequences removed here.
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '');
}
