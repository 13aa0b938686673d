/**
 * bash through a face's client terminal (an editor's, over ACP: see ToolContext.shell).
 * The permission check has passed and the sandbox launch is built before this runs, so
 * the client runs the very program the local path would (bwrap around `bash -c`, or bash
 * itself). What differs: the deadline stretches only while the command prints (the
 * client's process tree cannot be sampled), the environment is the
 * client's with Tea's changes on top (secrets the scrub drops are set to ''), and the
 * output is what the client kept (its tail, up to `outputByteLimit` bytes).
 */
import type { Launch } from '../sandbox/index.js';
import type { ClientShell, ToolContext } from '../types.js';
import { type CommandResult, NON_INTERACTIVE_ENV } from './process.js';
import {
  type DeadlineStop,
  SMART_TIMEOUT_DEFAULTS,
  SmartDeadline,
  type SmartTimeoutOptions,
} from './smart-timeout.js';

/**
 * What the program's environment must change in the client's: variables Tea sets or
 * changes, and '' for those the scrub dropped (the client's environment is assumed to be
 * like Tea's own, as an editor that started Tea passes its environment on).
 */
export function clientEnv(
  launchEnv: NodeJS.ProcessEnv,
  base: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const out: Record<string, string> = {};
  const wanted: NodeJS.ProcessEnv = { ...launchEnv, ...NON_INTERACTIVE_ENV };
  for (const [name, value] of Object.entries(wanted)) {
    if (value !== undefined && base[name] !== value) out[name] = value;
  }
  for (const name of Object.keys(base)) if (wanted[name] === undefined) out[name] = '';
  return out;
}

export interface ClientRun {
  result: CommandResult;
  /** The client dropped the start of the output. */
  truncated: boolean;
}

/**
 * Runs the launch in the client's terminal under the bash deadline; a cancel or the
 * deadline kills it there. The deadline is the smart one (smart-timeout.ts) with the
 * client's output as its only sign of activity: the process tree is the client's, so a
 * command busy without printing counts as idle.
 */
export async function runInClient(
  shell: ClientShell,
  launch: Launch,
  ctx: ToolContext,
  opts: { baseMs: number; smart: SmartTimeoutOptions | false; outputByteLimit: number },
): Promise<ClientRun> {
  const stop = new AbortController();
  let verdict: DeadlineStop | undefined;
  let printed = false;
  const smart = opts.smart === false ? undefined : opts.smart;
  const monitor = smart && {
    sample: (): boolean => {
      const was = printed;
      printed = false;
      return was;
    },
  };
  const deadline = new SmartDeadline(opts.baseMs, smart ?? {}, monitor, (v) => {
    verdict = v;
    stop.abort();
  });
  const sampleMs = smart?.sampleMs ?? SMART_TIMEOUT_DEFAULTS.sampleMs;
  const onCancel = (): void => stop.abort();
  ctx.signal.addEventListener('abort', onCancel, { once: true });
  if (ctx.signal.aborted) stop.abort();
  try {
    const r = await shell.run({
      command: launch.file,
      args: launch.args,
      cwd: ctx.cwd,
      env: clientEnv(launch.env),
      outputByteLimit: opts.outputByteLimit,
      sessionId: ctx.sessionId,
      callId: ctx.callId,
      signal: stop.signal,
      // Watched from shortly before the base deadline: most commands end before it, unwatched.
      ...(monitor
        ? {
            watch: {
              afterMs: Math.max(0, opts.baseMs - 2 * sampleMs),
              everyMs: sampleMs,
              onOutput: () => {
                printed = true;
              },
            },
          }
        : {}),
    });
    const killed: CommandResult['killed'] = ctx.signal.aborted ? { reason: 'cancelled' } : verdict;
    return {
      result: {
        pid: undefined,
        exitCode: r.exitCode,
        exitSignal: (r.signal as NodeJS.Signals | null) ?? null,
        killed,
        output: r.output,
        detachedOutput: false,
      },
      truncated: r.truncated,
    };
  } finally {
    deadline.dispose();
    ctx.signal.removeEventListener('abort', onCancel);
  }
}
