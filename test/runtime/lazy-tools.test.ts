/**
 * From the sources too (tsx, as a developer runs tea), the built-in tools are known from
 * the catalogue and a family module loads on its first call: `tea -p` that calls no tool
 * loads none of them, one that calls read_file loads the files family alone. A module
 * hook logs each src/tools/builtin/ file as it loads (test/support/module-log/).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../store/helpers.js';
import { loggedModules, teaFromSources } from '../support/module-log/run.js';
import { reply } from '../support/script.js';
import { useModelServer } from '../support/use-model-server.js';

/** What any run loads of src/tools/builtin/: the registry's catalogue, and the patch parser tools/describe.ts uses. */
const AT_START = ['index.ts', 'families.ts', 'catalogue.ts', 'catalogue-data.ts', 'patch-parse.ts'].map(
  (f) => `tools/builtin/${f}`,
);

const model = useModelServer();
const tempDir = useTempDirs();

/** Runs `tea -p prompt` from the sources; resolves with its output and the builtin modules it loaded. */
async function teaInTemp(prompt: string): Promise<{ code: number | null; out: string; loaded: string[] }> {
  const root = tempDir();
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  mkdirSync(home);
  mkdirSync(work);
  writeFileSync(path.join(home, 'config.yaml'), 'memory:\n  extract: false\n');
  writeFileSync(path.join(work, 'notes.txt'), 'one\ntwo\n');
  const log = path.join(root, 'modules.log');
  const env = {
    PATH: process.env.PATH,
    HOME: root,
    TEA_HOME: home,
    OLLAMA_HOST: 'http://127.0.0.1:9',
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: model().openaiBaseUrl,
    TEA_MODEL: 'scripted-model',
    TEA_MODULE_LOG: log,
    TEA_MODULE_LOG_MATCH: '/src/tools/builtin/',
  };
  const r = await teaFromSources(['-p', prompt, '--cwd', work], env);
  return { ...r, loaded: loggedModules(log).filter((m) => !AT_START.includes(m)) };
}

describe('tea -p from the sources', () => {
  it('loads no tool family when the turn calls no tool', async () => {
    model().script(reply().text('Hello!'));
    const r = await teaInTemp('hello');
    expect(r.out).toContain('Hello!');
    expect(r.code).toBe(0);
    expect(r.loaded).toEqual([]);
  });

  it('loads the files family alone for a read_file call', async () => {
    model().script(reply().toolCall('read_file', { path: 'notes.txt' }), reply().text('Two lines.'));
    const r = await teaInTemp('read notes.txt');
    expect(r.out).toContain('Two lines.');
    expect(r.code).toBe(0);
    expect(r.loaded).toContain('tools/builtin/files.ts');
    expect(r.loaded).toContain('tools/builtin/read.ts');
    for (const other of ['exec', 'search', 'git', 'web', 'system', 'data', 'interaction', 'meta'])
      expect(r.loaded).not.toContain(`tools/builtin/${other}.ts`);
    expect(JSON.stringify(model().requests.at(-1)!.body)).toContain('one');
  });
});
