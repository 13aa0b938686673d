/**
 * Git tools never run a program that the repository names. A repository's own
 * config (`.git/config`, its worktree config and every file they include) can make
 * plain git commands run programs: `core.fsmonitor` on status, textconv and external
 * diff drivers on diff, clean/smudge filters on status/add/checkout, hooks on commit,
 * signing programs, merge drivers, transports (`ext::`, `core.sshCommand`, credential
 * helpers) when a partial clone fetches a missing object. This module holds:
 *
 * - the fixed overrides given to every git command (`SAFE_CONFIG`, `SAFE_ENV`);
 * - the reading of the repository's config (`analyzeConfig`): filters are turned off
 *   by name (git has no switch for all of them), configured hooks are disabled, and
 *   submodules are kept from running git in their own, unread, config;
 * - the check before a write (`repoProgramsFor`): hooks, filters, merge drivers and
 *   signing programs that the write would need are reported, and the tool refuses,
 *   pointing to bash, which asks for `exec` approval.
 *
 * Programs set in the user's own config (system, global, `git -c` from the user's
 * environment) stay as they are: a git-lfs filter in ~/.gitconfig keeps working.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Config given as `-c` to every git command: these win over every config file.
 * (`diff.external` and diff drivers cannot be emptied this way, git would try to run
 * an empty command; the diffing tools pass `--no-ext-diff --no-textconv` instead.)
 */
export const SAFE_CONFIG: readonly (readonly [key: string, value: string])[] = [
  ['core.fsmonitor', 'false'],
  // No hooks at all; writes that would fire one refuse first (see `repoProgramsFor`).
  ['core.hooksPath', '/dev/null'],
  ['core.pager', 'cat'],
  ['core.editor', ':'],
  ['sequence.editor', ':'],
  ['core.askPass', ''],
  // An empty value empties the list of credential helpers.
  ['credential.helper', ''],
  // `git log`/`git show` would verify signatures with `gpg.program`.
  ['log.showSignature', 'false'],
  // No background gc/maintenance started by a commit.
  ['gc.auto', '0'],
  ['maintenance.auto', 'false'],
  ['protocol.allow', 'never'],
  // Submodules run git in their own config, which is not read here: never step into them.
  ['submodule.recurse', 'false'],
  ['diff.ignoreSubmodules', 'dirty'],
  ['status.submoduleSummary', 'false'],
];

/**
 * Environment for every git command. A partial clone fetches missing objects from its
 * promisor remote on its own; `GIT_NO_LAZY_FETCH` (git 2.39.4+) stops that, and
 * `GIT_ALLOW_PROTOCOL` set to nothing allows no transport at all for older gits (it
 * overrides `protocol.<name>.allow=always` in a repository's config, which
 * `protocol.allow=never` does not): no `ext::` command, ssh, proxy or credential helper.
 */
export const SAFE_ENV: Readonly<Record<string, string>> = {
  GIT_ALLOW_PROTOCOL: '',
  GIT_NO_LAZY_FETCH: '1',
  GIT_SSH_COMMAND: 'false',
  GIT_ASKPASS: '',
  SSH_ASKPASS: '',
  GIT_TERMINAL_PROMPT: '0',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  GIT_EDITOR: ':',
  GIT_SEQUENCE_EDITOR: ':',
};

/** One line of `git config --list --show-scope --show-origin -z`. */
export interface ConfigEntry {
  scope: string;
  /** Where it was read, e.g. `file:.git/config`. */
  origin: string;
  /** Section and variable lower-cased, subsection as written: `filter.Crypt.clean`. */
  key: string;
  /** Undefined for a bare `key` line (a boolean true). */
  value: string | undefined;
}

/** A program named by the repository's own config. */
export interface RepoProgram {
  /** What it is, for messages: `filter "crypt"`, `merge driver "ours"`. */
  what: string;
  key: string;
  value: string;
  origin: string;
}

/** A hook set in config (git 2.54+: `hook.<name>.command` with `hook.<name>.event`). */
export interface ConfigHook {
  name: string;
  events: string[];
  command: string;
  origin: string;
  /** `hook.<name>.enabled`; a disabled hook is not reported, and stays disabled. */
  enabled: boolean;
}

