/**
 * The permission entry point as faces reach it (tools/authorize.ts): the modes, the
 * settings of one run (mode, rules, roots), and the described facts of a call, which
 * faces show it by (its kind, title and files).
 */
import type { TeaConfig } from '../config/types.js';
import { PERMISSION_MODES, type PermissionMode, type PermissionRule } from '../tools/permissions.js';
import { existingDir } from './directories.js';
import { RuntimeError } from './errors.js';
import { allowRules } from './tools.js';

export { callFacts, describeCall } from '../tools/describe.js';
export { PERMISSION_MODES, PermissionPolicy } from '../tools/permissions.js';

export interface PermissionSettings {
  mode: PermissionMode;
  /** The config's rules, then the options' (the last match wins, so options win). */
  rules: PermissionRule[];
  /** Directories besides the workspace file tools may use: the config's, then the options'. */
  roots: string[];
}

/**
 * The permission settings of one run from the config and a face's options: a mode
 * (checked), `--allow` rules (checked against the tools that exist) and `--add-dir`
 * directories (which must exist). A mistake is a `usage` RuntimeError.
 */
export function permissionSettings(
  config: TeaConfig,
  opts: { permissionMode?: string; allow?: readonly string[]; addDir?: readonly string[] },
  toolNames: readonly string[],
): PermissionSettings {
  const fromOptions = allowRules(opts.allow ?? [], toolNames, Object.keys(config.mcpServers));
  const mode = opts.permissionMode ?? config.permissions.mode;
  if (!PERMISSION_MODES.includes(mode as PermissionMode))
    throw new RuntimeError(
      'usage',
      `unknown permission mode ${mode}: expected ${PERMISSION_MODES.join(', ')}`,
    );
  return {
    mode: mode as PermissionMode,
    rules: [...config.permissions.rules, ...fromOptions],
    roots: [...config.permissions.roots, ...(opts.addDir ?? []).map((d) => existingDir('--add-dir', d))],
  };
}
