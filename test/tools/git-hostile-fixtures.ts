/**
 * Hostile repositories for the git tool tests: each attack is a config (with the
 * files it needs) that makes plain git run a program. Every program is a marker
 * script that records its name in a directory outside the repository; a test passes
 * only when that directory stays empty.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmod, mkdir, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { git, tempDir, writeTree } from './git-fixtures.js';

/** Where marker scripts live and what they leave behind. */
export interface Markers {
  bin: string;
  dir: string;
}

/** How a marker program behaves once it has left its mark. */
type Kind = 'ok' | 'fail' | 'stdin' | 'file';

const BODY: Record<Kind, string> = {
  ok: 'exit 0',
  fail: 'exit 1',
  stdin: 'cat',
  file: 'cat "$1"',
};

/** The path of a marker program named `label`, created on first use. */
export async function marker(m: Markers, label: string, kind: Kind = 'ok'): Promise<string> {
  const path = join(m.bin, label);
  await writeFile(path, `#!/bin/sh\ntouch '${join(m.dir, label)}'\n${BODY[kind]}\n`);
  await chmod(path, 0o755);
  return path;
}

export async function makeMarkers(): Promise<Markers> {
  const root = await tempDir('tea-marks-');
  const m = { bin: join(root, 'bin'), dir: join(root, 'marks') };
  await mkdir(m.bin);
  await mkdir(m.dir);
  return m;
}

export async function marks(m: Markers): Promise<string[]> {
  return (await readdir(m.dir)).sort();
}

export async function clearMarks(m: Markers): Promise<void> {
  await rm(m.dir, { recursive: true, force: true });
  await mkdir(m.dir);
}

/** Plain git, as a user would run it, without blocking the event loop (the http attack serves from it). */
export function plainGit(cwd: string, args: readonly string[]): Promise<void> {
  return new Promise((resolve) => {
    execFile('git', args, { cwd, timeout: 10_000, env: { ...process.env, LC_ALL: 'C' } }, () => resolve());
  });
}

/**
 * The repository every attack starts from: `a.txt` committed twice (HEAD~1, HEAD)
 * and changed on disk with the same size (so git must read it through any clean
 * filter), `secret.txt` added in HEAD, `staged.txt` staged, `new.txt` untracked, and
 * every `.txt` given the `evil` diff, filter and merge drivers by `.gitattributes`.
 * Nothing hostile yet.
 */
export async function baseRepo(): Promise<string> {
  const dir = await tempDir('tea-hostile-');
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Tea Tester');
  git(dir, 'config', 'user.email', 'tea@example.com');
  await writeTree(dir, {
    '.gitattributes': '*.txt diff=evil filter=evil merge=evil\n',
    'a.txt': 'one\ntwo\n',
  });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'first');
  await writeTree(dir, { 'a.txt': 'one\ntwo\nthree\n', 'secret.txt': 'the blob a partial clone lacks\n' });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'second');
  await writeTree(dir, { 'a.txt': 'one\nTWO\nthree\n', 'staged.txt': 'staged\n', 'new.txt': 'new\n' });
  git(dir, 'add', 'staged.txt');
  return dir;
}

const HOOK_EVENTS = [
  'pre-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'post-checkout',
  'post-merge',
  'post-rewrite',
  'reference-transaction',
  'post-index-change',
  'pre-auto-gc',
];

/** Makes the repository a partial clone whose HEAD lacks a blob, so reading HEAD fetches from `url`. */
async function partialClone(repo: string, url: string): Promise<void> {
  const blob = git(repo, 'rev-parse', 'HEAD:secret.txt').trim();
  await unlink(join(repo, '.git', 'objects', blob.slice(0, 2), blob.slice(2)));
  git(repo, 'config', 'core.repositoryformatversion', '1');
  git(repo, 'config', 'extensions.partialClone', 'origin');
  git(repo, 'config', 'remote.origin.promisor', 'true');
  git(repo, 'config', 'remote.origin.url', url);
}

