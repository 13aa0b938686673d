/** Options for the system tool family. Every one has a default; tests shrink or inject them. */

export interface SystemToolOptions {
  /** The clock, in epoch milliseconds (default `Date.now`). */
  now?: () => number;
  /** The environment env_get and notify read (default `process.env`). */
  env?: Record<string, string | undefined>;
  /** Variable names env_get may read besides the default allow-list. */
  envAllow?: string[];
  /** notify: also try a desktop notification (default true). */
  desktopNotify?: boolean;
  /** notify: time limit for the desktop notifier process (default 5 000 ms). */
  notifyTimeoutMs?: number;
  /** The operating system the tools act for (default `process.platform`). */
  platform?: NodeJS.Platform;
  /** process_list: read `/proc`, run `ps`, or pick by platform (default 'auto'). */
  processBackend?: 'auto' | 'proc' | 'ps';
  /** process_list: rows shown when `max` is not given (default 30). */
  processDefaultMax?: number;
  /** disk_usage: entries walked before the size is reported as a lower bound (default 200 000). */
  diskMaxEntries?: number;
}

export interface ResolvedSystemOptions {
  now: () => number;
  env: Record<string, string | undefined>;
  envAllow: string[];
  desktopNotify: boolean;
  notifyTimeoutMs: number;
  platform: NodeJS.Platform;
  processBackend: 'auto' | 'proc' | 'ps';
  processDefaultMax: number;
  diskMaxEntries: number;
}

/** Variables env_get may read unless configured otherwise. */
export const DEFAULT_ENV_ALLOW = [
  'PATH',
  'HOME',
  'USER',
  'SHELL',
  'LANG',
  'LC_ALL',
  'TERM',
  'TZ',
  'PWD',
  'EDITOR',
  'NODE_ENV',
] as const;

export function resolveSystemOptions(opts: SystemToolOptions = {}): ResolvedSystemOptions {
  return {
    now: opts.now ?? Date.now,
    env: opts.env ?? process.env,
    envAllow: [...DEFAULT_ENV_ALLOW, ...(opts.envAllow ?? [])],
    desktopNotify: opts.desktopNotify ?? true,
    notifyTimeoutMs: opts.notifyTimeoutMs ?? 5000,
    platform: opts.platform ?? process.platform,
    processBackend: opts.processBackend ?? 'auto',
    processDefaultMax: opts.processDefaultMax ?? 30,
    diskMaxEntries: opts.diskMaxEntries ?? 200_000,
  };
}
