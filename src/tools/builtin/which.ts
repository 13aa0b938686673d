/** Finding executables on PATH, and the `which` tool. */
import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import * as z from 'zod';
import { Sandbox } from '../sandbox/sandbox.js';
import { defineTool, type Tool, ToolError } from '../types.js';

/** Every executable file named `name` on `pathEnv`, in PATH order. */
export function findExecutables(name: string, pathEnv: string | undefined = process.env.PATH): string[] {
  const found: string[] = [];
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    const candidate = join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      if (!found.includes(candidate)) found.push(candidate);
    } catch {
      // not here
    }
  }
  return found;
}

/** The first executable named `name` on PATH, if any. */
export function findExecutable(name: string, pathEnv?: string): string | undefined {
  return findExecutables(name, pathEnv)[0];
}

export interface VersionProbe {
  /** The first non-empty line the program printed, if it answered in time. */
  line: string | undefined;
  timedOut: boolean;
}

/**
 * Runs `file --version` in its own process group with a time limit; the group is
 * killed when the limit passes or `signal` aborts.
 */
export function probeVersion(
  file: string,
  opts: {
    timeoutMs: number;
    signal?: AbortSignal;
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    /** What to spawn instead of `file --version` (the same wrapped in a sandbox). */
    launch?: { file: string; args: string[] };
  },
): Promise<VersionProbe> {
  return new Promise((resolve) => {
    let output = '';
    let timedOut = false;
    const child = spawn(opts.launch?.file ?? file, opts.launch?.args ?? ['--version'], {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, opts.timeoutMs);
    const onAbort = (): void => killGroup();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const collect = (chunk: Buffer): void => {
      if (output.length < 4096) output += chunk.toString('utf8');
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const done = (): void => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      const line = timedOut ? undefined : output.split('\n').find((l) => l.trim() !== '');
      resolve({ line: line?.trim(), timedOut });
    };
    child.on('error', done);
    child.on('close', done);
  });
}

const EXECUTABLE_NAME = /^[A-Za-z0-9._+-]+$/;

export interface WhichToolOptions {
  /** How long `--version` may take (default 2 000 ms). */
  versionTimeoutMs?: number;
  /** The environment the probe runs with (default: the scrubbed process env). */
  env?: () => NodeJS.ProcessEnv;
  /** Runs the `--version` probe (default: unsandboxed). */
  sandbox?: Sandbox;
}

export function whichTool(options: WhichToolOptions = {}): Tool {
  const versionTimeoutMs = options.versionTimeoutMs ?? 2000;
  return defineTool({
    name: 'which',
    description:
      'Find where a program is on PATH and print its `--version` first line. Use it to check a tool is installed before running it.',
    parameters: z.object({
      name: z.string().min(1).describe('Program name, e.g. "python3"'),
    }),
    category: 'exec',
    keywords: ['which', 'installed', 'program', 'executable', 'path', 'version', 'command', '安装', '版本'],
    // Running `<name> --version` executes the program.
    readOnly: false,
    concurrencySafe: false,
    approval: 'exec',
    timeoutMs: versionTimeoutMs + 5000,
    subject: (args) => args.name,
    async execute(args, ctx) {
      if (!EXECUTABLE_NAME.test(args.name)) {
        throw new ToolError(
          `"${args.name}" is not a program name`,
          'pass a bare name such as "git" or "python3", without a path or arguments',
        );
      }
      const env = options.env?.() ?? process.env;
      const all = findExecutables(args.name, env.PATH);
      const first = all[0];
      if (first === undefined) {
        throw new ToolError(
          `${args.name} was not found on PATH`,
          'it is not installed (or not on PATH); check the spelling or look for an alternative program',
        );
      }
      const launch = await (options.sandbox ?? Sandbox.off()).launch({
        command: first,
        args: ['--version'],
        cwd: ctx.cwd,
        env,
        network: false,
      });
      const probe = await probeVersion(first, {
        timeoutMs: versionTimeoutMs,
        signal: ctx.signal,
        cwd: ctx.cwd,
        env: launch.env,
        launch,
      });
      const version = probe.timedOut
        ? `(no answer to --version within ${versionTimeoutMs / 1000} s)`
        : (probe.line ?? '(no version output)');
      const lines = [`${first}`, `version: ${version}`];
      if (all.length > 1) lines.push(`also on PATH: ${all.slice(1).join(', ')}`);
      return lines.join('\n');
    },
  });
}
