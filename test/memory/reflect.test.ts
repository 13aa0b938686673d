import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type MemoryJobDeps, maybeReflect, STATE_MEMORY_ERROR } from '../../src/agent/memory-jobs.js';
import { OpenAICompatibleProvider } from '../../src/llm/openai.js';
import type { ModelInfo, Usage } from '../../src/llm/types.js';
import {
  type Cluster,
  findClusters,
  parseSummary,
  REFLECT_MAX_CLUSTER,
  REFLECTION_MAX_CHARS,
  REFLECTION_TAG,
  reflectionPrompt,
  related,
  summaryMemory,
  topicTerms,
} from '../../src/memory/reflect.js';
import { DAY_MS } from '../../src/memory/select.js';
import { MemoryService } from '../../src/memory/service.js';
import { dropCoveredSummaries, recordSources, sourcesOf } from '../../src/memory/sources.js';
import type { Memory } from '../../src/memory/types.js';
import { useStore } from '../store/helpers.js';
import { modelInfo } from '../support/harness.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';
import { testClock } from './fixtures.js';
import { mem, NOW } from './memory-factory.js';

const recent = (id: number, content: string, over: Partial<Memory> = {}) =>
  mem(id, { content, createdAt: NOW - 2 * DAY_MS, ...over });
const ids = (clusters: Cluster[]) => clusters.map((c) => c.members.map((m) => m.id));

const TEA = [
  'Tea Agent is written in TypeScript and runs on Node 20',
  'Tea Agent stores long-term memories in SQLite',
  'Tea Agent tests run with vitest and lint with biome',
];

describe('relatedness and clusters', () => {
  it('leaves generic words out of the topic terms', () => {
    expect([
      ...topicTerms(mem(1, { content: "The user's project prefers TypeScript and uses 2 tabs" })),
    ]).toEqual(['typescript', 'tab']);
    expect([...topicTerms(mem(1, { content: '用户喜欢喝咖啡', tags: ['饮料'] }))]).toEqual(['咖啡', '饮料']);
  });

  it('relates memories sharing enough topic terms or a specific subject, not a generic one', () => {
    expect(related(mem(1, { content: TEA[0] }), mem(2, { content: TEA[1] }))).toBe(true);
    expect(
      related(mem(1, { content: 'The user lives in Lyon' }), mem(2, { content: 'The user has a cat' })),
    ).toBe(false);
    const car = (id: number, content: string, subject: string) => mem(id, { content, subject });
    expect(related(car(1, 'It is blue', 'the car'), car(2, 'Bought in 2019', 'The  Car'))).toBe(true);
    expect(related(car(1, 'Lives in Lyon', 'user'), car(2, 'Has a cat', 'user'))).toBe(false);
  });

  it('clusters three or more related memories and leaves unrelated ones out', () => {
    const list = [
      recent(1, 'The user lives in Lyon'),
      recent(2, TEA[0]!),
      recent(3, 'The user has a cat named Miso'),
      recent(4, TEA[1]!),
      recent(5, 'The user works as a nurse'),
      recent(6, TEA[2]!),
      recent(7, 'The user drinks oolong tea every morning'),
    ];
    expect(ids(findClusters(list, NOW))).toEqual([[2, 4, 6]]);
    expect(findClusters(list.slice(0, 4), NOW)).toEqual([]);
    expect(
      findClusters(
        [1, 3, 5, 7].map((i) => list[i - 1]!),
        NOW,
      ),
    ).toEqual([]);
  });

  it('works on Chinese memories', () => {
    const list = [
      recent(1, '茶项目使用 SQLite 存储长期记忆'),
      recent(2, '用户喜欢喝咖啡'),
      recent(3, '茶项目的长期记忆测试用 vitest 运行'),
      recent(4, '用户喜欢爬山'),
      recent(5, '茶项目的长期记忆按类别聚类'),
    ];
    expect(ids(findClusters(list, NOW))).toEqual([[1, 3, 5]]);
  });

  it('does not chain unrelated memories through a third one', () => {
    const list = [
      recent(1, 'Grandma bakes apple pie on Sundays'),
      recent(2, 'Grandma bakes apple pie while the train timetable changes on Sundays'),
      recent(3, 'The train timetable changes in December'),
      recent(4, 'The train timetable lists the night train'),
      recent(5, 'Grandma bakes apple pie with cinnamon'),
    ];
    // 2 is related to all the others, but 3 and 4 are not related to 1 and 5.
    expect(ids(findClusters(list, NOW))).toEqual([[1, 2, 5]]);
    const more = [...list, recent(6, 'The train timetable changes for the night train in spring')];
    expect(ids(findClusters(more, NOW))).toEqual([
      [1, 2, 5],
      [3, 4, 6],
    ]);
  });

  it('keeps scopes and categories apart and orders clusters newest first', () => {
    const list = [
      ...TEA.map((t, i) => recent(i + 1, t, { scope: 'project:/a' })),
      ...TEA.map((t, i) => recent(i + 4, t, { scope: 'project:/b', createdAt: NOW - DAY_MS })),
      recent(7, TEA[0]!, { category: 'general' }),
      recent(8, TEA[1]!, { category: 'general' }),
      recent(9, TEA[2]!, { category: 'preference' }),
    ];
    expect(findClusters(list, NOW).map((c) => [c.scope, c.category, c.members.map((m) => m.id)])).toEqual([
      ['project:/b', 'fact', [4, 5, 6]],
      ['project:/a', 'fact', [1, 2, 3]],
    ]);
  });

  it('only takes live, unexpired, recent, non-critical memories that are not summaries', () => {
    const base = TEA.map((t, i) => recent(i + 1, t));
    const spoil: Array<Partial<Memory>> = [
      { createdAt: NOW - 31 * DAY_MS },
      { deletedAt: NOW - 1 },
      { supersededBy: 9, validTo: NOW - 1 },
      { tags: [REFLECTION_TAG] },
      { expiresAt: NOW - 1 },
      { priority: 0 },
    ];
    expect(ids(findClusters(base, NOW))).toEqual([[1, 2, 3]]);
    for (const over of spoil)
      expect(findClusters([base[0]!, base[1]!, { ...base[2]!, ...over }], NOW)).toEqual([]);
  });

  it(`puts at most ${REFLECT_MAX_CLUSTER} memories in one cluster`, () => {
    const list = Array.from({ length: 20 }, (_, i) =>
      recent(i + 1, `Tea Agent release ${i} ships plugin-${i}`),
    );
    const clusters = findClusters(list, NOW);
    expect(clusters[0]!.members).toHaveLength(REFLECT_MAX_CLUSTER);
    expect(clusters.flatMap((c) => c.members.map((m) => m.id)).sort((x, y) => x - y)).toEqual(
      list.map((m) => m.id),
    );
  });
});

