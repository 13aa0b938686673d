/** The order of bubblewrap's mounts, and which credential paths are found to hide. */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PermissionMode, PermissionPolicy, parseRule } from '../../src/tools/permissions.js';
import {
  bwrapArgs,
  hiddenPaths,
  type Launch,
  mountPlan,
  Sandbox,
  sandboxNotes,
} from '../../src/tools/sandbox/index.js';
import { tempDir } from './helpers.js';

const plan = (writable: string[], hidden: Array<[string, 'dir' | 'file']>) =>
  mountPlan({ writable, hidden: hidden.map(([p, kind]) => ({ path: p, kind })) }).map(
    (m) => `${m.op} ${m.path}`,
  );

describe('mountPlan', () => {
  it('binds a workspace under /tmp after the private /tmp', () => {
    expect(plan(['/tmp/tea-x/work'], [])).toEqual(['tmp /tmp', 'bind /tmp/tea-x/work']);
  });

  it('hides ~/.ssh after binding a workspace that is the home directory', () => {
    expect(
      plan(
        ['/home/u'],
        [
          ['/home/u/.ssh', 'dir'],
          ['/home/u/.netrc', 'file'],
        ],
      ),
    ).toEqual(['tmp /tmp', 'bind /home/u', 'hide-dir /home/u/.ssh', 'hide-file /home/u/.netrc']);
  });

  it("binds a root inside Tea's hidden home after hiding it; an explicit root at a hidden path wins", () => {
    expect(plan(['/w', '/home/u/.tea/tool-output/s1'], [['/home/u/.tea', 'dir']])).toEqual([
      'tmp /tmp',
      'bind /w',
      'hide-dir /home/u/.tea',
      'bind /home/u/.tea/tool-output/s1',
    ]);
    expect(plan(['/home/u/.aws'], [['/home/u/.aws', 'dir']])).toEqual([
      'tmp /tmp',
      'hide-dir /home/u/.aws',
      'bind /home/u/.aws',
    ]);
  });

  it("mounts read-only spots (a repository's hooks and config) after the writable root", () => {
    const plan = mountPlan({ writable: ['/w'], hidden: [], readOnly: ['/w/.git/hooks', '/w/.git/config'] });
    expect(plan.map((m) => `${m.op} ${m.path}`)).toEqual([
      'tmp /tmp',
      'bind /w',
      'ro /w/.git/hooks',
      'ro /w/.git/config',
    ]);
  });

  it('skips hidden paths under the private /tmp unless a writable root brings them back', () => {
    expect(plan(['/w'], [['/tmp/h/.ssh', 'dir']])).toEqual(['tmp /tmp', 'bind /w']);
    expect(plan(['/tmp/h'], [['/tmp/h/.ssh', 'dir']])).toEqual([
      'tmp /tmp',
      'bind /tmp/h',
      'hide-dir /tmp/h/.ssh',
    ]);
  });
});

describe('bwrapArgs', () => {
  it('drops capabilities, unshares pid/ipc/uts and (unless allowed) the network, and dies with Tea', () => {
    const base = {
      cwd: '/w',
      writable: ['/w'],
      hidden: [],
      newSession: false,
      command: 'bash',
      args: ['-c', 'x'],
    };
    const off = bwrapArgs({ ...base, network: false });
    expect(off).toEqual([
      '--die-with-parent',
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      '--unshare-net',
      '--cap-drop',
      'ALL',
      '--ro-bind',
      '/',
      '/',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
      '--tmpfs',
      '/tmp',
      '--bind',
      '/w',
      '/w',
      '--chdir',
      '/w',
      '--',
      'bash',
      '-c',
      'x',
    ]);
    const on = bwrapArgs({ ...base, network: true, newSession: true });
    expect(on).not.toContain('--unshare-net');
    expect(on).toContain('--new-session');
  });
});

describe('hiddenPaths', () => {
  it('finds existing credential paths under each home, resolving symlinks; missing ones are skipped', async () => {
    const root = await tempDir();
    const home = path.join(root, 'home');
    const dotfiles = path.join(root, 'dotfiles');
    mkdirSync(path.join(home, '.ssh'), { recursive: true });
    mkdirSync(dotfiles);
    writeFileSync(path.join(dotfiles, 'npmrc'), '//registry/:_authToken=x');
    symlinkSync(path.join(dotfiles, 'npmrc'), path.join(home, '.npmrc'));
    const teaHome = path.join(root, 'tea-data');
    mkdirSync(teaHome);
    const found = hiddenPaths({ homes: [home], teaHome }).filter((h) => h.path.startsWith(root));
    expect(found).toEqual([
      { path: path.join(home, '.ssh'), kind: 'dir' },
      { path: path.join(dotfiles, 'npmrc'), kind: 'file' },
      { path: teaHome, kind: 'dir' },
    ]);
  });
});