/** A commit object for HEAD with a (bogus) signature, which `log.showSignature` hands to gpg. */
function fakeSignedHead(repo: string): void {
  const lines = git(repo, 'cat-file', 'commit', 'HEAD').split('\n');
  const at = lines.findIndex((l) => l.startsWith('committer '));
  const sig = [
    'gpgsig -----BEGIN PGP SIGNATURE-----',
    ' ',
    ' iQEzBAABCAAdFiEE',
    ' -----END PGP SIGNATURE-----',
  ];
  lines.splice(at + 1, 0, ...sig);
  const oid = execFileSync('git', ['hash-object', '-t', 'commit', '-w', '--stdin'], {
    cwd: repo,
    input: lines.join('\n'),
    encoding: 'utf8',
  }).trim();
  git(repo, 'update-ref', 'HEAD', oid);
}

export interface Attack {
  name: string;
  /** Makes `repo` hostile; may return another directory for the tools to run in. */
  setup(repo: string, m: Markers, ctx: { httpUrl: string }): Promise<string | undefined>;
  /** Plain git commands that do run a marker (proof the attack is live); none when git cannot reach it. */
  control: string[][];
  /** Why there is no control. */
  unreachable?: string;
  /** Git tools that must refuse (in modes that let them run), naming what they would run. */
  refused?: string[];
  /** Oldest git that knows the config ([major, minor]). */
  minGit?: [number, number];
}

/** Calls that read or write working-tree files through filters (see the sequence in git-hostile.test.ts). */
const THROUGH_FILTERS = [
  'git_add',
  'git_commit all',
  'git_branch switch',
  'git_branch switch back',
  'git_checkout_file',
  'git_stash push',
  'git_stash pop',
];
/** Every call that changes the repository. */
const ALL_WRITES = [...THROUGH_FILTERS, 'git_commit', 'git_branch create', 'git_branch delete'];

