/** `server.allowed_hosts`: read from the user's file only; a bad entry names the file, the key and a fix. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, maskedConfig } from '../../src/config/index.js';
import { type Dirs, makeDirs } from './helpers.js';

let dirs: Dirs;
beforeEach(() => {
  dirs = makeDirs();
});
afterEach(() => dirs.cleanup());

const load = () => loadConfig({ cwd: dirs.project, home: dirs.home, env: {}, detectOllama: false });

describe('server.allowed_hosts', () => {
  it('defaults to no extra names', async () => {
    expect((await load()).server).toEqual({ allowedHosts: [] });
  });

  it('reads names from the user file, lower-cased and without repeats, and shows them', async () => {
    dirs.writeUser('server:\n  allowed_hosts: [Tea.Example.Test, "box.local:8443", tea.example.test]\n');
    const c = await load();
    expect(c.server.allowedHosts).toEqual(['tea.example.test', 'box.local:8443']);
    expect(maskedConfig(c)).toMatch(
      /server:\n\s+allowed_hosts:\n\s+- tea\.example\.test\n\s+- box\.local:8443/,
    );
  });

  it('ignores a project file’s names with a warning (a cloned repository may not open the server)', async () => {
    dirs.writeUser('server:\n  allowed_hosts: [mine.example.test]\n');
    dirs.writeProject('server:\n  allowed_hosts: [evil.example]\n');
    const c = await load();
    expect(c.server.allowedHosts).toEqual(['mine.example.test']);
    expect(c.warnings).toHaveLength(1);
    expect(c.warnings[0]).toMatch(/\.tea\/config\.yaml: server\.allowed_hosts ignored: only your own config/);
  });

  it('a URL instead of a name fails with the file, the key and a fix', async () => {
    const file = dirs.writeUser('server:\n  allowed_hosts: [tea.example.test, "http://box.local:8080/"]\n');
    const err = (await load().catch((e: unknown) => e)) as ConfigError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toContain(file);
    expect(err.key).toBe('server.allowed_hosts[1]');
    expect(err.message).toContain(
      'server.allowed_hosts[1]: expected a host name, optionally with :port (no scheme or path), got "http://box.local:8080/"',
    );
    expect(err.fix).toContain('write the name the browser shows, e.g. `allowed_hosts: [tea.example.com');
    expect(err.message).toContain(`Fix: ${err.fix}`);
  });

  it('a single name instead of a list, and an unknown key, are explained too', async () => {
    dirs.writeUser('server:\n  allowed_hosts: tea.example.test\n');
    await expect(load()).rejects.toThrow(
      /server\.allowed_hosts: expected a list of host names, got "tea\.example\.test"/,
    );
    dirs.writeUser('server:\n  allowed_host: [tea.example.test]\n');
    await expect(load()).rejects.toThrow(/server\.allowed_host: unknown key; did you mean "allowed_hosts"\?/);
  });
});