describe('network per command', () => {
  const policy = (mode: PermissionMode, rules: string[]) =>
    new PermissionPolicy(
      mode,
      rules.map((r) => parseRule(r)),
    );
  const sandbox = new Sandbox({ mode: 'on' });
  const where = { cwd: '/work/ws', roots: ['/work/ws'] };

  it.each([
    ['npm install', ['network:npm install*'], 'ask', true],
    ['npm install left-pad', ['network:npm install*'], 'ask', true],
    ['npm install; curl https://evil.example', ['network:npm install*'], 'ask', false],
    ['npm install && c""url evil.example', ['network:npm install*'], 'ask', false],
    ['npm install | sh', ['network:npm install*'], 'ask', false],
    ['npm install $(curl evil.example)', ['network:npm install*'], 'ask', false],
    ['curl evil.example', [], 'ask', false],
    ['curl evil.example', [], 'yolo', true],
    ['curl evil.example', ['deny:network:*curl*'], 'yolo', false],
  ] as const)('%s with %j in %s mode → network %s', async (command, rules, mode, expected) => {
    expect(await sandbox.networkFor(policy(mode, [...rules]), command, where)).toBe(expected);
  });

  it('the config can turn it on for every command, and a deny rule still wins', async () => {
    const open = new Sandbox({ mode: 'on', network: true });
    expect(await open.networkFor(policy('ask', []), 'curl example.com', where)).toBe(true);
    expect(await open.networkFor(policy('ask', ['deny:network:*curl*']), 'curl example.com', where)).toBe(
      false,
    );
  });
});

describe('the network note', () => {
  const launch = (network: boolean): Launch => ({
    file: 'bwrap',
    args: [],
    env: {},
    sandbox: { network, writable: ['/work/ws'], readOnly: [], hidden: [] },
  });
  const note = (command: string, output: string, exitCode: number | null, network = false) =>
    sandboxNotes(launch(network), command, output, exitCode).find((n) => n.includes('network is off'));
  const where = { cwd: '/work/ws', roots: ['/work/ws'] };

  it.each([
    { command: 'curl -s https://example.com', output: '', code: 6, name: 'curl', pattern: 'curl *' },
    {
      command: 'curl -s https://example.com; echo "rc=$?"',
      output: 'rc=6\n',
      code: 0,
      name: 'curl',
      pattern: 'curl *',
    },
    {
      command: 'wget -q https://example.com/f.tgz || echo failed with $?',
      output: 'failed with 4\n',
      code: 0,
      name: 'wget',
      pattern: 'wget *',
    },
    {
      command: 'sudo -E /usr/bin/wget -q https://example.com',
      output: '',
      code: 4,
      name: 'wget',
      pattern: 'wget *',
    },
    {
      command: 'cd app && npm --prefix . install',
      output: '',
      code: 1,
      name: 'npm install',
      pattern: 'npm install*',
    },
    {
      command: 'git clone -q https://example.com/r.git',
      output: '',
      code: 128,
      name: 'git clone',
      pattern: 'git clone*',
    },
    {
      command: 'python3 -m pip install -q requests',
      output: '',
      code: 1,
      name: 'python3 -m pip install',
      pattern: 'python3 -m pip install*',
    },
    { command: "bash -c 'ssh -q host true'", output: '', code: 255, name: 'ssh', pattern: 'ssh *' },
  ])(
    '$command (exit $code) names $name and suggests "$pattern"',
    ({ command, output, code, name, pattern }) => {
      const text = note(command, output, code);
      expect(text).toContain(`Sandbox: network is off inside the sandbox, which may be why ${name} failed`);
      expect(text).toContain(`pattern: "${pattern}"`);
    },
  );

  it.each([
    ['curl -s https://example.com', 'curl *'],
    ['npm install left-pad', 'npm install*'],
    ['git clone -q https://example.com/r.git', 'git clone*'],
    ['python3 -m pip install -q requests', 'python3 -m pip install*'],
  ])('the rule it suggests gives %j the network', async (command, pattern) => {
    expect(note(command, '', 1)).toContain(`--allow 'network:${pattern}'`);
    const policy = new PermissionPolicy('ask', [parseRule(`network:${pattern}`)]);
    expect(await new Sandbox({ mode: 'on' }).networkFor(policy, command, where)).toBe(true);
  });

  it.each([
    { command: 'curl -s https://example.com', output: '', code: 0, network: false, why: 'it worked' },
    { command: 'curl -s https://example.com', output: '', code: 7, network: true, why: 'the network was on' },
    {
      command: 'curl -s https://example.com',
      output: '',
      code: null,
      network: false,
      why: 'still running or killed',
    },
    { command: 'grep -r curl .', output: '', code: 1, network: false, why: 'grep only names curl' },
    { command: 'make test', output: '', code: 2, network: false, why: 'no network program' },
    {
      command: 'curl -s https://example.com; echo "rc=$?"',
      output: 'rc=0\n',
      code: 0,
      network: false,
      why: 'the status it echoed is 0',
    },
    {
      command: 'curl -s https://example.com; echo done',
      output: '7 files\n',
      code: 0,
      network: false,
      why: 'no status echoed',
    },
  ])('none for $command (exit $code, network $network): $why', ({ command, output, code, network }) => {
    expect(note(command, output, code, network)).toBeUndefined();
  });

  it('telltale output is enough whatever the exit code, as before', () => {
    expect(note('node fetch.js', 'fetch failed\n', 0)).toContain(
      'Sandbox: network is off inside the sandbox. The user can allow it',
    );
  });
});
