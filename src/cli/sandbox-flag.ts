/** `--sandbox <auto|on|off>` (kept apart from sandbox-setup.ts so the option costs nothing at start-up). */
import { InvalidArgumentError } from 'commander';

export type SandboxFlag = 'auto' | 'on' | 'off';

const MODES: readonly SandboxFlag[] = ['auto', 'on', 'off'];

/** Commander parser of `--sandbox`. */
export function sandboxFlag(value: string): SandboxFlag {
  if ((MODES as readonly string[]).includes(value)) return value as SandboxFlag;
  throw new InvalidArgumentError('expected auto, on or off');
}

export const SANDBOX_FLAG_HELP =
  'where shell tools run: auto (bubblewrap when present) | on (required) | off (default: config, else auto)';
