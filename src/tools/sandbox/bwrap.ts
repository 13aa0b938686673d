/**
 * The bubblewrap command line for one sandboxed program. Pure: every path is
 * given already resolved (real paths of existing directories and files).
 *
 * The view inside: the whole file system read-only (`--ro-bind / /`), a fresh
 * `/dev` and `/proc` (a new PID namespace, so `/proc/$PPID` is bubblewrap's own
 * init, never Tea), a private `/tmp`, the workspace and added roots writable, and
 * credential paths hidden. No capabilities (Tea may run as root), no network unless
 * asked for, and the sandbox dies with its parent.
 */
import { isAbsolute, relative, sep } from 'node:path';
import type { HiddenPath } from './hidden.js';

export interface BwrapSpec {
  /** The directory the program starts in. */
  cwd: string;
  /** Directories the program may write (real paths that exist). */
  writable: readonly string[];
  /** Paths inside the writable ones that stay read-only (real paths that exist). */
  readOnly?: readonly string[];
  /** Paths hidden from it. */
  hidden: readonly HiddenPath[];
  /** Keep the host's network (otherwise only a private loopback). */
  network: boolean;
  /** Detach from the controlling terminal (for programs not started in their own session). */
  newSession: boolean;
  /** The program and its arguments. */
  command: string;
  args: readonly string[];
}

type Mount =
  | { path: string; op: 'tmp' }
  | { path: string; op: 'hide-dir' }
  | { path: string; op: 'hide-file' }
  | { path: string; op: 'bind' }
  | { path: string; op: 'ro' };

/**
 * Within one depth: the private /tmp first, then hiding, then writable binds (an
 * explicit root wins), then read-only spots inside them.
 */
const ORDER: Record<Mount['op'], number> = { tmp: 0, 'hide-dir': 1, 'hide-file': 1, bind: 2, ro: 3 };

function inside(root: string, target: string): boolean {
  const rel = relative(root, target);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

function depth(p: string): number {
  return p.split('/').filter(Boolean).length;
}

/**
 * Mounts in the order bubblewrap must apply them: a parent before anything below
 * it, so a workspace under `/tmp` is bound after the private `/tmp`, `~/.ssh` is
 * hidden after a workspace that is `~`, and a root inside `~/.tea` is bound after
 * `~/.tea` is hidden.
 */
export function mountPlan(spec: Pick<BwrapSpec, 'writable' | 'hidden' | 'readOnly'>): Mount[] {
  const writable = [...new Set(spec.writable)];
  const mounts: Mount[] = [{ path: '/tmp', op: 'tmp' }];
  for (const hidden of spec.hidden) {
    // Inside the private /tmp a path only exists if a writable root brings it back.
    if (inside('/tmp', hidden.path) && !writable.some((root) => inside(root, hidden.path))) continue;
    mounts.push({ path: hidden.path, op: hidden.kind === 'dir' ? 'hide-dir' : 'hide-file' });
  }
  for (const root of writable) mounts.push({ path: root, op: 'bind' });
  for (const spot of spec.readOnly ?? []) mounts.push({ path: spot, op: 'ro' });
  return mounts
    .map((mount, index) => ({ mount, index }))
    .sort(
      (a, b) =>
        depth(a.mount.path) - depth(b.mount.path) ||
        ORDER[a.mount.op] - ORDER[b.mount.op] ||
        a.index - b.index,
    )
    .map(({ mount }) => mount);
}

function mountArgs(mount: Mount): string[] {
  switch (mount.op) {
    case 'tmp':
      return ['--tmpfs', mount.path];
    case 'hide-dir':
      return ['--tmpfs', mount.path, '--remount-ro', mount.path];
    case 'hide-file':
      return ['--ro-bind', '/dev/null', mount.path];
    case 'bind':
      return ['--bind', mount.path, mount.path];
    case 'ro':
      return ['--ro-bind', mount.path, mount.path];
  }
}

/** The arguments to pass to `bwrap` (the program and its arguments come last). */
export function bwrapArgs(spec: BwrapSpec): string[] {
  const args = [
    '--die-with-parent',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-cgroup-try',
    ...(spec.network ? [] : ['--unshare-net']),
    '--cap-drop',
    'ALL',
    ...(spec.newSession ? ['--new-session'] : []),
    '--ro-bind',
    '/',
    '/',
    '--dev',
    '/dev',
    '--proc',
    '/proc',
  ];
  for (const mount of mountPlan(spec)) args.push(...mountArgs(mount));
  args.push('--chdir', spec.cwd, '--', spec.command, ...spec.args);
  return args;
}