describe('the summary', () => {
  const cluster: Cluster = {
    scope: 'user',
    category: 'reminder',
    members: [
      mem(1, { content: TEA[0], priority: 1, importance: 4, expiresAt: NOW + DAY_MS }),
      mem(2, { content: TEA[1], priority: 3, importance: 2, expiresAt: NOW + 3 * DAY_MS }),
      mem(3, { content: `${TEA[2]}\n\n${'x'.repeat(500)}`, priority: 2, importance: 5, expiresAt: NOW }),
    ],
  };

  it('is asked for with the memories, the length limit, the language and NONE', () => {
    const { system, user } = reflectionPrompt(cluster);
    expect(system).toContain(`at most ${REFLECTION_MAX_CHARS} characters`);
    expect(system).toContain('same language as the memories');
    expect(system).toContain('NONE');
    expect(user).toContain(`Category: reminder\nMemories:\n- ${TEA[0]}\n- ${TEA[1]}\n- ${TEA[2]} xxx`);
    expect(user.split('\n').at(-1)!.length).toBe(2 + 300);
  });

  it('never outranks its sources and expires with the last one', () => {
    const importance = new Map([
      [1, 3],
      [2, 2],
      [3, 5],
    ]);
    expect(summaryMemory(cluster, 'S', (m) => importance.get(m.id)!)).toEqual({
      content: 'S',
      category: 'reminder',
      priority: 3,
      importance: 2,
      tags: [REFLECTION_TAG],
      expiresAt: NOW + 3 * DAY_MS,
      scope: 'user',
    });
    const open = { ...cluster, members: [...cluster.members, mem(4, { priority: 0, importance: 1 })] };
    expect(summaryMemory(open, 'S', (m) => m.importance)).toMatchObject({
      priority: 3,
      importance: 1,
      expiresAt: null,
    });
  });
});

describe('parseSummary', () => {
  const text = 'Tea Agent is a TypeScript project that keeps its memories in SQLite.';

  it('reads plain text, JSON, fenced blocks and introduced answers', () => {
    expect(parseSummary(text)).toBe(text);
    expect(parseSummary(`  ${text.replace(' project', '\n project')}  `)).toBe(text);
    expect(parseSummary(JSON.stringify({ summary: text }))).toBe(text);
    expect(parseSummary(JSON.stringify(text))).toBe(text);
    expect(parseSummary(`Here you go:\n\`\`\`json\n{"summary": "${text}"}\n\`\`\``)).toBe(text);
    expect(parseSummary(`\`\`\`\n${text}\n\`\`\``)).toBe(text);
    expect(parseSummary(`Here is the summary:\n\n"${text}"`)).toBe(text);
    expect(parseSummary(`Summary: ${text}`)).toBe(text);
    expect(parseSummary(`<think>they match</think>${text}`)).toBe(text);
    expect(parseSummary('茶项目用 SQLite 存储长期记忆，并用 vitest 测试。')).toBe(
      '茶项目用 SQLite 存储长期记忆，并用 vitest 测试。',
    );
    expect(parseSummary(`{"summary": "${text}`)).toBe(text);
  });

  it('reads NONE and unusable answers as no summary', () => {
    for (const answer of [
      'NONE',
      'none.',
      'NONE - these memories are unrelated.',
      '```\nNONE\n```',
      '{"summary": null}',
      '{"summary": "NONE"}',
      '无',
      '',
      '   ',
      '[1, 2, 3]',
      '{"result": 42}',
      '{{{',
      '12345 !!!',
      'x'.repeat(REFLECTION_MAX_CHARS + 1),
    ]) {
      expect(parseSummary(answer), answer).toBeUndefined();
    }
    expect(parseSummary('None of the projects run on Windows.')).toBe('None of the projects run on Windows.');
  });
});

