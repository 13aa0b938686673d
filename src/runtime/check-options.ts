import { SANDBOX_MODES, type SandboxMode } from '../tools/sandbox/sandbox.js';
import { RuntimeError } from './errors.js';

/** Mistakes in `createRuntime`'s options, reported before anything is set up. */
export function checkOptions(opts: { sandbox?: SandboxMode; maxTurns?: number }): void {
  if (opts.sandbox !== undefined && !SANDBOX_MODES.includes(opts.sandbox))
    throw new RuntimeError(
      'usage',
      `unknown sandbox mode ${String(opts.sandbox)}: expected ${SANDBOX_MODES.join(', ')}`,
    );
  if (opts.maxTurns !== undefined && !(Number.isInteger(opts.maxTurns) && opts.maxTurns >= 1))
    throw new RuntimeError(
      'usage',
      `maxTurns must be a whole number of at least 1, got ${String(opts.maxTurns)}`,
    );
}
