import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, maskedConfig } from '../../src/config/index.js';
import { type Dirs, makeDirs } from './helpers.js';

let dirs: Dirs;
beforeEach(() => {
  dirs = makeDirs();
});
afterEach(() => dirs.cleanup());

const load = () => loadConfig({ cwd: dirs.project, home: dirs.home, env: {}, detectOllama: false });

describe('permissions and tools sections', () => {
  it('defaults: ask mode, no rules, intent loading, web search off', async () => {
    const c = await load();
    expect(c.permissions).toEqual({ mode: 'ask', rules: [], roots: [] });
    expect(c.tools).toEqual({ loading: 'intent', maxOutputChars: 30_000, envAllow: [] });
    expect(c.warnings).toEqual([]);
  });

  it('reads mode, rules, roots and tool settings from the user file', async () => {
    dirs.writeUser(
      [
        'permissions:',
        '  mode: auto-edit',
        '  rules:',
        '    - { tool: bash, pattern: "npm test*", action: allow }',
        '    - { tool: write_file, pattern: "*.env", action: deny }',
        '  roots: [/tmp/shared]',
        'tools:',
        '  loading: all',
        '  max_output_chars: 10000',
        '  web_search: { provider: searxng, url: "http://127.0.0.1:8888", api_key_env: SEARX_KEY }',
      ].join('\n'),
    );
    const c = await loadConfig({
      cwd: dirs.project,
      home: dirs.home,
      env: { SEARX_KEY: 'sx-secret-1234' },
      detectOllama: false,
    });
    expect(c.permissions).toEqual({
      mode: 'auto-edit',
      rules: [
        { tool: 'bash', pattern: 'npm test*', action: 'allow' },
        { tool: 'write_file', pattern: '*.env', action: 'deny' },
      ],
      roots: ['/tmp/shared'],
    });
    expect(c.tools).toMatchObject({ loading: 'all', maxOutputChars: 10_000 });
    expect(c.tools.webSearch).toEqual({
      provider: 'searxng',
      url: 'http://127.0.0.1:8888',
      apiKey: 'sx-secret-1234',
    });
    const shown = maskedConfig(c);
    expect(shown).toContain('mode: auto-edit');
    expect(shown).not.toContain('sx-secret-1234');
  });

  it('a project file can make Tea stricter but never looser', async () => {
    dirs.writeUser(
      'permissions:\n  mode: auto-edit\n  rules: [{ tool: bash, pattern: "ls*", action: allow }]\n',
    );
    const project = dirs.writeProject(
      [
        'permissions:',
        '  mode: yolo',
        '  rules:',
        '    - { tool: "*", action: allow }',
        '    - { tool: bash, pattern: "rm *", action: deny }',
        '  roots: [/]',
      ].join('\n'),
    );
    const c = await load();
    expect(c.permissions.mode).toBe('auto-edit');
    expect(c.permissions.rules).toEqual([
      { tool: 'bash', pattern: 'ls*', action: 'allow' },
      { tool: 'bash', pattern: 'rm *', action: 'deny' },
    ]);
    expect(c.permissions.roots).toEqual([]);
    // One warning names the file and every ignored key, and how to trust it.
    expect(c.warnings).toHaveLength(1);
    expect(c.warnings[0]).toContain(project);
    expect(c.warnings[0]).toContain('permissions.mode, permissions.rules[0], permissions.roots');
    expect(c.warnings[0]).toContain('`tea trust`');

    // Trusted, the same file loosens too.
    dirs.trustProject();
    const trusted = await load();
    expect(trusted.permissions.mode).toBe('yolo');
    expect(trusted.permissions.rules).toContainEqual({ tool: '*', action: 'allow' });
    expect(trusted.permissions.roots).toEqual(['/']);
    expect(trusted.warnings).toEqual([]);

    dirs.writeProject('permissions:\n  mode: read-only\n');
    expect((await load()).permissions.mode).toBe('read-only');
  });

  it('reads per-profile context thresholds, and rejects shares outside (0, 1]', async () => {
    dirs.writeUser(
      'main_model:\n  model: small\n  base_url: http://127.0.0.1:11434/v1\n  compress_at: 0.5\n  final_at: 0.9\n',
    );
    expect((await load()).mainModel?.contextThresholds).toEqual({ compressAt: 0.5, finalAt: 0.9 });
    dirs.writeUser('main_model:\n  model: small\n  base_url: http://127.0.0.1:11434/v1\n  brief_at: 1.5\n');
    await expect(load()).rejects.toThrow(
      /main_model\.brief_at: expected a share of the context window between 0 and 1/,
    );
  });

  it('agent.auto_title turns background titles off', async () => {
    dirs.writeUser('agent:\n  auto_title: false\n');
    expect((await load()).agent.autoTitle).toBe(false);
  });

  it('a bad value names the file, the key and a fix', async () => {
    dirs.writeUser('permissions:\n  mode: sometimes\n');
    await expect(load()).rejects.toThrow(
      /permissions\.mode: expected one of read-only, ask, auto-edit, yolo/,
    );
    dirs.writeUser('permissions:\n  rules: [{ tool: bash, action: maybe }]\n');
    await expect(load()).rejects.toThrow(/permissions\.rules\[0\]\.action|permissions\.rules\.0\.action/);
  });
});
