/**
 * bash through a face's client terminal (an editor's, over ACP: see ToolContext.shell).
 * The permission check has passed and the sandbox launch is built before this runs, so
 * the client runs the very program the local path would (bwrap around `bash -c`, or bash
 * itself). What differs: the deadline is the plain base timeout (the client's process
 * tree cannot be sampled, so it does not stretch while busy), the environment is the
 * client's with Tea's changes on top (secrets the scrub drops are set to ''), and the
 * output is what the client kept (its tail, up to `outputByteLimit` bytes).
 */
import type { Launch } from '../sandbox/index.js';
import type { ClientShell, ToolContext } from '../types.js';
import { type CommandResult, NON_INTERACTIVE_ENV } from './process.js';

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

/** Runs the launch in the client's terminal under the base deadline; a cancel or the deadline kills it there. */
export async function runInClient(
  shell: ClientShell,
  launch: Launch,
  ctx: ToolContext,
  opts: { baseMs: number; outputByteLimit: number },
): Promise<ClientRun> {
  const started = Date.now();
  const stop = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    stop.abort();
  }, opts.baseMs);
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
    });
    const killed: CommandResult['killed'] = ctx.signal.aborted
      ? { reason: 'cancelled' }
      : timedOut
        ? { reason: 'timeout', ranMs: Date.now() - started }
        : undefined;
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
    clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onCancel);
  }
}
