/**
 * An agent's settings: one object with every default filled in (agentSettings), or
 * built from the config with a face's overrides on top (settingsFrom); what the
 * caller leaves undefined keeps its default, nested settings merge field by field.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentSettings, DEFAULT_SETTINGS, settingsFrom } from '../../src/agent/settings.js';
import { loadConfig } from '../../src/config/index.js';
import { type Dirs, makeDirs } from '../config/helpers.js';

let dirs: Dirs;
beforeEach(() => {
  dirs = makeDirs();
});
afterEach(() => dirs.cleanup());

const load = () => loadConfig({ cwd: dirs.project, home: dirs.home, env: {}, detectOllama: false });

describe('agent settings', () => {
  it('fills every default; undefined means the default; nested settings merge', () => {
    expect(agentSettings()).toEqual(DEFAULT_SETTINGS);
    const s = agentSettings({
      maxIterations: undefined,
      maxOutputChars: 5000,
      memoryJobs: { extract: false },
      lease: { waitMs: 0 },
    });
    expect(s.maxIterations).toBe(DEFAULT_SETTINGS.maxIterations);
    expect(s.maxOutputChars).toBe(5000);
    expect(s.memoryJobs).toEqual({ extract: false, tune: true });
    expect(s.lease).toEqual({ ...DEFAULT_SETTINGS.lease, waitMs: 0 });
  });

  it('from a config with no settings: the same values as the agent defaults', async () => {
    const config = await load();
    const s = settingsFrom(config);
    const { toolOutputRoot, home, ...rest } = s;
    expect(rest).toEqual(DEFAULT_SETTINGS);
    expect(home).toBe(config.home);
    expect(toolOutputRoot).toMatch(/tool-output$/);
  });

  it('from a config, with overrides on top; an undefined override keeps the config’s value', async () => {
    dirs.writeUser(
      'agent: { max_iterations: 7, auto_title: false, session_wait_s: 3 }\ntools: { max_output_chars: 9000 }\nmemory: { tune: false }\n',
    );
    const s = settingsFrom(await load(), {
      maxIterations: undefined,
      permissionMode: 'auto-edit',
      lease: { pollMs: 10 },
    });
    expect(s).toMatchObject({
      maxIterations: 7,
      maxOutputChars: 9000,
      titles: false,
      permissionMode: 'auto-edit',
      memoryJobs: { extract: true, tune: false },
      lease: { ...DEFAULT_SETTINGS.lease, waitMs: 3000, pollMs: 10 },
    });
  });
});