/** What the repository's config asks git to run, and the overrides that stop it. */
export interface RepoConfig {
  /** Extra config for every command in this repository (passed as GIT_CONFIG_COUNT pairs). */
  overrides: [key: string, value: string][];
  /** Filter programs set by the repository (turned off by `overrides`). */
  filters: RepoProgram[];
  /** Merge drivers set by the repository. */
  mergeDrivers: RepoProgram[];
  /** Signing programs set by the repository. */
  signers: RepoProgram[];
  /** Whether commits are signed (`commit.gpgSign`, from any config). */
  signsCommits: boolean;
  /** Hooks set in config, from any config (disabled by `overrides`). */
  configHooks: ConfigHook[];
}

/** Scopes the user controls; anything else (local, worktree, unknown) is the repository's. */
const USER_SCOPES = new Set(['system', 'global', 'command']);

/** Parses `git config --list --show-scope --show-origin -z`: scope NUL origin NUL key LF value NUL. */
export function parseConfigList(output: string): ConfigEntry[] {
  const parts = output.split('\0');
  const entries: ConfigEntry[] = [];
  for (let i = 0; i + 2 < parts.length; i += 3) {
    const scope = parts[i] ?? '';
    const origin = parts[i + 1] ?? '';
    const item = parts[i + 2] ?? '';
    const nl = item.indexOf('\n');
    entries.push(
      nl === -1
        ? { scope, origin, key: item, value: undefined }
        : { scope, origin, key: item.slice(0, nl), value: item.slice(nl + 1) },
    );
  }
  return entries;
}

/** `section.subsection.variable` split at the first and last dot; undefined without a subsection. */
function splitKey(key: string): { section: string; sub: string; name: string } | undefined {
  const first = key.indexOf('.');
  const last = key.lastIndexOf('.');
  if (first === -1 || last === first) return undefined;
  return { section: key.slice(0, first), sub: key.slice(first + 1, last), name: key.slice(last + 1) };
}

/** Git's boolean reading of a config value (a bare key is true). */
function configBool(value: string | undefined): boolean {
  if (value === undefined) return true;
  const v = value.trim().toLowerCase();
  if (['true', 'yes', 'on'].includes(v)) return true;
  if (['false', 'no', 'off', ''].includes(v)) return false;
  const n = Number(v);
  return Number.isFinite(n) && n !== 0;
}

function fromFile(origin: string): string {
  return origin.startsWith('file:') ? origin.slice(5) : origin;
}

const FILTER_KEYS = new Set(['clean', 'smudge', 'process']);
const SIGNING_KEY = /^gpg\.(?:program|[^.]+\.program|ssh\.defaultkeycommand)$/;

/**
 * Reads the config entries (and the submodule names from `.gitmodules`) into the
 * overrides and findings above.
 */
export function analyzeConfig(
  entries: readonly ConfigEntry[],
  submodules: readonly string[] = [],
): RepoConfig {
  const result: RepoConfig = {
    overrides: [],
    filters: [],
    mergeDrivers: [],
    signers: [],
    signsCommits: false,
    configHooks: [],
  };
  const filterNames = new Set<string>();
  const submoduleNames = new Set(submodules);
  const hooks = new Map<string, ConfigHook>();
  for (const e of entries) {
    const repo = !USER_SCOPES.has(e.scope);
    const value = e.value ?? '';
    const origin = fromFile(e.origin);
    if (e.key === 'commit.gpgsign') result.signsCommits = configBool(e.value);
    if (repo && SIGNING_KEY.test(e.key)) {
      result.signers.push({ what: 'signing program', key: e.key, value, origin });
    }
    const k = splitKey(e.key);
    if (!k) continue;
    if (k.section === 'filter' && repo && FILTER_KEYS.has(k.name)) {
      filterNames.add(k.sub);
      result.filters.push({ what: `filter "${k.sub}"`, key: e.key, value, origin });
    } else if (k.section === 'merge' && repo && k.name === 'driver') {
      result.mergeDrivers.push({ what: `merge driver "${k.sub}"`, key: e.key, value, origin });
    } else if (k.section === 'submodule') {
      submoduleNames.add(k.sub);
    } else if (k.section === 'hook') {
      const hook = hooks.get(k.sub) ?? { name: k.sub, events: [], command: '', origin, enabled: true };
      if (k.name === 'command') Object.assign(hook, { command: value, origin });
      else if (k.name === 'enabled') hook.enabled = configBool(e.value);
      // An empty value resets the list, as git does.
      else if (k.name === 'event') hook.events = value === '' ? [] : [...hook.events, value];
      hooks.set(k.sub, hook);
    }
  }
  for (const name of filterNames) {
    for (const key of ['clean', 'smudge', 'process']) result.overrides.push([`filter.${name}.${key}`, '']);
    result.overrides.push([`filter.${name}.required`, 'false']);
  }
  for (const hook of hooks.values()) {
    if (hook.command === '') continue;
    if (hook.enabled) result.configHooks.push(hook);
    result.overrides.push([`hook.${hook.name}.enabled`, 'false'], [`hook.${hook.name}.event`, '']);
  }
  for (const name of submoduleNames) result.overrides.push([`submodule.${name}.ignore`, 'dirty']);
  return result;
}

