import { chmod, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemTools } from '../../src/tools/builtin/system.js';
import type { SystemToolOptions } from '../../src/tools/builtin/system-options.js';
import { formatSize } from '../../src/tools/builtin/text.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import type { ToolRunResult } from '../../src/tools/run.js';
import type { ToolContext, ToolHost } from '../../src/tools/types.js';
import { runFamily, tempDir } from './helpers.js';

function run(
  name: string,
  args: Record<string, unknown>,
  opts: SystemToolOptions = {},
  ctx: { cwd?: string } & Partial<ToolContext> = {},
): Promise<ToolRunResult> {
  return runFamily(systemTools(opts), name, args, ctx);
}

describe('system family', () => {
  it('declares every tool honestly', () => {
    const tools = systemTools();
    expect(tools.map((t) => t.name)).toEqual([
      'current_time',
      'date_calc',
      'system_info',
      'env_get',
      'notify',
      'process_list',
      'disk_usage',
    ]);
    for (const tool of tools) {
      expect(tool.category).toBe('system');
      expect(tool.keywords?.length).toBeGreaterThan(3);
      expect(tool.timeoutMs).toBeGreaterThan(0);
      expect(tool.concurrencySafe).toBe(tool.readOnly);
    }
    const notify = tools.find((t) => t.name === 'notify')!;
    expect([notify.readOnly, notify.approval]).toEqual([false, 'none']);
    expect(tools.filter((t) => t.readOnly).every((t) => t.approval === 'none')).toBe(true);
    const registry = new ToolRegistry();
    registry.registerAll(tools);
    expect(registry.specs().length).toBe(7);
    const disk = tools.find((t) => t.name === 'disk_usage')!;
    expect(disk.subject?.({ path: 'src' })).toBe('src');
    const env = tools.find((t) => t.name === 'env_get')!;
    expect(env.subject?.({ name: 'HOME' })).toBe('HOME');
  });
});

describe('system_info', () => {
  it('describes this machine', async () => {
    const r = await run('system_info', {});
    expect(r.status).toBe('ok');
    const lines = r.output.split('\n');
    expect(lines.map((l) => l.split(':')[0])).toEqual([
      'os',
      'cpu',
      'memory',
      'uptime',
      'load average',
      'node',
      'shell',
      'hostname',
      'user',
    ]);
    expect(r.output).toContain(`(${process.platform}, ${os.arch()})`);
    expect(r.output).toMatch(new RegExp(`^cpu: .+ × ${os.cpus().length}$`, 'm'));
    expect(r.output).toContain(`of ${formatSize(os.totalmem())}`);
    expect(r.output).toContain(`node: ${process.version}`);
    expect(r.output).toContain(`hostname: ${os.hostname()}`);
    expect(r.output).toMatch(/^load average: \d+\.\d\d \d+\.\d\d \d+\.\d\d$/m);
  });
});

describe('env_get', () => {
  const env = {
    PATH: '/usr/bin:/bin',
    HOME: '/home/tea',
    EDITOR: 'ghp_abcdefghijklmnopqrstuvwxyz0123',
    OPENAI_API_KEY: 'sk-live-0123456789abcdef0123',
    GITHUB_TOKEN: 'ghp_zzzzzzzzzzzzzzzzzzzzzzzz',
    HTTP_PROXY: 'http://alice:hunter2@proxy.local:3128',
    PROJECT_DIR: '/srv/app',
  };
  const opts = { env, envAllow: ['PROJECT_DIR', 'HTTP_PROXY', 'GITHUB_TOKEN'] };

  it('reads allow-listed variables', async () => {
    expect((await run('env_get', { name: 'PATH' }, opts)).output).toBe('PATH=/usr/bin:/bin');
    expect((await run('env_get', { name: 'PROJECT_DIR' }, opts)).output).toBe('PROJECT_DIR=/srv/app');
    const unset = await run('env_get', { name: 'TZ' }, opts);
    expect(unset).toEqual({ output: 'TZ is not set', isError: false, status: 'ok' });
  });

  it('refuses names outside the allow-list with the list as a hint', async () => {
    const r = await run('env_get', { name: 'DATABASE_URL' }, opts);
    expect(r.status).toBe('error');
    expect(r.output).toMatch(
      /^\[ERROR\] DATABASE_URL is not on the env_get allow-list\nHint: readable variables: PATH, HOME, /,
    );
    expect(r.output).toContain('PROJECT_DIR');
    const lower = await run('env_get', { name: 'path' }, opts);
    expect(lower.output).toMatch(/names are case-sensitive: did you mean PATH\?/);
    const bad = await run('env_get', { name: 'A-B' }, opts);
    expect(bad.output).toMatch(/^\[ERROR\] "A-B" is not a valid environment variable name/);
  });

  it('never returns secrets, even when allow-listed', async () => {
    for (const name of ['OPENAI_API_KEY', 'GITHUB_TOKEN', 'EDITOR', 'HTTP_PROXY']) {
      const r = await run('env_get', { name }, opts);
      expect(r.status, name).toBe('error');
      expect(r.output, name).toMatch(/^\[ERROR\] Refusing to (read|show) /);
      expect(r.output).not.toContain(env[name as keyof typeof env]);
    }
    expect((await run('env_get', { name: 'GITHUB_TOKEN' }, opts)).output).toContain(
      'its name suggests a secret',
    );
    expect((await run('env_get', { name: 'HTTP_PROXY' }, opts)).output).toContain(
      'its value looks like a credential',
    );
  });
});

