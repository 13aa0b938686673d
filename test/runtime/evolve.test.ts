/**
 * The runtime and self-evolution: the active prompt version reaches the agents (the
 * ones built before a change too), an explicit system prompt still wins, and `tea
 * serve`'s hourly upkeep runs under an injected scheduler and clock (no sleeps).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BUILTIN_INSTRUCTIONS, sessionSystemPrompt } from '../../src/agent/prompt.js';
import { agentSettings } from '../../src/agent/settings.js';
import { loadConfig } from '../../src/config/load.js';
import type { UpkeepResult } from '../../src/evolve/upkeep/run.js';
import { createRuntime, type Runtime } from '../../src/runtime/runtime.js';
import { createToolRegistry } from '../../src/tools/builtin/index.js';
import { ManualScheduler } from '../evolve/helpers.js';
import { useTempDirs } from '../store/helpers.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

const MINE = [
  'You are Tea Agent, trimmed.',
  'Act with tools and verify every result.',
  'Never invent file contents, paths or results.',
].join('\n');

const tempDir = useTempDirs();
let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

async function runtimeIn(home: string, work: string): Promise<Runtime> {
  const config = await loadConfig({ home, cwd: work, env: {}, detectOllama: false });
  return createRuntime({ config, cwd: work, titles: false });
}

function aHome(): { home: string; work: string } {
  const root = tempDir();
  const home = path.join(root, 'home');
  const work = path.join(root, 'work');
  mkdirSync(home);
  mkdirSync(work);
  writeFileSync(
    path.join(home, 'config.yaml'),
    [
      `main_model: { base_url: ${server.openaiBaseUrl}, api_key: sk-test, model: scripted-model }`,
      'memory: { extract: false, tune: false, judge: false }',
    ].join('\n'),
  );
  return { home, work };
}

/** The system message of a new session's first request. */
async function firstSystem(rt: Runtime): Promise<string> {
  server.script(reply().text('ok'));
  const before = server.requests.length;
  const session = rt.sessions.create();
  for await (const _ of session.prompt('hi'));
  return wireText(wireMessages(server.requests[before]!.body)[0]!);
}

describe('the active prompt version in the runtime', () => {
  it('reaches sessions started after a change, on the agents built before it too, and goes back on rollback', async () => {
    const { home, work } = aHome();
    const rt = await runtimeIn(home, work);
    try {
      expect(await firstSystem(rt)).toContain(BUILTIN_INSTRUCTIONS);
      const { prompts } = await rt.evolve();
      prompts.set(MINE);
      const system = await firstSystem(rt);
      expect(system.startsWith(`${MINE}\n\nWorking directory: ${work}`)).toBe(true);
      expect(system).not.toContain(BUILTIN_INSTRUCTIONS);
      expect(system).toMatch(/Permission mode: /);
      prompts.rollback();
      expect(await firstSystem(rt)).toContain(BUILTIN_INSTRUCTIONS);
    } finally {
      await rt.close();
    }
  });

  it('a new runtime reads the stored active version; a candidate is not used', async () => {
    const { home, work } = aHome();
    const first = await runtimeIn(home, work);
    (await first.evolve()).prompts.set(MINE);
    (await first.evolve()).prompts.propose(`${MINE}\nA candidate line.`, 'test');
    await first.close();
    const rt = await runtimeIn(home, work);
    try {
      const system = await firstSystem(rt);
      expect(system).toContain(MINE);
      expect(system).not.toContain('A candidate line.');
    } finally {
      await rt.close();
    }
  });

  it('a version another process sets reaches a running runtime’s next session (tea serve beside tea evolve prompts set)', async () => {
    const { home, work } = aHome();
    const serving = await runtimeIn(home, work);
    try {
      expect(await firstSystem(serving)).toContain(BUILTIN_INSTRUCTIONS);
      const other = await runtimeIn(home, work);
      (await other.evolve()).prompts.set(MINE);
      await other.close();
      expect(await firstSystem(serving)).toContain(MINE);
    } finally {
      await serving.close();
    }
  });

  it('an explicit system prompt wins over the version', async () => {
    const tools = await createToolRegistry();
    const settings = agentSettings({ systemPrompt: 'ROLE PROMPT', instructions: MINE, toolLoading: 'all' });
    expect(sessionSystemPrompt(settings, '/w', tools)).toMatch(/^ROLE PROMPT\nPermission mode: /);
    const plain = agentSettings({ instructions: MINE, toolLoading: 'all' });
    expect(sessionSystemPrompt(plain, '/w', tools)).toMatch(/^You are Tea Agent, trimmed\./);
  });
});

describe("tea serve's hourly upkeep", () => {
  it('runs on the injected scheduler, writes TEA_HOME/TOOLS.md, stores its result, and stops', async () => {
    const { home, work } = aHome();
    const rt = await runtimeIn(home, work);
    const scheduler = new ManualScheduler();
    const results: UpkeepResult[] = [];
    const errors: unknown[] = [];
    let resolveRound: () => void = () => {};
    const round = () =>
      new Promise<void>((r) => {
        resolveRound = r;
      });
    try {
      const bg = await rt.upkeepInBackground({
        scheduler,
        now: () => Date.UTC(2025, 0, 1),
        onResult: (r) => {
          results.push(r);
          resolveRound();
        },
        onError: (e) => {
          errors.push(e);
          resolveRound();
        },
      });
      expect(scheduler.pending.map((t) => t.ms)).toEqual([3_600_000]);
      expect(existsSync(path.join(home, 'TOOLS.md'))).toBe(false);
      let done = round();
      scheduler.fire();
      await done;
      expect(errors).toEqual([]);
      expect(results[0]!.reference).toMatchObject({ target: 'home', status: 'written' });
      const text = readFileSync(path.join(home, 'TOOLS.md'), 'utf8');
      expect(text).toContain('### read_file');
      expect(text).toContain('### memory');
      expect(text).toContain('### task');
      expect((await rt.evolve()).lastUpkeep()?.at).toBe(results[0]!.at);
      // The next round waits another hour, and finds the reference unchanged.
      expect(scheduler.pending.map((t) => t.ms)).toEqual([3_600_000]);
      done = round();
      scheduler.fire();
      await done;
      expect(results[1]!.reference).toMatchObject({ status: 'unchanged' });
      await bg.stop();
      expect(scheduler.pending).toEqual([]);
    } finally {
      await rt.close();
    }
  });
});
