/**
 * A child process run to its end with its output captured: stdout as bytes, stderr as
 * text (its first 20,000 characters), the stdin given written and closed, and a kill
 * (SIGKILL) when it runs past `timeoutMs`. `node:child_process` is loaded on the first
 * run, so a module that may run programs costs nothing until it does.
 */
import type * as ChildProcess from 'node:child_process';
import { createRequire } from 'node:module';

let cp: typeof ChildProcess | undefined;

function childProcess(): typeof ChildProcess {
  cp ??= createRequire(import.meta.url)('node:child_process') as typeof ChildProcess;
  return cp;
}

export interface CapturedRun {
  /** The exit code; null when a signal ended it (the timeout's kill among them). */
  code: number | null;
  stdout: Buffer;
  stderr: string;
  timedOut: boolean;
}

export interface CaptureOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  input?: string | Buffer;
  timeoutMs: number;
}

/** Runs `program args`; rejects only when it cannot start (e.g. not installed). */
export function runCaptured(
  program: string,
  args: readonly string[],
  opts: CaptureOptions,
): Promise<CapturedRun> {
  return new Promise((resolve, reject) => {
    const child = childProcess().spawn(program, args, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let stderr = '';
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        child.kill('SIGKILL');
      },
      Math.max(1, opts.timeoutMs),
    );
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 20_000) stderr += d.toString('utf8');
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr, timedOut });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(opts.input ?? '');
  });
}

/** The same, synchronously, for a quick question such as `git --version` (no output kept). */
export function runQuiet(program: string, args: readonly string[], timeoutMs: number): number | null {
  return childProcess().spawnSync(program, args, { stdio: 'ignore', timeout: timeoutMs }).status;
}