/** Submodule names in a `.gitmodules` listed by `git config --file .gitmodules --name-only --list -z`. */
export function parseSubmoduleNames(output: string): string[] {
  const names = new Set<string>();
  for (const key of output.split('\0')) {
    const k = splitKey(key.trim());
    if (k?.section === 'submodule') names.add(k.sub);
  }
  return [...names];
}

/**
 * Environment entries that add `pairs` to git's config after any the environment
 * already carries (GIT_CONFIG_COUNT/KEY/VALUE take any key, including subsections
 * with `=` that `-c` cannot express).
 */
export function configEnv(
  base: NodeJS.ProcessEnv,
  pairs: readonly (readonly [string, string])[],
): Record<string, string> {
  if (pairs.length === 0) return {};
  const start = /^\d+$/.test(base.GIT_CONFIG_COUNT ?? '') ? Number(base.GIT_CONFIG_COUNT) : 0;
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(start + pairs.length) };
  pairs.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${start + i}`] = key;
    env[`GIT_CONFIG_VALUE_${start + i}`] = value;
  });
  return env;
}

/** What a write would make git run, as checked before it is allowed to start. */
export interface WriteNeeds {
  /** Hook events the command fires. */
  hooks?: readonly string[];
  /** It reads or writes working-tree files (clean/smudge filters). */
  filters?: boolean;
  /** It may merge file contents (merge drivers). */
  merges?: boolean;
  /** It creates commits (signing programs). */
  commits?: boolean;
}

/** Hook events per kind of write, as git fires them (gc.auto=0 keeps pre-auto-gc from firing). */
export const HOOKS = {
  index: ['post-index-change'],
  refs: ['reference-transaction'],
  checkout: ['post-checkout', 'post-index-change', 'reference-transaction'],
  commit: [
    'pre-commit',
    'prepare-commit-msg',
    'commit-msg',
    'post-commit',
    'post-index-change',
    'reference-transaction',
  ],
  amend: [
    'pre-commit',
    'prepare-commit-msg',
    'commit-msg',
    'post-commit',
    'post-rewrite',
    'post-index-change',
    'reference-transaction',
  ],
  stash: ['post-index-change', 'reference-transaction'],
} as const satisfies Record<string, readonly string[]>;

async function isExecutable(path: string): Promise<boolean> {
  try {
    const info = await stat(path);
    return info.isFile() && (info.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/**
 * Everything a write with these needs would run that git tools must not: hook files
 * in `hooksDir` (git ignores hooks that are not executable), hooks set in config,
 * and the repository's own filters, merge drivers and signing programs. Each entry
 * is one line for the refusal.
 */
export async function repoProgramsFor(
  config: RepoConfig,
  hooksDir: string | undefined,
  needs: WriteNeeds,
): Promise<string[]> {
  const found: string[] = [];
  const events = needs.hooks ?? [];
  if (hooksDir !== undefined) {
    for (const event of events) {
      const path = join(hooksDir, event);
      if (await isExecutable(path)) found.push(`${event} hook (${path})`);
    }
  }
  for (const hook of config.configHooks) {
    const fired = hook.events.filter((e) => events.includes(e));
    if (fired.length > 0) {
      found.push(`hook "${hook.name}" for ${fired.join(', ')} (${hook.command}, from ${hook.origin})`);
    }
  }
  const describe = (p: RepoProgram): string => `${p.what}: ${p.key} = ${p.value} (from ${p.origin})`;
  if (needs.filters) found.push(...config.filters.map(describe));
  if (needs.merges) found.push(...config.mergeDrivers.map(describe));
  if (needs.commits && config.signsCommits) found.push(...config.signers.map(describe));
  return found;
}

/** A note for read tools when the repository's filters were turned off for them. */
export function filterNote(config: RepoConfig): string {
  if (config.filters.length === 0) return '';
  const names = [...new Set(config.filters.map((f) => f.what))].join(', ');
  return (
    `\nNote: this repository's config sets ${names}; git tools do not run a repository's programs, ` +
    'so files using it are read as stored on disk and may show as changed.'
  );
}