describe('summary sources', () => {
  const openStore = useStore();

  it('records links once, reads them per summary and drops them with a removed memory', () => {
    const { store } = openStore();
    const service = new MemoryService({ db: store.db });
    const [a, b, c, s] = ['one', 'two', 'three', 'summary'].map(
      (content) => service.repo.add({ content: `memory ${content}`, category: 'fact' }).id,
    ) as [number, number, number, number];
    recordSources(store.db, s, [c, a, b, a, s]);
    recordSources(store.db, s, [a]);
    expect(sourcesOf(store.db, [s, a, 999])).toEqual(new Map([[s, [a, b, c]]]));
    expect(sourcesOf(store.db, [])).toEqual(new Map());
    store.db.prepare('DELETE FROM memories WHERE id = ?').run(b);
    expect(sourcesOf(store.db, [s]).get(s)).toEqual([a, c]);
  });

  it('dropCoveredSummaries removes a summary shown next to one of its sources', () => {
    const [a, b, c, s1, s2, s3] = [1, 2, 3, 10, 11, 12].map((id) => mem(id));
    const sources = new Map([
      [10, [1, 2]],
      [11, [3, 4]],
      [12, [5]],
    ]);
    expect(dropCoveredSummaries([s1!, a!, s2!, s3!], sources)).toEqual([a, s2, s3]);
    expect(dropCoveredSummaries([s1!, s2!, c!], sources)).toEqual([s1, c]);
    expect(dropCoveredSummaries([s1!, s2!, s3!], sources)).toEqual([s1, s2, s3]);
    expect(dropCoveredSummaries([b!, c!], new Map())).toEqual([b, c]);
    expect(dropCoveredSummaries([], sources)).toEqual([]);
  });
});

describe('maybeReflect (after-turn job)', () => {
  const openStore = useStore();
  let server: ModelServer;
  beforeEach(async () => {
    server = await startModelServer();
  });
  afterEach(async () => {
    await server.close();
  });

  async function setup() {
    const { store } = openStore();
    const clock = testClock();
    const memory = new MemoryService({ db: store.db, now: clock });
    for (const content of TEA) await memory.remember({ content, category: 'fact', importance: 4 });
    const session = store.sessions.create({ cwd: '/w' });
    const usage: Array<[string, ModelInfo, Usage]> = [];
    const cheap = new OpenAICompatibleProvider(modelInfo(server.openaiBaseUrl, { model: 'cheap-model' }), {
      apiKey: 'sk-test',
    });
    const deps: MemoryJobDeps = {
      memory,
      cheap,
      store,
      sessionId: session.id,
      scopes: { user: 'user', project: 'project:/w', read: ['project:/w', 'user'] },
      tune: true,
      recordUsage: (label, model, u) => usage.push([label, model, u]),
      now: clock,
    };
    return { store, memory, deps, usage, clock };
  }

  it('summarises on the cheap model once a day and records the usage', async () => {
    const { memory, deps, usage, clock } = await setup();
    server.script(
      reply().text('Tea Agent: TypeScript on Node 20, SQLite memories, vitest tests.').usage(50, 9),
    );
    await maybeReflect(deps);
    expect(memory.list().filter((m) => m.tags.includes(REFLECTION_TAG))).toHaveLength(1);
    expect(usage.map(([label, model, u]) => [label, model.model, u])).toEqual([
      ['background:memory-reflect', 'cheap-model', { inputTokens: 50, outputTokens: 9 }],
    ]);
    clock.advance(DAY_MS / 2);
    await maybeReflect(deps);
    expect(server.requests).toHaveLength(1);
  });

  it.each([
    ['garbage', reply().text('{{{ ]]]')],
    ['HTTP 500', reply().error(500, { message: 'cheap model down' })],
  ])('does not throw when the model answers %s, and stores nothing', async (label, answer) => {
    const { store, memory, deps } = await setup();
    const before = memory.exportAll();
    server.script(answer);
    await expect(maybeReflect(deps)).resolves.toBeUndefined();
    expect(server.requests).toHaveLength(1);
    expect(memory.exportAll()).toEqual(before);
    const error = store.state.get<{ job: string; message: string }>(deps.sessionId, STATE_MEMORY_ERROR);
    if (label === 'HTTP 500')
      expect(error).toMatchObject({ job: 'reflect', message: expect.stringMatching(/down/) });
    else expect(error).toBeUndefined();
  });
});
