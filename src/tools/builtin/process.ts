/**
 * Running a shell command in its own process group so a timeout or cancel can
 * kill everything it started, with output collected head+tail in arrival order.
 * The time limit is a smart deadline (smart-timeout.ts) on Linux, a plain one elsewhere.
 */
import { spawn } from 'node:child_process';
import type { SavedOutput } from '../types.js';
import { CommandOutput, type SpillTarget } from './command-output.js';
import { ActivityMonitor, procAvailable } from './proc-tree.js';
import { type DeadlineStop, SmartDeadline, type SmartTimeoutOptions } from './smart-timeout.js';

export interface CommandOptions {
  command: string;
  cwd: string;
  /** The base deadline. */
  timeoutMs: number;
  signal: AbortSignal;
  /** Time between SIGTERM and SIGKILL for the process group. */
  killGraceMs: number;
  /** Output characters kept in memory (past it: head+tail). */
  maxOutputChars: number;
  /** Where the whole output is saved once it outgrows `maxOutputChars` (absent: nowhere). */
  spill?: SpillTarget;
  /**
   * After the shell exits, how long to wait for its pipes to close; background
   * processes that keep them open are then left running, uncaptured (default 500).
   */
  pipeDrainMs?: number;
  /** The environment (default: process.env); NON_INTERACTIVE_ENV is added on top. */
  env?: NodeJS.ProcessEnv;
  /** Smart deadline tuning; `false` forces a plain timeout. */
  smart?: SmartTimeoutOptions | false;
  /** What to spawn instead of `bash -c <command>` (the same command wrapped in a sandbox). */
  launch?: { file: string; args: string[] };
}

export interface CommandResult {
  pid: number | undefined;
  exitCode: number | null;
  /** The signal that ended the shell, when it did not exit on its own. */
  exitSignal: NodeJS.Signals | null;
  /** Set when we killed the process group: the deadline's verdict, or a cancel. */
  killed: DeadlineStop | { reason: 'cancelled' } | undefined;
  output: string;
  /** The file holding the whole output, when it outgrew memory and was saved. */
  saved?: SavedOutput;
  /** The shell exited but something it started kept the output pipes open. */
  detachedOutput: boolean;
}

/** Environment tweaks so tools never wait for a pager or a password prompt. */
export const NON_INTERACTIVE_ENV = { PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' } as const;

/** Sends `signal` to the process group led by `pid`; quiet when it is gone. */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

export function runCommand(opts: CommandOptions): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(opts.launch?.file ?? 'bash', opts.launch?.args ?? ['-c', opts.command], {
      cwd: opts.cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...(opts.env ?? process.env), ...NON_INTERACTIVE_ENV },
    });
    const output = new CommandOutput(opts.maxOutputChars, opts.spill, (paused) => {
      for (const stream of [child.stdout, child.stderr]) {
        if (paused) stream.pause();
        else if (!stream.destroyed) stream.resume();
      }
    });
    let killed: CommandResult['killed'];
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let done = false;

    /** Stops waiting for pipes that something outside our reach keeps open. */
    const drainSoon = (): void => {
      drainTimer ??= setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(true);
      }, opts.pipeDrainMs ?? 500);
    };
    const stop = (why: NonNullable<CommandResult['killed']>): void => {
      if (done || killed) return;
      killed = why;
      deadline.dispose();
      signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => {
        signalGroup(child.pid, 'SIGKILL');
        drainSoon();
      }, opts.killGraceMs);
    };
    const smart = opts.smart !== false && child.pid !== undefined && procAvailable();
    const monitor = smart && child.pid !== undefined ? new ActivityMonitor(child.pid) : undefined;
    const deadline = new SmartDeadline(opts.timeoutMs, opts.smart || {}, monitor, (verdict) => stop(verdict));
    const startedAt = Date.now();
    const onAbort = (): void => {
      // The runner's own limit (a backstop) aborts with a TimeoutError; anything else is a cancel.
      const reason: unknown = opts.signal.reason;
      const timedOut = reason instanceof Error && reason.name === 'TimeoutError';
      stop(timedOut ? { reason: 'timeout', ranMs: Date.now() - startedAt } : { reason: 'cancelled' });
    };
    opts.signal.addEventListener('abort', onAbort, { once: true });

    const cleanup = (): void => {
      deadline.dispose();
      clearTimeout(killTimer);
      clearTimeout(drainTimer);
      opts.signal.removeEventListener('abort', onAbort);
    };
    const finish = (detachedOutput: boolean): void => {
      if (done) return;
      done = true;
      cleanup();
      void output.finish().then(({ text, saved }) => {
        resolve({
          pid: child.pid,
          exitCode: exit?.code ?? null,
          exitSignal: exit?.signal ?? null,
          killed,
          output: text,
          ...(saved ? { saved } : {}),
          detachedOutput,
        });
      });
    };

    for (const stream of [child.stdout, child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        output.push(chunk);
        deadline.noteActivity();
      });
    }
    child.on('error', (error) => {
      if (done) return;
      done = true;
      cleanup();
      reject(error);
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      deadline.dispose();
      if (!killed) drainSoon(); // When killing, the kill timer calls it after SIGKILL.
    });
    child.on('close', (code, signal) => {
      exit ??= { code, signal };
      finish(false);
    });
    if (opts.signal.aborted) onAbort();
  });
}
