import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Agent, AgentOptions } from '../../src/agent/index.js';
import {
  STATE_MEMORY_CURSOR,
  STATE_MEMORY_ERROR,
  STATE_MEMORY_TURNS,
  TUNE_EVERY_TURNS,
} from '../../src/agent/memory-jobs.js';
import { OpenAICompatibleProvider } from '../../src/llm/openai.js';
import { OfflineEmbedder } from '../../src/memory/embed.js';
import { MemoryService } from '../../src/memory/service.js';
import { collect } from '../support/collect.js';
import { createHarness, type Harness, modelInfo } from '../support/harness.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';

let h: Harness;
let memory: MemoryService;
beforeEach(async () => {
  h = await createHarness();
  memory = new MemoryService({ db: h.store.db });
});
afterEach(async () => {
  await h.close();
});

function agentWithMemory(over: Partial<AgentOptions> = {}): Agent {
  const cheap = new OpenAICompatibleProvider(
    modelInfo(h.server.openaiBaseUrl, { profile: 'cheap_model', model: 'cheap-model' }),
    { apiKey: 'sk-test' },
  );
  return h.agent({ memory, cheapProvider: cheap, ...over, settings: { titles: false, ...over.settings } });
}

const json = (items: unknown[]) => reply().text(JSON.stringify(items));
const request = (i: number) => h.server.requests[i]!;
const systemOf = (i: number) => wireText(wireMessages(request(i).body)[0]!);
const userOf = (i: number) =>
  wireMessages(request(i).body)
    .filter((m) => m.role === 'user')
    .map(wireText)
    .join('\n');

const BERLIN = {
  content: 'The user lives in Berlin',
  category: 'fact',
  subject: 'user',
  attribute: 'home city',
  value: 'Berlin',
};

