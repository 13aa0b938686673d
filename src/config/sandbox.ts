/**
 * The `sandbox` section: where shell tools run.
 *
 *   sandbox: auto                       # bubblewrap when it works, else a one-time notice (default)
 *   sandbox: on                         # refuse to run shell tools without it
 *   sandbox: off                        # never sandbox
 *   sandbox: { mode: auto, network: true }   # and let sandboxed commands use the network
 *
 * Like permissions, a project file may only make it stricter: `on` over `auto`,
 * `auto` over `off`, `network: false`; a looser setting there is ignored with a warning.
 */
import { displayPath } from './errors.js';

export type SandboxModeName = 'auto' | 'on' | 'off';

export interface SandboxConfig {
  mode: SandboxModeName;
  /** Sandboxed commands keep the network (otherwise only a `network` permission rule or yolo mode gives it). */
  network: boolean;
}

/**
 * What the sandbox setting amounts to on this machine, probed by the caller (the
 * config layer does not run programs), for `tea config`.
 */
export interface SandboxReport {
  /** The mode and what it means here: `auto (bubblewrap 0.8.0 works)`. */
  summary: string;
  /** Shell commands run inside bubblewrap. */
  sandboxed: boolean;
}

export interface SandboxEntry {
  mode?: SandboxModeName;
  network?: boolean;
  file: string;
}

/** What one file says (`sandbox: on` is short for `{ mode: on }`). */
export function toSandboxEntry(
  raw: SandboxModeName | { mode?: SandboxModeName; network?: boolean } | undefined,
  file: string,
): SandboxEntry[] {
  if (raw === undefined) return [];
  const value = typeof raw === 'string' ? { mode: raw } : raw;
  return [
    {
      ...(value.mode !== undefined ? { mode: value.mode } : {}),
      ...(value.network !== undefined ? { network: value.network } : {}),
      file,
    },
  ];
}

const STRICTNESS: Record<SandboxModeName, number> = { off: 0, auto: 1, on: 2 };

export const SANDBOX_DEFAULTS: SandboxConfig = { mode: 'auto', network: false };

/** The effective sandbox settings; `trusted` files (the user's own) may loosen them, others only tighten. */
export function finaliseSandbox(
  entries: readonly SandboxEntry[],
  trusted: (file: string) => boolean,
): { sandbox: SandboxConfig; warnings: string[] } {
  const sandbox: SandboxConfig = { ...SANDBOX_DEFAULTS };
  const warnings: string[] = [];
  for (const entry of entries) {
    const own = trusted(entry.file);
    if (entry.mode !== undefined) {
      if (own || STRICTNESS[entry.mode] >= STRICTNESS[sandbox.mode]) sandbox.mode = entry.mode;
      else
        warnings.push(
          `${displayPath(entry.file)}: sandbox mode ${entry.mode} ignored: a project file may only make Tea stricter`,
        );
    }
    if (entry.network !== undefined) {
      if (own || !entry.network) sandbox.network = entry.network;
      else
        warnings.push(
          `${displayPath(entry.file)}: sandbox.network ignored: only your own config may let commands use the network`,
        );
    }
  }
  return { sandbox, warnings };
}
