/**
 * `tea -p` on a new home loads no long-term memory module but the few the agent
 * names (the memory tool's categories, extraction): recall finds an empty table
 * and the service is never needed. Run from the sources (the bundle has no module
 * boundaries to count), with a module hook logging each src/memory/ file as it
 * loads; the scripted model reads the log when the first request arrives.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../store/helpers.js';
import { loggedModules, teaFromSources } from '../support/module-log/run.js';
import { reply } from '../support/script.js';
import { useModelServer } from '../support/use-model-server.js';

/** What a new home may load: the memory tool's categories and the after-turn extraction. */
const ALLOWED = ['memory/extract.ts', 'memory/types.ts'];

const model = useModelServer();
const tempDir = useTempDirs();

describe('tea -p on a new home', () => {
  it('sends its first request without loading the memory service, and never loads it', async () => {
    const root = tempDir();
    const home = path.join(root, 'home');
    const work = path.join(root, 'work');
    mkdirSync(home);
    mkdirSync(work);
    const log = path.join(root, 'modules.log');
    const loaded = (): string[] => loggedModules(log);
    let atFirstRequest: string[] | undefined;
    let requests = 0;
    model().respond(() => {
      requests += 1;
      atFirstRequest ??= loaded();
      // The answer, then memory extraction on the cheap model (it finds nothing).
      return requests === 1 ? reply().text('Hello!') : reply().text('[]');
    });
    const r = await teaFromSources(['-p', 'hello, I prefer green tea', '--cwd', work], {
      PATH: process.env.PATH,
      HOME: root,
      TEA_HOME: home,
      OLLAMA_HOST: 'http://127.0.0.1:9',
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: model().openaiBaseUrl,
      TEA_MODEL: 'scripted-model',
      TEA_MODULE_LOG: log,
    });
    model().respond(undefined);
    expect(r.out).toContain('Hello!');
    expect(r.code).toBe(0);
    expect(requests).toBe(2);
    expect(atFirstRequest).toBeDefined();
    expect(atFirstRequest!.filter((m) => !ALLOWED.includes(m))).toEqual([]);
    // Extraction found nothing: the service stayed unloaded to the exit.
    expect(loaded().filter((m) => !ALLOWED.includes(m))).toEqual([]);
  });
});
