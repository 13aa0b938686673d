/** notify: tell the user something through the session and, when possible, the desktop. */
import { execFile } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import * as z from 'zod';
import { defineTool, type Tool, type ToolContext } from '../types.js';
import type { ResolvedSystemOptions } from './system-options.js';

/** The first executable called `name` on the PATH of `env`. */
export async function findOnPath(
  name: string,
  env: Record<string, string | undefined>,
): Promise<string | undefined> {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here; keep looking.
    }
  }
  return undefined;
}

function run(file: string, args: string[], opts: ResolvedSystemOptions, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { env: opts.env, timeout: opts.notifyTimeoutMs, killSignal: 'SIGKILL', signal, windowsHide: true },
      (error, _stdout, stderr) => {
        if (error === null) return resolve();
        const detail = stderr.trim().split('\n')[0] || error.message;
        reject(new Error(detail));
      },
    );
  });
}

/** Arguments for the platform's notifier, or why there is none to use. */
function desktopCommand(
  opts: ResolvedSystemOptions,
  title: string,
  body: string,
): { bin: string; args: string[] } | { skip: string } {
  if (opts.platform === 'darwin') {
    // The texts travel as argv, never inside the script, so quoting cannot break out.
    const script = [
      'on run argv',
      'display notification (item 2 of argv) with title (item 1 of argv)',
      'end run',
    ];
    const safe = (s: string): string => (s.startsWith('-') ? ` ${s}` : s);
    return { bin: 'osascript', args: [...script.flatMap((line) => ['-e', line]), safe(title), safe(body)] };
  }
  if (opts.platform === 'win32') return { skip: 'no desktop notifier on Windows' };
  if (!opts.env.DISPLAY && !opts.env.WAYLAND_DISPLAY)
    return { skip: 'no display (DISPLAY/WAYLAND_DISPLAY unset)' };
  return { bin: 'notify-send', args: ['--app-name=Tea', '--', title, body] };
}

async function desktopNotify(
  opts: ResolvedSystemOptions,
  title: string,
  body: string,
  signal: AbortSignal,
): Promise<string> {
  if (!opts.desktopNotify) return 'disabled';
  const command = desktopCommand(opts, title, body);
  if ('skip' in command) return `skipped (${command.skip})`;
  const path = await findOnPath(command.bin, opts.env);
  if (path === undefined) return `skipped (${command.bin} is not installed)`;
  try {
    await run(path, command.args, opts, signal);
    return `delivered (${command.bin})`;
  } catch (error) {
    return `failed (${command.bin}: ${error instanceof Error ? error.message : String(error)})`;
  }
}

function sessionNotify(ctx: ToolContext, title: string, body: string): string {
  if (ctx.host === undefined) return 'skipped (no session host)';
  try {
    ctx.host.notify(title, body);
    return 'delivered';
  } catch (error) {
    return `failed (${error instanceof Error ? error.message : String(error)})`;
  }
}

export function notifyTool(opts: ResolvedSystemOptions): Tool {
  return defineTool({
    name: 'notify',
    description:
      'Send the user a short notice (shown in the session and, when a desktop is available, as a desktop ' +
      'notification). Use it when long work finishes or needs their attention.',
    parameters: z.object({
      title: z.string().min(1).max(200).describe('Short headline'),
      body: z.string().max(2000).describe('The message'),
    }),
    category: 'system',
    keywords: ['notify', 'notification', 'alert', 'remind', 'tell', 'popup', 'desktop', '通知', '提醒'],
    readOnly: false,
    concurrencySafe: false,
    approval: 'none',
    timeoutMs: 15_000,
    subject: (args) => args.title,
    async execute(args, ctx) {
      const session = sessionNotify(ctx, args.title, args.body);
      const desktop = await desktopNotify(opts, args.title, args.body, ctx.signal);
      const delivered = session === 'delivered' || desktop.startsWith('delivered');
      return [
        delivered ? `notification sent: ${args.title}` : `notification not delivered anywhere: ${args.title}`,
        `session: ${session}`,
        `desktop: ${desktop}`,
      ].join('\n');
    },
  });
}
