/**
 * Commands known to change files, which read-only mode refuses whatever the
 * rules say. A best effort over common programs; a program not listed here can
 * still write (an allowed `npm test` runs whatever the project's script says).
 */

import { wordSet } from './word-set.js';

const WRITERS = wordSet(
  'rm rmdir mv cp ln link unlink touch mkdir mkfifo mknod chmod chown chgrp chattr setfacl ' +
    'truncate shred dd install tee patch rsync scp sftp tar unzip gunzip bunzip2 unxz gzip bzip2 ' +
    'xz zip 7z mktemp split csplit wget ed ex rename mount umount fallocate sponge crontab mkfs ' +
    'wipefs sync ssh-keygen git-lfs',
);

/** git subcommands that only read. */
const GIT_READS = wordSet(
  'status log diff show blame grep ls-files ls-tree ls-remote rev-parse rev-list describe ' +
    'shortlog cat-file version help whatchanged reflog count-objects name-rev merge-base ' +
    'for-each-ref show-ref check-ignore var',
);

/** Package-manager subcommands that install, remove or publish. */
const PACKAGE_WRITES = wordSet(
  'install i ci add remove rm uninstall un update up upgrade link unlink publish init create ' +
    'dedupe prune rebuild get set version pack',
);
const PACKAGE_MANAGERS = wordSet('npm pnpm yarn bun pip pip3 cargo gem apt apt-get brew go uv poetry');

/** git's first operand after its global options. */
function gitSubcommand(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-C' || a === '-c' || a === '--git-dir' || a === '--work-tree' || a === '--namespace') i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

function hasShortFlag(args: readonly string[], flag: string): boolean {
  return args.some((a) => /^-[A-Za-z]+$/.test(a) && a.slice(1).includes(flag));
}

/** True when the command is known to create, change or delete files. */
export function changesFiles(name: string, args: readonly string[]): boolean {
  if (WRITERS.has(name)) return true;
  switch (name) {
    case 'sed':
      return args.some((a) => a.startsWith('--in-place') || /^-[A-Za-z]*i/.test(a));
    case 'perl':
      return args.some((a) => /^-[A-Za-z]*i/.test(a));
    case 'sort':
      return hasShortFlag(args, 'o') || args.some((a) => a.startsWith('--output'));
    case 'curl':
      return (
        hasShortFlag(args, 'o') ||
        hasShortFlag(args, 'O') ||
        args.some((a) => /^--(output|remote-name|dump-header|cookie-jar)/.test(a))
      );
    case 'find':
      return args.some((a) => /^-(delete|fprint|fprint0|fprintf|fls)$/.test(a));
    case 'git': {
      const sub = gitSubcommand(args);
      return sub === undefined ? false : !GIT_READS.has(sub);
    }
    default:
      if (PACKAGE_MANAGERS.has(name)) {
        const sub = args.find((a) => !a.startsWith('-'));
        return sub !== undefined && PACKAGE_WRITES.has(sub);
      }
      return false;
  }
}
