/**
 * The `modes` and `default_mode` keys: work modes a user defines or overrides
 * (agent/work-modes.ts has the built-in six). Each file's entries are merged key by
 * key over earlier files'; every key remembers the file that set it, so the runtime,
 * which checks tool names against the tools it has, can name the file at fault.
 *
 * Trust: an untrusted project file may add or tune modes but not loosen permissions:
 * a `permission_mode` looser than the user's `permissions.mode` is ignored, and so is
 * `default_mode` (a default could start every session in a looser mode) until the
 * user runs `tea trust`.
 */
import { ConfigError, displayPath } from './errors.js';
import type { RawMode, RawModes } from './schema.js';
import { type PermissionModeName, STRICTNESS } from './sections.js';

/** A setting an untrusted file holds that is ignored (types.ts's `RestrictedSetting`). */
interface Restricted {
  key: string;
  value: string;
}

export const PERMISSION_MODE_NAMES: readonly PermissionModeName[] = ['read-only', 'ask', 'auto-edit', 'yolo'];

/** Mode names: lower-case words (`/mode <name>` in a terminal or an editor). */
export const MODE_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

type ModeKey = keyof RawMode;

/** One mode as the files set it (every key optional: a built-in mode keeps the rest). */
export interface WorkModeConfig {
  description?: string;
  prompt?: string;
  tools?: string[];
  permissionMode?: PermissionModeName;
  /** The file that set each key (the last one that did). */
  files: Partial<Record<ModeKey, string>>;
}

export interface WorkModesConfig {
  /** By name, in the order the files first name them. */
  modes: Record<string, WorkModeConfig>;
  default?: { name: string; file: string };
}

export function emptyModes(): WorkModesConfig {
  return { modes: {} };
}

function fail(file: string, key: string, problem: string, fix: string): ConfigError {
  return new ConfigError(`${displayPath(file)}: ${key}: ${problem}. Fix: ${fix}`, { file, key, fix });
}

/** One file's `modes` and `default_mode`, checked beyond the schema (names, empty texts). */
export function toModes(
  raw: RawModes | undefined,
  defaultMode: string | undefined,
  file: string,
): WorkModesConfig {
  const out = emptyModes();
  for (const [name, mode] of Object.entries(raw ?? {})) {
    const key = `modes.${name}`;
    if (!MODE_NAME.test(name))
      throw fail(
        file,
        key,
        `"${name}" is not a mode name`,
        'use a lower-case word such as `triage` or `release-notes` (letters, digits, _ and -).',
      );
    if ((PERMISSION_MODE_NAMES as readonly string[]).includes(name))
      throw fail(
        file,
        key,
        `"${name}" is a permission mode's name`,
        'give the work mode another name: `/mode <name>` must tell the two apart.',
      );
    if (mode.prompt !== undefined && mode.prompt.trim() === '')
      throw fail(
        file,
        `${key}.prompt`,
        'the prompt is empty',
        'write one short paragraph saying how the agent works in this mode, or remove the key.',
      );
    if (mode.description !== undefined && mode.description.trim() === '')
      throw fail(
        file,
        `${key}.description`,
        'the description is empty',
        'write one line for the mode pickers, or remove the key.',
      );
    if (mode.tools !== undefined && mode.tools.length === 0)
      throw fail(
        file,
        `${key}.tools`,
        'the tool list is empty',
        'name tools or categories (e.g. `[read, files]`), or `["*"]` for every tool.',
      );
    const entry: WorkModeConfig = { files: {} };
    if (mode.description !== undefined) entry.description = mode.description.trim();
    if (mode.prompt !== undefined) entry.prompt = mode.prompt.trim();
    if (mode.tools !== undefined) entry.tools = mode.tools.map((t) => t.trim());
    if (mode.permission_mode !== undefined) entry.permissionMode = mode.permission_mode;
    for (const k of Object.keys(mode) as ModeKey[]) if (mode[k] !== undefined) entry.files[k] = file;
    out.modes[name] = entry;
  }
  if (defaultMode !== undefined) {
    if (!MODE_NAME.test(defaultMode))
      throw fail(
        file,
        'default_mode',
        `"${defaultMode}" is not a mode name`,
        'name a work mode, e.g. `default_mode: review`.',
      );
    out.default = { name: defaultMode, file };
  }
  return out;
}

/** `over`'s keys win, mode by mode. */
export function mergeModes(base: WorkModesConfig, over: WorkModesConfig): WorkModesConfig {
  const modes: Record<string, WorkModeConfig> = { ...base.modes };
  for (const [name, mode] of Object.entries(over.modes)) {
    const prev = Object.hasOwn(modes, name) ? modes[name] : undefined;
    modes[name] = prev ? { ...prev, ...mode, files: { ...prev.files, ...mode.files } } : mode;
  }
  const def = over.default ?? base.default;
  return def ? { modes, default: def } : { modes };
}

/**
 * An untrusted project file's `modes` and `default_mode` without what would loosen
 * permissions (see the module comment); each one dropped is listed.
 */
export function screenModes(
  raw: { modes?: RawModes; default_mode?: string },
  trustedMode: PermissionModeName,
  restricted: Restricted[],
): { modes?: RawModes; default_mode?: string } {
  const kept: { modes?: RawModes; default_mode?: string } = {};
  if (raw.modes) {
    kept.modes = {};
    for (const [name, mode] of Object.entries(raw.modes)) {
      const looser =
        mode.permission_mode !== undefined && STRICTNESS[mode.permission_mode] < STRICTNESS[trustedMode];
      if (!looser) {
        kept.modes[name] = mode;
        continue;
      }
      restricted.push({ key: `modes.${name}.permission_mode`, value: mode.permission_mode! });
      const { permission_mode: _, ...rest } = mode;
      kept.modes[name] = rest;
    }
  }
  if (raw.default_mode !== undefined) restricted.push({ key: 'default_mode', value: raw.default_mode });
  return kept;
}
