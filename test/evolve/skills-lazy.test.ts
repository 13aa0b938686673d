/**
 * The prompt path stays cheap: `tea -p` (from the sources, a module hook logging each
 * src/evolve/skills/ file it loads) in a workspace with no skill folder loads only the
 * folder list and the tool's facts, offers no `skill` tool and no `## Skills` block;
 * with skills installed it loads the scanner and the offer, but not the tool's code
 * until the model calls it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../store/helpers.js';
import { loggedModules, teaFromSources } from '../support/module-log/run.js';
import { reply } from '../support/script.js';
import { skillText } from '../support/skills.js';
import { useModelServer } from '../support/use-model-server.js';
import { wireMessages, wireText } from '../support/wire.js';

/** Loaded by the runtime on every run: the folder list and the tool's facts (no parser, no I/O beyond existsSync). */
const ALWAYS = ['evolve/skills/dirs.ts', 'evolve/skills/register.ts', 'evolve/skills/tool-info.ts'];

const model = useModelServer();
const tempDir = useTempDirs();

async function run(prompt: string, withSkill: boolean): Promise<{ out: string; loaded: string[] }> {
  const root = tempDir();
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  mkdirSync(home);
  mkdirSync(work);
  writeFileSync(path.join(home, 'config.yaml'), 'memory:\n  extract: false\n');
  if (withSkill) {
    mkdirSync(path.join(home, 'skills', 'notes'), { recursive: true });
    writeFileSync(
      path.join(home, 'skills', 'notes', 'SKILL.md'),
      skillText({ name: 'notes', description: 'Take meeting notes.' }),
    );
  }
  const log = path.join(root, 'modules.log');
  const r = await teaFromSources(['-p', prompt, '--cwd', work], {
    PATH: process.env.PATH,
    HOME: root,
    TEA_HOME: home,
    OLLAMA_HOST: 'http://127.0.0.1:9',
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: model().openaiBaseUrl,
    TEA_MODEL: 'scripted-model',
    TEA_MODULE_LOG: log,
    TEA_MODULE_LOG_MATCH: '/src/evolve/skills/',
  });
  return { out: r.out, loaded: loggedModules(log) };
}

const firstRequest = () => {
  const body = model().requests[0]!.body;
  return {
    system: wireText(wireMessages(body)[0]!),
    tools: (body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name),
  };
};

describe('skills on the prompt path', () => {
  it('no skill folder: only the folder list and the tool facts load; no block, no skill tool', async () => {
    model().reset();
    model().script(reply().text('Hello!'));
    const r = await run('hello', false);
    expect(r.out).toContain('Hello!');
    expect(r.loaded.sort()).toEqual([...ALWAYS].sort());
    const first = firstRequest();
    expect(first.system).not.toContain('## Skills');
    expect(first.tools).not.toContain('skill');
    expect(first.system).not.toMatch(/More tools[^\n]* skill /);
  });

  it('with a skill: the scanner and the offer load, the tool’s code only once it is called', async () => {
    model().reset();
    model().script(reply().text('Noted.'));
    const quiet = await run('take notes of the meeting', true);
    expect(quiet.out).toContain('Noted.');
    expect(quiet.loaded).toEqual(
      expect.arrayContaining([
        'evolve/skills/catalog.ts',
        'evolve/skills/offer.ts',
        'evolve/skills/match.ts',
      ]),
    );
    expect(quiet.loaded).not.toContain('evolve/skills/tool.ts');
    expect(quiet.loaded).not.toContain('evolve/skills/service.ts');
    expect(firstRequest().system).toContain('Likely relevant now: notes');

    model().reset();
    model().script(reply().toolCall('skill', { name: 'notes' }), reply().text('Loaded.'));
    const called = await run('take notes of the meeting', true);
    expect(called.out).toContain('Loaded.');
    expect(called.loaded).toContain('evolve/skills/tool.ts');
  });
});
