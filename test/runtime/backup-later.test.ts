/**
 * The runtime takes the daily backup off the first request's path: at close, or once
 * a long-running process (tea serve, tea acp) has been up BACKUP_AFTER_MS.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { BACKUP_AFTER_MS, createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { useTempDirs } from '../store/helpers.js';

const tempDir = useTempDirs();
afterEach(() => {
  vi.useRealTimers();
});

async function runtimeIn(home: string, work: string): Promise<Runtime> {
  const config = await loadConfig({ home, cwd: work, env: {}, detectOllama: false });
  return createRuntime({ config, cwd: work });
}

function aHome(): { home: string; work: string; backups: () => string[] } {
  const root = tempDir();
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  mkdirSync(home);
  mkdirSync(work);
  writeFileSync(
    path.join(home, 'config.yaml'),
    'main_model: { base_url: http://127.0.0.1:9/v1, api_key: sk-test, model: m }\n',
  );
  const dir = path.join(home, 'backups');
  return { home, work, backups: () => (existsSync(dir) ? readdirSync(dir) : []) };
}

describe('the runtime and the daily backup', () => {
  it('is taken at close, not when the store opens', async () => {
    const { home, work, backups } = aHome();
    const first = await runtimeIn(home, work);
    first.sessions.create({ title: 'first' });
    await first.close(); // a new file: nothing to back up yet
    expect(backups()).toEqual([]);

    const rt = await runtimeIn(home, work);
    expect(rt.sessions.list()).toHaveLength(1);
    expect(backups()).toEqual([]);
    await rt.close();
    expect(backups()).toHaveLength(1);
  });

  it('a process still up BACKUP_AFTER_MS after opening the store takes it then', async () => {
    const { home, work, backups } = aHome();
    const first = await runtimeIn(home, work);
    first.sessions.create({ title: 'first' });
    await first.close();

    const rt = await runtimeIn(home, work);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    rt.sessions.list();
    vi.advanceTimersByTime(BACKUP_AFTER_MS - 1);
    expect(backups()).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(backups()).toHaveLength(1);
    vi.useRealTimers();
    await rt.close();
    expect(backups()).toHaveLength(1); // one a day
  });
});
