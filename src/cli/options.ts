/**
 * Options several commands share, defined once so that they read the same
 * everywhere: `--permission-mode` (with `--mode`, its old name on `tea serve` and
 * `tea mcp serve`, kept as a hidden alias that warns).
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { PermissionMode } from '../tools/permissions.js';

/** Spelled out here (not imported) so that parsing flags does not load the permission policy. */
const MODES: readonly PermissionMode[] = ['read-only', 'ask', 'auto-edit', 'yolo'];

/** Commander parser of a permission mode. */
export function permissionMode(value: string): PermissionMode {
  if ((MODES as readonly string[]).includes(value)) return value as PermissionMode;
  throw new InvalidArgumentError('expected read-only, ask, auto-edit or yolo');
}

/** `--permission-mode <mode>` with this help text. */
export function permissionModeOption(help: string): Option {
  return new Option('--permission-mode <mode>', help).argParser(permissionMode);
}

/** `--mode <mode>`: the old name of `--permission-mode` on `tea serve` and `tea mcp serve`. */
export function deprecatedModeOption(): Option {
  return new Option('--mode <mode>').argParser(permissionMode).hideHelp();
}

/**
 * The mode given by `--permission-mode`, else by the deprecated `--mode` (with one
 * warning on stderr).
 */
export function givenMode(flags: { permissionMode?: string; mode?: string }): string | undefined {
  if (flags.mode !== undefined) {
    process.stderr.write('tea: warning: --mode is deprecated; use --permission-mode (same values)\n');
  }
  return flags.permissionMode ?? flags.mode;
}

/** A repeatable option's values, in the order given. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** `--yolo`, `--allow <rule>` and `--add-dir <dir>`, as every command that runs tools reads them. */
export function addPermissionFlags(cmd: Command): Command {
  return cmd
    .option('--yolo', 'run every tool without asking (same as --permission-mode yolo)')
    .option(
      '--allow <rule>',
      "allow a tool without asking: 'tool' or 'tool:pattern' (repeatable)",
      collect,
      [],
    )
    .option('--add-dir <dir>', 'another directory file tools may use (repeatable)', collect, []);
}

/** Commander parser of a count: a positive integer. */
export function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive integer');
  return n;
}
