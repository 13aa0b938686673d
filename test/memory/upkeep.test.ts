import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenAICompatibleProvider } from '../../src/llm/openai.js';
import type { Provider } from '../../src/llm/types.js';
import { REFLECTION_TAG } from '../../src/memory/reflect.js';
import type { MemoryService } from '../../src/memory/service.js';
import { sourcesOf } from '../../src/memory/sources.js';
import type { Memory, NewMemory } from '../../src/memory/types.js';
import { reflectMemories, tunePriorities } from '../../src/memory/upkeep.js';
import { modelInfo } from '../support/harness.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { DAY, useService } from './service-fixtures.js';

const open = useService();

let server: ModelServer;
let cheap: Provider;
beforeEach(async () => {
  server = await startModelServer();
  cheap = new OpenAICompatibleProvider(modelInfo(server.openaiBaseUrl, { model: 'cheap-model' }), {
    apiKey: 'sk-test',
  });
});
afterEach(async () => {
  await server.close();
});

/** The text the model was sent in request `i` (system and user). */
const sentText = (i: number) => wireMessages(server.requests[i]!.body).map(wireText).join('\n');

async function add(service: MemoryService, m: NewMemory): Promise<Memory> {
  const result = await service.remember(m);
  expect(result.outcome).toBe('new');
  return result.memory;
}

const TEA = [
  'Tea Agent is written in TypeScript and runs on Node 20',
  'Tea Agent stores long-term memories in SQLite',
  'Tea Agent tests run with vitest and lint with biome',
];
const UNRELATED = [
  'The user lives in Lyon',
  'The user has a cat named Miso',
  'The user works as a nurse',
  'The user drinks oolong tea every morning',
  'The user reads science fiction novels',
];
const SUMMARY =
  'Tea Agent is a TypeScript project on Node 20 that keeps memories in SQLite and is tested with vitest.';

/** The three Tea facts (the third pinned and HIGH) plus two unrelated facts. */
async function teaAndOthers(service: MemoryService) {
  const a = await add(service, { content: TEA[0]!, category: 'fact', importance: 4 });
  const b = await add(service, { content: TEA[1]!, category: 'fact', importance: 3 });
  const pinned = await add(service, {
    content: TEA[2]!,
    category: 'fact',
    importance: 5,
    priority: 1,
    pinned: true,
  });
  for (const content of UNRELATED.slice(0, 2)) await add(service, { content, category: 'fact' });
  return { a, b, pinned };
}

const summariesOf = (service: MemoryService) => service.list().filter((m) => m.tags.includes(REFLECTION_TAG));
/** id → [priority, importance] of every stored row. */
const ranks = (service: MemoryService) =>
  new Map(service.exportAll().map((m) => [m.id, [m.priority, m.importance, m.validTo, m.deletedAt]]));

