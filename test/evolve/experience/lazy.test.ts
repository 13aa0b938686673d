/**
 * The experience job stays off the prompt path: `tea -p` (from the sources, with the
 * module hook of test/support/module-log) has loaded only the hook's own small module
 * when its first request arrives; after a plain answer it loads the evaluation modules
 * and no lesson, draft, inbox or memory module (a new home's recall needs none).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../../store/helpers.js';
import { loggedModules, teaFromSources } from '../../support/module-log/run.js';
import { reply } from '../../support/script.js';
import { useModelServer } from '../../support/use-model-server.js';

const model = useModelServer();
const tempDir = useTempDirs();

describe('tea -p and the experience modules', () => {
  it('loads the hook alone before the first request, and only the evaluation after a plain answer', async () => {
    const root = tempDir();
    const home = path.join(root, 'home');
    const work = path.join(root, 'work');
    mkdirSync(home);
    mkdirSync(work);
    writeFileSync(path.join(home, 'config.yaml'), 'memory:\n  extract: false\n');
    const log = path.join(root, 'modules.log');
    let atFirstRequest: string[] | undefined;
    model().respond(() => {
      atFirstRequest ??= loggedModules(log);
      return reply().text('Hello!');
    });
    const r = await teaFromSources(['-p', 'hello', '--cwd', work], {
      PATH: process.env.PATH,
      HOME: root,
      TEA_HOME: home,
      OLLAMA_HOST: 'http://127.0.0.1:9',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model().openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
      TEA_MODULE_LOG: log,
      TEA_MODULE_LOG_MATCH: '/src/(evolve/experience|memory)/',
    });
    model().respond(undefined);
    expect(r.out).toContain('Hello!');
    expect(r.code).toBe(0);
    const experience = (list: string[]) => list.filter((m) => m.startsWith('evolve/experience/'));
    expect(experience(atFirstRequest ?? [])).toEqual(['evolve/experience/hook.ts']);
    const all = loggedModules(log);
    expect(experience(all).sort()).toEqual(
      ['hook.ts', 'reaction.ts', 'run.ts', 'signals.ts', 'test-commands.ts'].map(
        (f) => `evolve/experience/${f}`,
      ),
    );
    expect(all.filter((m) => m.startsWith('memory/')).sort()).toEqual([
      'memory/extract.ts',
      'memory/types.ts',
    ]);
  });
});
