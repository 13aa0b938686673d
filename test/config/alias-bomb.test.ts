import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { cliEnv, runTea } from '../support/cli.js';
import { type Dirs, makeDirs } from './helpers.js';

/** Nine levels of nine aliases each: 9^9 "lol"s once expanded (the "billion laughs"). */
function aliasBomb(): string {
  const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
  for (let i = 1; i < 9; i++) {
    const prev = String.fromCharCode(96 + i);
    const name = String.fromCharCode(97 + i);
    lines.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(', ')}]`);
  }
  return `${lines.join('\n')}\n`;
}

let dirs: Dirs;
beforeEach(() => {
  dirs = makeDirs();
});
afterEach(() => dirs.cleanup());

const load = () => loadConfig({ cwd: dirs.project, env: { TEA_HOME: dirs.home }, detectOllama: false });

describe('a YAML alias bomb in a config file', () => {
  it('is a ConfigError naming the file, with a fix', async () => {
    const file = dirs.writeUser(aliasBomb());
    const err = await load().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    const error = err as ConfigError;
    expect(error.file).toBe(file);
    expect(error.message).toContain(file);
    expect(error.message).toMatch(/aliases/);
    expect(error.fix).toMatch(/anchors/);
  });

  it('in a project file is reported the same way', async () => {
    const file = dirs.writeProject(aliasBomb());
    const err = await load().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).file).toBe(file);
  });

  it('ordinary anchors and aliases still work', async () => {
    dirs.writeUser('profiles:\n  a: &p { base_url: "http://127.0.0.1:1/v1", model: m1 }\n  b: *p\n');
    const config = await load();
    expect(config.profiles.b?.model).toBe('m1');
  });

  // The built CLI parses with yaml's ES module build (scripts/build.mjs).
  it('the built CLI says so in one clear message (no stack trace)', async () => {
    const env = cliEnv();
    try {
      writeFileSync(path.join(env.home, 'config.yaml'), aliasBomb());
      for (const args of [['config'], ['config', 'check'], ['-p', 'hi']]) {
        const r = await runTea(args, { env: env.env, cwd: env.work });
        expect(r.code, r.stderr).toBe(2);
        expect(r.stderr).toContain('invalid configuration');
        expect(r.stderr).toContain('config.yaml: ');
        expect(r.stderr).toMatch(/aliases/);
        expect(r.stderr).not.toMatch(/unexpected error|\n\s+at /);
      }
    } finally {
      env.cleanup();
    }
  });
});
