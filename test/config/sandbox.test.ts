/** The `sandbox` config key, MCP servers opting in, and the secrets Tea is configured with. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, maskedConfig, maskedValues } from '../../src/config/index.js';
import { configuredSecrets } from '../../src/config/secrets.js';
import { type Dirs, makeDirs } from './helpers.js';

let dirs: Dirs;
beforeEach(() => {
  dirs = makeDirs();
});
afterEach(() => dirs.cleanup());

const load = (env: NodeJS.ProcessEnv = {}) =>
  loadConfig({ cwd: dirs.project, home: dirs.home, env, detectOllama: false });

describe('sandbox', () => {
  it('defaults to auto without network, and reads the short and the long form', async () => {
    expect((await load()).sandbox).toEqual({ mode: 'auto', network: false });
    dirs.writeUser('sandbox: off\n');
    expect((await load()).sandbox).toEqual({ mode: 'off', network: false });
    dirs.writeUser('sandbox: { mode: on, network: true }\n');
    const c = await load();
    expect(c.sandbox).toEqual({ mode: 'on', network: true });
    expect(maskedConfig(c)).toContain('sandbox:\n  mode: on\n  network: true\n');
  });

  it('shows the state the caller probed beside the setting, keeping the setting as it was', async () => {
    dirs.writeUser('sandbox: on\n');
    const c = await load();
    expect(maskedValues(c).sandbox).toEqual({ mode: 'on', network: false });
    const sandbox = { summary: 'on (bubblewrap not found: shell commands are refused)', sandboxed: false };
    expect(maskedValues(c, { sandbox }).sandbox).toEqual({
      mode: 'on',
      network: false,
      status: 'on (bubblewrap not found: shell commands are refused)',
      sandboxed: false,
    });
    expect(maskedConfig(c, { sandbox })).toContain(
      'sandbox:\n  mode: on\n  network: false\n  status: "on (bubblewrap not found: shell commands are refused)"\n  sandboxed: false\n',
    );
  });

  it('names the file, the key and the fix for a bad value', async () => {
    const file = dirs.writeUser('sandbox: of\n');
    await expect(load()).rejects.toThrow(
      `${file}: sandbox: expected auto, on or off, or a mapping \`{ mode: auto | on | off, network: true | false }\`, got "of". Fix: use \`sandbox: auto\``,
    );
    dirs.writeUser('sandbox: { mode: auto, netwrok: true }\n');
    await expect(load()).rejects.toThrow(
      `${file}: sandbox.netwrok: unknown key; did you mean "network"? Fix: rename it to "network", or remove it.`,
    );
    dirs.writeUser('sandbox: { network: yes }\n');
    await expect(load()).rejects.toThrow(`${file}: sandbox: expected auto, on or off`);
  });

  it('a project file may make it stricter, never looser', async () => {
    dirs.writeUser('sandbox: { mode: auto, network: true }\n');
    const project = dirs.writeProject('sandbox: { mode: on, network: false }\n');
    expect((await load()).sandbox).toEqual({ mode: 'on', network: false });

    dirs.writeUser('sandbox: auto\n');
    dirs.writeProject('sandbox: { mode: off, network: true }\n');
    const c = await load();
    expect(c.sandbox).toEqual({ mode: 'auto', network: false });
    expect(c.warnings).toEqual([
      `${project}: sandbox mode off ignored: a project file may only make Tea stricter`,
      `${project}: sandbox.network ignored: only your own config may let commands use the network`,
    ]);
  });

  it('MCP stdio servers opt in with sandbox: true or { network: true }; HTTP servers cannot', async () => {
    dirs.writeUser(
      [
        'mcp_servers:',
        '  boxed: { command: node, args: [s.js], sandbox: true }',
        '  online: { command: node, sandbox: { network: true } }',
        '  plain: { command: node }',
      ].join('\n'),
    );
    const c = await load();
    expect(c.mcpServers.boxed).toMatchObject({ command: 'node', sandbox: { network: false } });
    expect(c.mcpServers.online).toMatchObject({ sandbox: { network: true } });
    expect(c.mcpServers.plain).not.toHaveProperty('sandbox');
    dirs.writeUser(
      'mcp_servers:\n  a: { command: node, roots: true }\n  b: { command: node, roots: false }\n',
    );
    const roots = await load();
    expect([roots.mcpServers.a?.roots, roots.mcpServers.b?.roots]).toEqual([true, false]);
    expect(maskedConfig(roots)).toContain('roots: true');
    const file = dirs.writeUser('mcp_servers:\n  web: { url: "http://127.0.0.1:3001/mcp", sandbox: true }\n');
    await expect(load()).rejects.toThrow(`${file}: mcp_servers.web.sandbox: expected true, false or`);
  });
});

describe('configuredSecrets', () => {
  it('lists the key variables of every profile, MCP env names and tokens, and the secret values', async () => {
    dirs.writeUser(
      [
        'main_model: { provider: openai, base_url: "https://api.example.com/v1", api_key_env: MAIN_KEY_VAR, model: m }',
        'profiles:',
        '  ds: { base_url: "https://api.deepseek.com/v1", api_key: sk-inline-ds-key-000000, model: d, headers: { Authorization: "Bearer hdr-token-12345" } }',
        'embedding: { base_url: "http://127.0.0.1:1/v1", api_key_env: EMBED_KEY_VAR, model: e }',
        'tools: { web_search: { provider: brave, api_key_env: BRAVE_VAR } }',
        'mcp_servers:',
        '  gh: { command: gh-mcp, env: { GITHUB_PERSONAL_ACCESS_TOKEN: x, GH_HOST: github.com } }',
        '  docs: { url: "http://127.0.0.1:2/mcp", headers: { X-Api: docs-header-secret } }',
      ].join('\n'),
    );
    const c = await load({
      MAIN_KEY_VAR: 'main-key-value-123',
      EMBED_KEY_VAR: 'embed-key-value',
      BRAVE_VAR: 'brave-key',
    });
    const secrets = configuredSecrets(c);
    expect(secrets.names.sort()).toEqual(
      [
        'ANTHROPIC_API_KEY',
        'EMBED_KEY_VAR',
        'GH_HOST',
        'GITHUB_PERSONAL_ACCESS_TOKEN',
        'MAIN_KEY_VAR',
        'OPENAI_API_KEY',
        'TEA_API_TOKEN',
        'TEA_MCP_TOKEN',
      ].sort(),
    );
    expect(secrets.values.sort()).toEqual(
      [
        'Bearer hdr-token-12345',
        'brave-key',
        'docs-header-secret',
        'embed-key-value',
        'hdr-token-12345',
        'main-key-value-123',
        'sk-inline-ds-key-000000',
      ].sort(),
    );
  });
});