export const ATTACKS: Attack[] = [
  {
    name: 'core.fsmonitor',
    setup: async (r, m) => void git(r, 'config', 'core.fsmonitor', await marker(m, 'fsmonitor')),
    control: [['status']],
  },
  {
    name: 'diff.<driver>.textconv with a diff attribute',
    setup: async (r, m) => void git(r, 'config', 'diff.evil.textconv', await marker(m, 'textconv', 'file')),
    control: [['diff'], ['blame', 'a.txt']],
  },
  {
    name: 'diff.<driver>.command',
    setup: async (r, m) => void git(r, 'config', 'diff.evil.command', await marker(m, 'diff-command')),
    control: [['diff']],
  },
  {
    name: 'diff.external',
    setup: async (r, m) => void git(r, 'config', 'diff.external', await marker(m, 'diff-external')),
    control: [['diff']],
  },
  {
    name: 'hooks in .git/hooks',
    async setup(r, m) {
      for (const event of HOOK_EVENTS) {
        await writeFile(join(r, '.git', 'hooks', event), `#!/bin/sh\ntouch '${join(m.dir, event)}'\n`);
        await chmod(join(r, '.git', 'hooks', event), 0o755);
      }
      return undefined;
    },
    control: [['commit', '-q', '-a', '-m', 'x']],
    refused: ALL_WRITES,
  },
  {
    name: 'core.hooksPath to a tracked directory',
    async setup(r, m) {
      await mkdir(join(r, '.githooks'));
      for (const event of ['pre-commit', 'post-checkout']) {
        await writeFile(join(r, '.githooks', event), `#!/bin/sh\ntouch '${join(m.dir, event)}'\n`);
        await chmod(join(r, '.githooks', event), 0o755);
      }
      git(r, 'config', 'core.hooksPath', '.githooks');
      return undefined;
    },
    control: [['commit', '-q', '-a', '-m', 'x']],
    refused: [
      'git_commit',
      'git_commit all',
      'git_branch switch',
      'git_branch switch back',
      'git_checkout_file',
    ],
  },
  {
    name: 'filter.<driver>.clean/smudge (required)',
    async setup(r, m) {
      git(r, 'config', 'filter.evil.clean', await marker(m, 'clean', 'stdin'));
      git(r, 'config', 'filter.evil.smudge', await marker(m, 'smudge', 'stdin'));
      git(r, 'config', 'filter.evil.required', 'true');
      return undefined;
    },
    control: [['status'], ['checkout', 'HEAD~1', '--', 'a.txt']],
    refused: THROUGH_FILTERS,
  },
  {
    name: 'filter.<driver>.process',
    setup: async (r, m) => void git(r, 'config', 'filter.evil.process', await marker(m, 'process', 'fail')),
    control: [['status']],
    refused: THROUGH_FILTERS,
  },
  {
    name: 'merge.<driver>.driver on stash pop',
    async setup(r, m) {
      git(r, 'stash', '-q');
      await writeTree(r, { 'a.txt': 'one\ntwo\nthree\nfour\n' });
      git(r, 'commit', '-q', '-a', '-m', 'third');
      git(r, 'config', 'merge.evil.driver', `${await marker(m, 'merge-driver')} %O %A %B`);
      return undefined;
    },
    control: [['stash', 'pop']],
    refused: ['git_stash pop'],
  },
  {
    name: 'gpg.program with commit.gpgSign and log.showSignature',
    async setup(r, m) {
      fakeSignedHead(r);
      git(r, 'config', 'gpg.program', await marker(m, 'gpg', 'fail'));
      git(r, 'config', 'commit.gpgSign', 'true');
      git(r, 'config', 'log.showSignature', 'true');
      return undefined;
    },
    control: [
      ['log', '-1', '--format=%h'],
      ['commit', '-q', '-a', '-m', 'x'],
    ],
    refused: ['git_commit all', 'git_commit'],
  },
  {
    name: 'gpg.ssh.program with gpg.format=ssh',
    async setup(r, m) {
      git(r, 'config', 'gpg.format', 'ssh');
      git(r, 'config', 'gpg.ssh.program', await marker(m, 'ssh-sign', 'fail'));
      git(r, 'config', 'user.signingKey', 'key::ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIO');
      git(r, 'config', 'commit.gpgSign', 'true');
      return undefined;
    },
    control: [['commit', '-q', '-a', '-m', 'x']],
    refused: ['git_commit all', 'git_commit'],
  },
  {
    name: 'ext:: remote with protocol.ext.allow=always (lazy fetch)',
    async setup(r, m) {
      await partialClone(r, `ext::${await marker(m, 'ext-transport', 'fail')}`);
      git(r, 'config', 'protocol.ext.allow', 'always');
      return undefined;
    },
    control: [['show', 'HEAD']],
  },
  {
    name: 'core.sshCommand (lazy fetch over ssh)',
    async setup(r, m) {
      await partialClone(r, 'ssh://example.invalid/repo.git');
      git(r, 'config', 'core.sshCommand', await marker(m, 'ssh-command', 'fail'));
      return undefined;
    },
    control: [['show', 'HEAD']],
  },
  {
    name: 'remote.<name>.uploadpack (lazy fetch from a local path)',
    async setup(r, m) {
      const source = await tempDir('tea-source-');
      git(source, 'init', '-q');
      await partialClone(r, source);
      git(r, 'config', 'remote.origin.uploadpack', await marker(m, 'uploadpack', 'fail'));
      return undefined;
    },
    control: [['show', 'HEAD']],
  },
  {
    name: 'core.gitProxy (lazy fetch over git://)',
    async setup(r, m) {
      await partialClone(r, 'git://example.invalid/repo.git');
      git(r, 'config', 'core.gitProxy', await marker(m, 'git-proxy', 'fail'));
      return undefined;
    },
    control: [['show', 'HEAD']],
  },
  {
    name: 'credential.helper and core.askPass (lazy fetch over http answering 401)',
    async setup(r, m, ctx) {
      await partialClone(r, ctx.httpUrl);
      git(r, 'config', 'credential.helper', await marker(m, 'credential-helper', 'fail'));
      git(r, 'config', 'core.askPass', await marker(m, 'askpass', 'fail'));
      return undefined;
    },
    control: [['show', 'HEAD']],
  },
  {
    name: 'include.path and includeIf pulling in tracked files',
    async setup(r, m) {
      const hook = await marker(m, 'included-pre-commit');
      await writeTree(r, {
        'evil.cfg': `[core]\n\tfsmonitor = ${await marker(m, 'included-fsmonitor')}\n[filter "evil"]\n\tclean = ${await marker(m, 'included-clean', 'stdin')}\n`,
        'evil2.cfg': `[diff "evil"]\n\ttextconv = ${await marker(m, 'included-textconv', 'file')}\n[core]\n\thooksPath = .evilhooks\n`,
        '.evilhooks/pre-commit': `#!/bin/sh\nexec '${hook}'\n`,
      });
      await chmod(join(r, '.evilhooks', 'pre-commit'), 0o755);
      git(r, 'config', 'include.path', '../evil.cfg');
      git(r, 'config', `includeIf.gitdir:${r}/.git.path`, '../evil2.cfg');
      return undefined;
    },
    control: [['status'], ['diff'], ['commit', '-q', '-a', '-m', 'x']],
    refused: [...THROUGH_FILTERS, 'git_commit'],
  },
  {
    name: 'worktree config (extensions.worktreeConfig)',
    async setup(r, m) {
      git(r, 'config', 'extensions.worktreeConfig', 'true');
      git(r, 'config', '--worktree', 'core.fsmonitor', await marker(m, 'worktree-fsmonitor'));
      git(r, 'config', '--worktree', 'filter.evil.clean', await marker(m, 'worktree-clean', 'stdin'));
      return undefined;
    },
    control: [['status']],
    refused: THROUGH_FILTERS,
  },
  {
    name: "a submodule's own config (fsmonitor, clean filter), .gitmodules ignore=none",
    async setup(r, m) {
      const sub = await baseRepo();
      git(r, '-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', sub, 'sub');
      git(r, 'config', '-f', '.gitmodules', 'submodule.sub.ignore', 'none');
      git(r, 'add', '.gitmodules');
      git(r, 'commit', '-q', '-m', 'add sub');
      const inner = join(r, 'sub');
      git(inner, 'config', 'core.fsmonitor', await marker(m, 'submodule-fsmonitor'));
      git(inner, 'config', 'filter.evil.clean', await marker(m, 'submodule-clean', 'stdin'));
      await writeTree(inner, { 'a.txt': 'one\nTWO\nthree\n' });
      return undefined;
    },
    control: [['status'], ['stash']],
  },
  {
    name: 'hook.<name>.command (configured hooks)',
    async setup(r, m) {
      git(r, 'config', 'hook.evil.command', await marker(m, 'configured-hook'));
      for (const event of HOOK_EVENTS) git(r, 'config', '--add', 'hook.evil.event', event);
      return undefined;
    },
    control: [['commit', '-q', '-a', '-m', 'x']],
    refused: ALL_WRITES,
    minGit: [2, 54],
  },
  {
    name: 'core.pager, pager.<cmd>, core.editor, sequence.editor, alias.<builtin>',
    async setup(r, m) {
      const program = await marker(m, 'pager-or-editor', 'stdin');
      for (const key of ['core.pager', 'pager.log', 'pager.diff', 'core.editor', 'sequence.editor']) {
        git(r, 'config', key, program);
      }
      for (const name of ['status', 'diff', 'log', 'show', 'commit', 'add', 'stash']) {
        git(r, 'config', `alias.${name}`, `!${program}`);
      }
      return undefined;
    },
    control: [],
    unreachable:
      'git pages only to a terminal, opens no editor for commit --file=- and never lets an alias shadow a ' +
      'built-in; kept as a regression guard',
  },
];

/** The installed git's [major, minor]. */
export function gitVersion(): [number, number] {
  const m = /(\d+)\.(\d+)/.exec(git(process.cwd(), 'version')) ?? [];
  return [Number(m[1] ?? 0), Number(m[2] ?? 0)];
}