describe('memory extraction after each turn', () => {
  it('stores what the cheap model extracts, and the next session’s request carries it', async () => {
    const agent = agentWithMemory();
    h.server.script(
      reply().text('Noted.'),
      json([BERLIN, { content: 'Always answer in metric units', category: 'instruction', importance: 5 }]),
    );
    const session = agent.newSession();
    await collect(session.prompt('I live in Berlin. Always give me metric units, please.'));
    await session.settled();

    expect(request(1).body.model).toBe('cheap-model');
    expect(userOf(1)).toContain('I live in Berlin. Always give me metric units');
    const stored = memory.list();
    expect(stored.map((m) => [m.content, m.priority, m.scope, m.sourceSessionId])).toEqual(
      expect.arrayContaining([
        ['The user lives in Berlin', 2, 'user', session.id],
        ['Always answer in metric units', 0, 'user', session.id],
      ]),
    );

    h.server.script(reply().text('About 6 km.'));
    const next = agent.newSession();
    await collect(next.prompt('how far is a 10k run?'));
    await next.settled();
    expect(systemOf(2)).toContain('!!! Must follow: Always answer in metric units');
    expect(systemOf(2)).toContain('The user lives in Berlin');
  });

  it('a changed fact supersedes the old one, and only new messages are read again', async () => {
    const agent = agentWithMemory();
    const session = agent.newSession();
    h.server.script(reply().text('Noted.'), json([BERLIN]));
    await collect(session.prompt('I live in Berlin these days.'));
    await session.settled();
    h.server.script(
      reply().text('Congratulations on the move.'),
      json([{ ...BERLIN, content: 'The user lives in Paris', value: 'Paris' }]),
    );
    await collect(session.prompt('I moved to Paris last week.'));
    await session.settled();

    expect(userOf(3)).toContain('I moved to Paris');
    expect(userOf(3)).not.toContain('I live in Berlin these days');
    const all = memory.list({ includeInactive: true });
    const berlin = all.find((m) => m.content.includes('Berlin'))!;
    const paris = all.find((m) => m.content.includes('Paris'))!;
    expect(berlin.validTo).not.toBeNull();
    expect(berlin.supersededBy).toBe(paris.id);
    expect(memory.list().map((m) => m.content)).toEqual(['The user lives in Paris']);
    expect(h.store.state.get<number>(session.id, STATE_MEMORY_CURSOR)).toBe(
      h.store.messages.list(session.id).at(-1)!.seq,
    );
  });

  it('puts project facts in the project’s scope', async () => {
    const agent = agentWithMemory();
    h.server.script(
      reply().text('Got it.'),
      json([{ content: 'Tests run with npm test', category: 'fact', scope: 'project' }]),
    );
    const session = agent.newSession();
    await collect(session.prompt('In this repo the tests run with npm test.'));
    await session.settled();
    expect(memory.list().map((m) => m.scope)).toEqual([`project:${h.workspace}`]);
  });

  it('skips trivial messages without a model call', async () => {
    const agent = agentWithMemory();
    h.server.script(reply().text('You are welcome.'));
    const session = agent.newSession();
    await collect(session.prompt('ok'));
    await session.settled();
    expect(h.server.requests).toHaveLength(1);
    expect(h.store.state.get<number>(session.id, STATE_MEMORY_CURSOR)).toBeGreaterThan(0);
  });

  it('is off when the agent says so', async () => {
    const agent = agentWithMemory({ settings: { memoryJobs: { extract: false } } });
    h.server.script(reply().text('Noted.'));
    const session = agent.newSession();
    await collect(session.prompt('I live in Berlin these days.'));
    await session.settled();
    expect(h.server.requests).toHaveLength(1);
  });

  it('a failing extraction leaves the turn intact and records why', async () => {
    const agent = agentWithMemory();
    h.server.script(
      reply().text('Noted.'),
      reply().error(400, { message: 'bad request from the cheap model' }),
    );
    const session = agent.newSession();
    const events = await collect(session.prompt('I live in Berlin these days.'));
    await session.settled();
    expect(events.at(-1)).toMatchObject({ type: 'done', reason: 'completed', text: 'Noted.' });
    expect(memory.list()).toEqual([]);
    expect(h.store.state.get<{ job: string; message: string }>(session.id, STATE_MEMORY_ERROR)).toMatchObject(
      {
        job: 'extract',
        message: expect.stringMatching(/bad request from the cheap model/),
      },
    );
    // The cursor did not move: the next run reads those messages again.
    expect(h.store.state.get(session.id, STATE_MEMORY_CURSOR)).toBeUndefined();
  });

  it(`tunes priorities every ${TUNE_EVERY_TURNS} turns on the cheap model`, async () => {
    const old = await memory.remember({ content: 'The user prefers tabs', category: 'preference' });
    memory.repo.setPriority(old.memory.id, 3);
    const agent = agentWithMemory();
    const session = agent.newSession();
    h.store.state.set(session.id, STATE_MEMORY_TURNS, TUNE_EVERY_TURNS - 1);
    h.server.script(
      reply().text('Sure.'),
      json([]),
      reply().text(JSON.stringify([{ id: old.memory.id, priority: 0 }])),
    );
    await collect(session.prompt('Let us talk about indentation with tabs.'));
    await session.settled();
    expect(userOf(2)).toContain(`[id=${old.memory.id} LOW(3)] The user prefers tabs`);
    // One level at a time, however far the model asked.
    expect(memory.repo.get(old.memory.id)!.priority).toBe(2);
    expect(h.store.state.get(session.id, STATE_MEMORY_TURNS)).toBe(0);
  });

  it('re-embeds memories stored by another embedder', async () => {
    await memory.remember({ content: 'The user drinks oolong tea', category: 'preference' });
    const wider = new MemoryService({ db: h.store.db, embedder: new OfflineEmbedder({ dimensions: 384 }) });
    expect(wider.repo.withoutEmbedding(wider.embedder.id, 10)).toHaveLength(1);
    memory = wider;
    const agent = agentWithMemory();
    h.server.script(reply().text('Oolong it is.'), json([]));
    const session = agent.newSession();
    await collect(session.prompt('What tea do I like?'));
    await session.settled();
    expect(wider.repo.withoutEmbedding(wider.embedder.id, 10)).toEqual([]);
    expect((await wider.search('oolong'))[0]?.memory.content).toBe('The user drinks oolong tea');
  });
});