describe('notify', () => {
  /** A session host for notify, which only ever calls `notify`. */
  function fakeHost(notify: ToolHost['notify']): ToolHost {
    const host: Pick<ToolHost, 'notify'> = { notify };
    return host as ToolHost;
  }

  /** A notifier script that records its arguments, one per line. */
  async function fakeNotifier(
    name: string,
    body = 'printf "%s\\n" "$@" > "$OUT"',
  ): Promise<{ bin: string; out: string }> {
    const bin = await tempDir('tea-bin-');
    await writeFile(join(bin, name), `#!/bin/sh\n${body}\n`);
    await chmod(join(bin, name), 0o755);
    return { bin, out: join(bin, 'args.txt') };
  }

  it('hands the notice to the session host', async () => {
    const seen: string[][] = [];
    const host = fakeHost((title, body) => seen.push([title, body]));
    const r = await run(
      'notify',
      { title: 'Build done', body: 'all green' },
      { desktopNotify: false },
      { host },
    );
    expect(seen).toEqual([['Build done', 'all green']]);
    expect(r.output).toBe('notification sent: Build done\nsession: delivered\ndesktop: disabled');
  });

  it('reports a failing host without failing the call', async () => {
    const host = fakeHost(() => {
      throw new Error('face is gone');
    });
    const r = await run('notify', { title: 'T', body: 'B' }, { desktopNotify: false }, { host });
    expect(r).toEqual({
      output: 'notification not delivered anywhere: T\nsession: failed (face is gone)\ndesktop: disabled',
      isError: false,
      status: 'ok',
    });
  });

  it('shows a desktop notification through notify-send when a display exists', async () => {
    const { bin, out } = await fakeNotifier('notify-send');
    const env = { PATH: bin, DISPLAY: ':0', OUT: out };
    const r = await run(
      'notify',
      { title: '-rf "quoted"', body: 'line; $(whoami)' },
      { env, platform: 'linux' },
    );
    expect(r.output).toBe(
      'notification sent: -rf "quoted"\nsession: skipped (no session host)\ndesktop: delivered (notify-send)',
    );
    expect(await readFile(out, 'utf8')).toBe('--app-name=Tea\n--\n-rf "quoted"\nline; $(whoami)\n');
  });

  it('passes texts to osascript as arguments on macOS', async () => {
    const { bin, out } = await fakeNotifier('osascript');
    const r = await run(
      'notify',
      { title: '-t', body: 'say "hi"' },
      { env: { PATH: bin, OUT: out }, platform: 'darwin' },
    );
    expect(r.output).toContain('desktop: delivered (osascript)');
    const args = (await readFile(out, 'utf8')).split('\n');
    expect(args.slice(-3)).toEqual([' -t', 'say "hi"', '']);
    expect(args).toContain('display notification (item 2 of argv) with title (item 1 of argv)');
  });

  it('skips the desktop without a display or a notifier, and survives a broken one', async () => {
    const { bin } = await fakeNotifier('notify-send', 'echo "no dbus session" >&2; exit 3');
    const noDisplay = await run(
      'notify',
      { title: 'T', body: 'B' },
      { env: { PATH: bin }, platform: 'linux' },
    );
    expect(noDisplay.output).toContain('desktop: skipped (no display (DISPLAY/WAYLAND_DISPLAY unset))');
    const empty = await tempDir('tea-empty-');
    const missing = await run(
      'notify',
      { title: 'T', body: 'B' },
      { env: { PATH: empty, WAYLAND_DISPLAY: 'wayland-0' }, platform: 'linux' },
    );
    expect(missing.output).toContain('desktop: skipped (notify-send is not installed)');
    const broken = await run(
      'notify',
      { title: 'T', body: 'B' },
      { env: { PATH: bin, DISPLAY: ':0' }, platform: 'linux' },
    );
    expect(broken.status).toBe('ok');
    expect(broken.output).toContain('desktop: failed (notify-send: no dbus session)');
    const hung = await fakeNotifier('notify-send', 'exec sleep 5');
    const slow = await run(
      'notify',
      { title: 'T', body: 'B' },
      { env: { PATH: hung.bin, DISPLAY: ':0' }, platform: 'linux', notifyTimeoutMs: 100 },
    );
    expect(slow.status).toBe('ok');
    expect(slow.output).toMatch(/desktop: failed \(notify-send: /);
  });
});
