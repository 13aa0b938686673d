/**
 * The memory seam: the agent, its after-turn jobs, the HTTP server and ACP reach
 * long-term memory only through the LongTermMemory interface. Here they get a
 * backend that is nothing but that interface (each method forwarding to a real
 * SQLite MemoryService and logging the call): reaching past it (`.repo`, `.embedder`,
 * `instanceof MemoryService`) would fail.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { STATE_MEMORY_ERROR } from '../../src/agent/memory-jobs.js';
import { OpenAICompatibleProvider } from '../../src/llm/openai.js';
import type { LongTermMemory } from '../../src/memory/api.js';
import { MemoryService } from '../../src/memory/service.js';
import { startTestServer } from '../server/helpers.js';
import { useStore } from '../store/helpers.js';
import { collect } from '../support/collect.js';
import { createHarness, type Harness, modelInfo } from '../support/harness.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

/** Every method of the interface (the compiler checks this list is complete). */
const METHODS: Record<keyof LongTermMemory, true> = {
  recall: true,
  search: true,
  list: true,
  get: true,
  history: true,
  profile: true,
  remember: true,
  ingest: true,
  update: true,
  forget: true,
  restore: true,
  importAll: true,
  importStatements: true,
  setProfile: true,
  tune: true,
  reflect: true,
  reembed: true,
};

/** A backend that is only the interface: a plain object forwarding to `inner`, logging each call. */
function onlyTheInterface(inner: LongTermMemory, calls: string[]): LongTermMemory {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(METHODS) as Array<keyof LongTermMemory>) {
    const method = inner[name] as (...args: unknown[]) => unknown;
    out[name] = (...args: unknown[]) => {
      calls.push(name);
      return method.apply(inner, args);
    };
  }
  return Object.freeze(out) as unknown as LongTermMemory;
}

const SRC = path.resolve(__dirname, '..', '..', 'src');
const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? filesUnder(full) : full.endsWith('.ts') ? [full] : [];
  });

describe('the memory seam', () => {
  it('agent/, server/ and acp/ import the interface, never the SQLite service', () => {
    const offenders = ['agent', 'server', 'acp']
      .flatMap((layer) => filesUnder(path.join(SRC, layer)))
      .filter((file) => /from '\.\.\/memory\/service\.js'/.test(readFileSync(file, 'utf8')))
      .map((file) => path.relative(SRC, file));
    expect(offenders).toEqual([]);
  });

  describe('the agent and its after-turn jobs', () => {
    let h: Harness;
    beforeEach(async () => {
      h = await createHarness();
    });
    afterEach(async () => {
      await h.close();
    });

    it('remember through the tool, extract after the turn, recall in the next session', async () => {
      const calls: string[] = [];
      const memory = onlyTheInterface(new MemoryService({ db: h.store.db }), calls);
      const cheap = new OpenAICompatibleProvider(
        modelInfo(h.server.openaiBaseUrl, { profile: 'cheap_model', model: 'cheap-model' }),
        { apiKey: 'sk-test' },
      );
      const agent = h.agent({
        memory,
        cheapProvider: cheap,
        settings: { titles: false, toolLoading: 'all' },
      });
      h.server.script(
        reply().toolCall('memory', {
          action: 'add',
          content: 'The user’s favourite editor is Helix',
          category: 'preference',
        }),
        reply().text('I will remember that.'),
        reply().text(JSON.stringify([{ content: 'The user lives in Lisbon', category: 'fact' }])),
      );
      const first = agent.newSession();
      await collect(first.prompt('remember that my favourite editor is Helix; I live in Lisbon'));
      await first.settled();
      expect(h.store.state.get(first.id, STATE_MEMORY_ERROR)).toBeUndefined();

      h.server.script(reply().text('Helix, in Lisbon.'), reply().text('[]'));
      const second = agent.newSession();
      await collect(second.prompt('which editor should you open files in?'));
      await second.settled();
      expect(h.store.state.get(second.id, STATE_MEMORY_ERROR)).toBeUndefined();
      const system = wireText(wireMessages(h.server.requests[3]!.body)[0]!);
      expect(system).toContain('The user’s favourite editor is Helix');
      expect(system).toContain('The user lives in Lisbon');
      expect(new Set(calls)).toEqual(
        new Set(['recall', 'remember', 'search', 'ingest', 'reflect', 'reembed']),
      );
    });
  });

  describe('the HTTP server', () => {
    const openStore = useStore();

    it('serves every memory route from the interface alone', async () => {
      const calls: string[] = [];
      const memory = onlyTheInterface(new MemoryService({ db: openStore().store.db }), calls);
      const s = await startTestServer({ deps: { memory } });
      try {
        const added = await s.json<{ memory: { id: number } }>('POST', '/v1/memory', {
          content: 'Deploys happen on Fridays',
          category: 'fact',
        });
        expect(added.status).toBe(201);
        const id = added.body.memory.id;
        expect((await s.json('GET', '/v1/memory/search?q=deploys')).status).toBe(200);
        expect((await s.json('GET', `/v1/memory/${id}/history`)).status).toBe(200);
        expect((await s.json('POST', `/v1/memory/${id}/pin`, { pinned: true })).status).toBe(200);
        expect((await s.json('PUT', '/v1/memory/profile', { text: 'Likes short answers' })).status).toBe(200);
        expect((await s.json('DELETE', `/v1/memory/${id}`)).body).toEqual({ id, deleted: true });
        expect((await s.json('DELETE', `/v1/memory/${id}`)).status).toBe(404);
        expect((await s.json('GET', '/v1/memory')).status).toBe(200);
      } finally {
        await s.close();
      }
      expect(new Set(calls)).toEqual(
        new Set([
          'remember',
          'search',
          'history',
          'update',
          'setProfile',
          'profile',
          'get',
          'forget',
          'list',
        ]),
      );
    });
  });
});
