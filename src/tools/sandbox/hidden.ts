/**
 * What the sandbox hides: credential files and directories under the home
 * directory, Tea's own data home, and sockets that would hand out more power
 * than a read-only view (the Docker daemon, the user's session bus and agents).
 * Only paths that exist are hidden (a mount needs a target); each is resolved to
 * its real path, so a symlinked `~/.ssh` hides the directory it points to.
 */
import { lstatSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Below the home directory: keys, tokens, cookies and shell histories (which hold pasted keys). */
export const HOME_SECRETS: readonly string[] = [
  '.ssh',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.netrc',
  '.tea',
  '.docker',
  '.kube',
  '.gnupg',
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.git-credentials',
  '.config/git/credentials',
  '.config/gh',
  '.config/hub',
  '.pypirc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.m2/settings.xml',
  '.m2/settings-security.xml',
  '.gradle/gradle.properties',
  '.ivy2/.credentials',
  '.composer/auth.json',
  '.config/composer/auth.json',
  '.nuget/NuGet/NuGet.Config',
  '.terraform.d/credentials.tfrc.json',
  '.vault-token',
  '.password-store',
  '.local/share/keyrings',
  '.pgpass',
  '.my.cnf',
  '.s3cfg',
  '.boto',
  '.config/rclone',
  '.config/containers/auth.json',
  '.config/op',
  '.mozilla',
  '.config/google-chrome',
  '.config/chromium',
  '.bash_history',
  '.zsh_history',
  '.python_history',
  '.node_repl_history',
  '.psql_history',
  '.mysql_history',
  '.local/share/fish/fish_history',
];

/** Outside the home directory: container daemons and mounted secrets. */
export const SYSTEM_SECRETS: readonly string[] = [
  '/var/run/docker.sock',
  '/run/docker.sock',
  '/run/podman/podman.sock',
  '/run/containerd/containerd.sock',
  '/run/secrets',
  '/etc/shadow',
  '/etc/gshadow',
];

export interface HiddenPath {
  /** The real path. */
  path: string;
  /** Directories become an empty read-only tmpfs; anything else a read-only `/dev/null`. */
  kind: 'dir' | 'file';
}

/** The real path of `p` and whether it is a directory; undefined when it does not exist. */
function probe(p: string): HiddenPath | undefined {
  try {
    lstatSync(p);
    const real = realpathSync(p);
    return { path: real, kind: statSync(real).isDirectory() ? 'dir' : 'file' };
  } catch {
    return undefined;
  }
}

export interface HiddenOptions {
  /** Home directories whose credential files are hidden (the user's, and `$HOME` when it differs). */
  homes: readonly string[];
  /** Tea's data home (`TEA_HOME`), hidden wherever it is. */
  teaHome?: string;
  /** The per-user runtime directory (`XDG_RUNTIME_DIR`: session bus, keyring, gpg and ssh agents). */
  runtimeDir?: string;
  /** More paths to hide. */
  extra?: readonly string[];
}

/** Every existing path to hide, deduplicated by real path. */
export function hiddenPaths(opts: HiddenOptions): HiddenPath[] {
  const candidates = [
    ...opts.homes.flatMap((home) => HOME_SECRETS.map((rel) => join(home, rel))),
    ...(opts.teaHome ? [opts.teaHome] : []),
    ...(opts.runtimeDir ? [opts.runtimeDir] : []),
    ...SYSTEM_SECRETS,
    ...(opts.extra ?? []),
  ];
  const seen = new Map<string, HiddenPath>();
  for (const candidate of candidates) {
    const found = probe(candidate);
    if (found && found.path !== '/' && !seen.has(found.path)) seen.set(found.path, found);
  }
  return [...seen.values()];
}