describe('reflection', () => {
  it('offline (no provider) writes nothing and demotes nothing, even with related memories', async () => {
    const { service, clock } = open();
    await teaAndOthers(service);
    await add(service, { content: 'Tea Agent formats its code with biome', category: 'fact' });
    const before = ranks(service);
    const result = await reflectMemories(service, { now: clock() });
    expect(result).toEqual({
      summaries: [],
      demoted: 0,
      calls: 0,
      usage: { inputTokens: 0, outputTokens: 0 },
    });
    expect(ranks(service)).toEqual(before);
  });

  it('makes no summary of unrelated facts and does not even ask the model', async () => {
    const { service } = open();
    for (const content of UNRELATED) await add(service, { content, category: 'fact' });
    const before = ranks(service);
    const result = await reflectMemories(service, { provider: cheap });
    expect(result.summaries).toEqual([]);
    expect(result.calls).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(ranks(service)).toEqual(before);
  });

  it('summarises only the related memories, never above them, links them and leaves a pinned one alone', async () => {
    const { service } = open();
    const { a, b, pinned } = await teaAndOthers(service);
    server.script(reply().text(SUMMARY).usage(120, 30));
    const result = await reflectMemories(service, { provider: cheap });

    expect(server.requests).toHaveLength(1);
    const sent = sentText(0);
    for (const content of TEA) expect(sent).toContain(content);
    expect(sent).not.toContain('Lyon');
    expect(sent).not.toContain('Miso');
    expect(sent).toMatch(/NONE/);

    expect(result.calls).toBe(1);
    expect(result.usage).toMatchObject({ inputTokens: 120, outputTokens: 30 });
    expect(result.demoted).toBe(2);
    expect(result.summaries).toHaveLength(1);
    const summary = result.summaries[0]!;
    expect(summary).toMatchObject({ content: SUMMARY, category: 'fact', scope: 'user', pinned: false });
    expect(summary.tags).toEqual([REFLECTION_TAG]);
    expect(sourcesOf(service.repo.db, [summary.id]).get(summary.id)).toEqual([a.id, b.id, pinned.id]);

    const after = service.repo.getMany([a.id, b.id, pinned.id]);
    expect(after.map((m) => m.importance)).toEqual([3, 2, 5]);
    expect(after[2]).toEqual(pinned);
    for (const source of after) {
      expect(summary.priority).toBeGreaterThanOrEqual(source.priority);
      expect(summary.importance).toBeLessThanOrEqual(source.importance);
    }
    expect([summary.priority, summary.importance]).toEqual([2, 2]);
  });

  it('changes nothing when nothing is new, and replaces the summary of a cluster that grew', async () => {
    const { service, clock } = open();
    const { a, b, pinned } = await teaAndOthers(service);
    server.script(reply().text(SUMMARY));
    const first = (await reflectMemories(service, { provider: cheap })).summaries[0]!;

    clock.advance(DAY);
    const before = ranks(service);
    const again = await reflectMemories(service, { provider: cheap });
    expect(again).toMatchObject({ summaries: [], demoted: 0, calls: 0 });
    expect(server.requests).toHaveLength(1);
    expect(ranks(service)).toEqual(before);

    clock.advance(DAY);
    const d = await add(service, { content: 'Tea Agent formats its code with biome', category: 'fact' });
    const longer = `${SUMMARY} Code is formatted with biome.`;
    server.script(reply().text(`\`\`\`json\n${JSON.stringify({ summary: longer })}\n\`\`\``));
    const third = await reflectMemories(service, { provider: cheap });
    expect(sentText(1)).toContain('Tea Agent formats its code with biome');
    expect(third.summaries.map((m) => m.content)).toEqual([longer]);
    const next = third.summaries[0]!;
    expect(service.repo.get(first.id)).toMatchObject({ supersededBy: next.id, validTo: clock() });
    expect(summariesOf(service).map((m) => m.id)).toEqual([next.id]);
    expect(sourcesOf(service.repo.db, [next.id]).get(next.id)).toEqual([a.id, b.id, pinned.id, d.id]);
    // Only the new source lost a point: the others were demoted for the first summary.
    expect(third.demoted).toBe(1);
    expect(service.repo.getMany([a.id, b.id, pinned.id, d.id]).map((m) => m.importance)).toEqual([
      3, 2, 5, 2,
    ]);
  });

  it.each([
    ['NONE', reply().text('NONE')],
    ['garbage', reply().text('[1, 2, 3]')],
    ['a summary far too long', reply().text(`Tea Agent ${'and more '.repeat(60)}`)],
    ['HTTP 500', reply().error(500, { message: 'upstream exploded' })],
  ])('stores nothing and demotes nothing when the model answers %s', async (label, answer) => {
    const { service } = open();
    await teaAndOthers(service);
    const before = ranks(service);
    server.script(answer);
    const result = await reflectMemories(service, { provider: cheap });
    expect(server.requests).toHaveLength(1);
    expect(result.summaries).toEqual([]);
    expect(result.demoted).toBe(0);
    expect(ranks(service)).toEqual(before);
    if (label === 'HTTP 500') expect(result.error).toMatch(/upstream exploded/);
    else expect(result.error).toBeUndefined();
  });
});

describe('LLM priority tuning', () => {
  it('moves at most three memories one level each and restarts the age of raised ones', async () => {
    const { service, clock } = open();
    const ids: number[] = [];
    for (const content of ['uses vim', 'likes tea', 'runs Debian', 'works at night', 'has a cat']) {
      ids.push((await service.remember({ content: `The user ${content}`, category: 'fact' })).memory.id);
    }
    clock.advance(10 * DAY);
    server.script(
      reply().text(
        `Here you go:\n\`\`\`json\n${JSON.stringify([
          { id: ids[0], priority: 0 },
          { id: ids[1], priority: 3 },
          { id: 9999, priority: 1 },
          { id: ids[2], priority: 1 },
          { id: ids[3], priority: 1 },
        ])}\n\`\`\``,
      ),
    );
    const result = await tunePriorities(service, cheap, 'editors and terminals', { scopes: ['user'] });
    expect(result.changed).toEqual([
      { id: ids[0], from: 2, to: 1 },
      { id: ids[1], from: 2, to: 3 },
      { id: ids[2], from: 2, to: 1 },
    ]);
    expect(service.repo.get(ids[3]!)!.priority).toBe(2);
    expect(service.repo.get(ids[0]!)!.createdAt).toBe(clock());
    expect(service.repo.get(ids[1]!)!.createdAt).toBeLessThan(clock());
    const sent = wireMessages(server.requests[0]!.body).map(wireText).join('\n');
    expect(sent).toContain('editors and terminals');
    expect(sent).toContain(`[id=${ids[4]} MEDIUM(2)] The user has a cat`);
  });

  it('asks nothing when there is nothing to tune', async () => {
    const { service } = open();
    const result = await tunePriorities(service, cheap, 'anything', { scopes: ['user'] });
    expect(result.changed).toEqual([]);
    expect(server.requests).toHaveLength(0);
  });

  it('never lowers a pinned memory', async () => {
    const { service, clock } = open();
    const pinned = await add(service, {
      content: 'The user wants answers in French',
      category: 'preference',
      pinned: true,
    });
    const other = await add(service, { content: 'The user owns a bicycle', category: 'fact' });
    clock.advance(DAY);
    server.script(
      reply().text(
        JSON.stringify([
          { id: pinned.id, priority: 2 },
          { id: other.id, priority: 3 },
        ]),
      ),
    );
    const result = await tunePriorities(service, cheap, 'bicycles', { scopes: ['user'] });
    expect(result.changed).toEqual([{ id: other.id, from: 2, to: 3 }]);
    expect(service.repo.get(pinned.id)).toEqual(pinned);
    expect(sentText(0)).toContain(`[id=${pinned.id} HIGH(1) pinned]`);
  });
});
