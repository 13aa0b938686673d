import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenAICompatibleProvider } from '../../src/llm/openai.js';
import type { Provider } from '../../src/llm/types.js';
import { REFLECTION_TAG } from '../../src/memory/tune.js';
import { reflectMemories, tunePriorities } from '../../src/memory/upkeep.js';
import { modelInfo } from '../support/harness.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { DAY, useService } from './service-fixtures.js';

const open = useService();

describe('reflection', () => {
  it('summarises each category into one memory and demotes the originals once', async () => {
    const { service, clock } = open();
    const a = await service.remember({
      content: 'The user prefers dark themes in editors',
      category: 'preference',
      importance: 4,
    });
    const b = await service.remember({
      content: 'The user prefers short answers with examples',
      category: 'preference',
      importance: 3,
    });
    await service.remember({ content: 'The user lives in Lyon', category: 'fact' });

    const first = await reflectMemories(service, clock());
    expect(first.summaries).toHaveLength(1);
    const summary = first.summaries[0]!;
    expect(summary).toMatchObject({ category: 'preference', priority: 1, importance: 5, scope: 'user' });
    expect(summary.tags).toContain(REFLECTION_TAG);
    expect(summary.content).toMatch(/prefers|dark|short/i);
    expect(first.demoted).toBe(2);
    expect(service.repo.get(a.memory.id)!.importance).toBe(3);
    expect(service.repo.get(b.memory.id)!.importance).toBe(2);

    // Nothing new: a second run changes nothing.
    clock.advance(DAY);
    const again = await reflectMemories(service, clock());
    expect(again).toEqual({ summaries: [], demoted: 0 });
    expect(service.repo.get(a.memory.id)!.importance).toBe(3);

    // A new preference: a fresh summary replaces the old one (kept for history).
    clock.advance(DAY);
    await service.remember({ content: 'The user prefers British spelling', category: 'preference' });
    const third = await reflectMemories(service, clock());
    expect(third.summaries).toHaveLength(1);
    const old = service.repo.get(summary.id)!;
    expect(old.supersededBy).toBe(third.summaries[0]!.id);
    expect(
      service.list().filter((m) => m.tags.includes(REFLECTION_TAG) && m.category === 'preference'),
    ).toHaveLength(1);
  });
});

describe('LLM priority tuning', () => {
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
});
