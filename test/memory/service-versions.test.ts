/**
 * Memory that never loses a fact: subject-aware ingest through the service, the
 * judge model at the wire, history and restore, statements dated in the past,
 * and newest-first answers from search.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenAICompatibleProvider } from '../../src/llm/openai.js';
import { modelJudge } from '../../src/memory/judge.js';
import type { MemoryService } from '../../src/memory/service.js';
import { modelInfo } from '../support/harness.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { reply } from '../support/script.js';
import { wireMessages, wireText } from '../support/wire.js';
import { DAY, useService } from './service-fixtures.js';

const open = useService();
const fact = (content: string) => ({ content, category: 'fact' as const });
const active = (service: MemoryService) =>
  service
    .list()
    .map((m) => m.content)
    .sort();

/** The four statements of the issue: two frames, four subjects. */
const FOUR = [
  'The staging API of Heron runs on port 9090.',
  'The staging API of Osprey runs on port 7000.',
  '王磊每天早上都要喝一杯豆浆。',
  '陈静每天早上都要喝一杯咖啡。',
];

describe('ingest never supersedes across subjects', () => {
  it('keeps all four facts of two shared frames, offline', async () => {
    const { service } = open();
    for (const text of FOUR) expect((await service.remember(fact(text))).outcome).toBe('new');
    expect(active(service)).toEqual([...FOUR].sort());
  });

  it('a same-subject change supersedes, and the old version stays in the history', async () => {
    const { service, clock } = open();
    for (const text of FOUR) await service.remember(fact(text));
    clock.advance(DAY);
    const r = await service.remember(fact("Heron's staging API now runs on port 9191."));
    expect(r.outcome).toBe('update');
    expect(r.superseded?.content).toBe(FOUR[0]);
    expect(active(service)).not.toContain(FOUR[0]);
    expect(active(service)).toContain(FOUR[1]);
    const history = service.history(r.memory.id);
    expect(history.map((m) => m.content)).toEqual(["Heron's staging API now runs on port 9191.", FOUR[0]]);
    expect(history[1]?.validTo).toBe(clock());
    // The history is the same from either end of the chain.
    expect(service.history(history[1]!.id).map((m) => m.id)).toEqual(history.map((m) => m.id));
  });

  it('restore brings an old version back; with replace it becomes current again', async () => {
    const { service, clock } = open();
    const old = await service.remember(fact('The user lives in Paris'));
    clock.advance(DAY);
    const now = await service.remember(fact('The user lives in Berlin'));
    expect(now.outcome).toBe('update');

    const undone = service.restore(old.memory.id);
    expect(undone.replaced).toBeUndefined();
    expect(active(service)).toEqual(['The user lives in Berlin', 'The user lives in Paris']);
    // A restored memory is found again (its vector is back in the index).
    const hits = await service.search('Paris', { all: true });
    expect(
      hits.some((h) => h.memory.id === old.memory.id || h.versions.some((v) => v.id === old.memory.id)),
    ).toBe(true);

    expect(() => service.restore(old.memory.id)).toThrow(/already active/);
    expect(() => service.restore(9999)).toThrow(/no memory with id 9999/);

    clock.advance(DAY);
    const again = await service.remember(fact('The user lives in Rome'));
    expect(again.outcome).toBe('update');
    clock.advance(DAY);
    const back = service.restore(again.superseded!.id, { replace: true });
    expect(back.replaced?.id).toBe(again.memory.id);
    // The old statement is current again from now: a new version, so the periods never overlap.
    const restored = again.superseded!.content;
    expect(back.memory.content).toBe(restored);
    expect(back.memory.validFrom).toBe(clock());
    expect(service.repo.get(again.memory.id)).toMatchObject({
      supersededBy: back.memory.id,
      validTo: clock(),
    });
    expect(service.history(back.memory.id).map((m) => m.content)).toEqual([
      restored,
      'The user lives in Rome',
      restored,
    ]);
    expect(() => service.restore(back.memory.id, { replace: true })).toThrow(/already the current version/);
  });

  it('a forgotten memory can be restored too', async () => {
    const { service } = open();
    const m = await service.remember(fact('The user has two cats'));
    service.forget(m.memory.id);
    expect(active(service)).toEqual([]);
    service.restore(m.memory.id);
    expect(active(service)).toEqual(['The user has two cats']);
  });
});

describe('statements dated in the past', () => {
  it('are stored with their own time, and an older one than the stored version becomes its history', async () => {
    const { service, clock } = open();
    const jan = Date.UTC(2025, 0, 10);
    const mar = Date.UTC(2025, 2, 10);
    const newer = await service.remember(fact('The user lives in Berlin'), { at: mar });
    expect(newer.memory.createdAt).toBe(mar);
    expect(newer.memory.validFrom).toBe(mar);
    const older = await service.remember(fact('The user lives in Paris'), { at: jan });
    expect(older.outcome).toBe('history');
    expect(older.supersededBy?.id).toBe(newer.memory.id);
    expect(older.memory).toMatchObject({ validFrom: jan, validTo: mar, supersededBy: newer.memory.id });
    expect(active(service)).toEqual(['The user lives in Berlin']);
    expect(clock()).not.toBe(jan);
  });

  it('importStatements ingests in time order whatever the file order', async () => {
    const { service } = open();
    const counts = await service.importStatements([
      { content: 'The user lives in Rome', category: 'fact', createdAt: Date.UTC(2025, 5, 1) },
      { content: 'The user lives in Paris', category: 'fact', createdAt: Date.UTC(2025, 0, 1) },
      { content: 'The user lives in Berlin', category: 'fact', createdAt: Date.UTC(2025, 2, 1) },
      { content: 'The user lives in Berlin.', category: 'fact', createdAt: Date.UTC(2025, 3, 1) },
      { content: 'The user has two cats', category: 'fact' },
    ]);
    expect(counts).toEqual({ new: 2, update: 2, duplicate: 1, history: 0 });
    const rome = service.list().find((m) => m.content.includes('Rome'))!;
    const chain = service.history(rome.id);
    expect(chain.map((m) => [m.content, new Date(m.validFrom).toISOString().slice(0, 10)])).toEqual([
      ['The user lives in Rome', '2025-06-01'],
      ['The user lives in Berlin', '2025-03-01'],
      ['The user lives in Paris', '2025-01-01'],
    ]);
    await expect(service.importStatements([{ content: ' ', category: 'fact' }])).rejects.toThrow(
      /memory 1 of 1/,
    );
  });
});

describe('newest-first answers', () => {
  it('folds versions of one fact under the newest, and a past question gets the version valid then', async () => {
    const { service, clock } = open();
    clock.set(Date.UTC(2024, 2, 1));
    // Imported as they are (no ingest decisions): both versions stay active.
    service.importAll([
      { ...fact('王磊每天早上都要喝一杯豆浆。'), createdAt: Date.UTC(2024, 2, 1) },
      { ...fact('王磊每天早上都要喝一杯咖啡。'), createdAt: Date.UTC(2025, 6, 1) },
      { ...fact('陈静每天早上都要喝一杯茶。'), createdAt: Date.UTC(2025, 8, 1) },
    ]);
    clock.set(Date.UTC(2026, 0, 1));
    const now = await service.search('王磊现在早上喝什么？');
    expect(now[0]?.memory.content).toBe('王磊每天早上都要喝一杯咖啡。');
    expect(now[0]?.versions.map((v) => v.content)).toEqual(['王磊每天早上都要喝一杯豆浆。']);
    expect(now.filter((h) => h.memory.content.includes('王磊'))).toHaveLength(1);

    const then = await service.search('2024年王磊早上喝什么？');
    expect(then[0]?.memory.content).toBe('王磊每天早上都要喝一杯豆浆。');
    expect(then[0]?.versions.map((v) => v.content)).toEqual(['王磊每天早上都要喝一杯咖啡。']);
    const before = await service.search('王磊以前早上喝什么？');
    expect(before[0]?.memory.content).toBe('王磊每天早上都要喝一杯豆浆。');
  });

  it('a past question finds the superseded version of an update chain', async () => {
    const { service, clock } = open();
    clock.set(Date.UTC(2023, 5, 1));
    await service.remember(fact('The staging API of Heron runs on port 9090.'));
    clock.set(Date.UTC(2025, 5, 1));
    await service.remember(fact("Heron's staging API now runs on port 9191."));
    clock.set(Date.UTC(2026, 0, 1));
    expect(
      (await service.search('Which port did the Heron staging API use in 2024?'))[0]?.memory.content,
    ).toBe('The staging API of Heron runs on port 9090.');
    expect((await service.search('Which port does the Heron staging API use now?'))[0]?.memory.content).toBe(
      "Heron's staging API now runs on port 9191.",
    );
  });

  it('among rival answers about the asked name, the newest comes first even when worded apart', async () => {
    const { service, clock } = open();
    service.importAll([
      { ...fact('Tundra is maintained by Anika Petrov.'), createdAt: Date.UTC(2025, 0, 1) },
      { ...fact('Tundra has a new maintainer: Bruno Quinlan.'), createdAt: Date.UTC(2025, 9, 1) },
      { ...fact('Osprey is maintained by Dana Whitfield.'), createdAt: Date.UTC(2025, 1, 1) },
    ]);
    clock.set(Date.UTC(2026, 0, 1));
    const hits = await service.search('Who maintains Tundra?');
    expect(hits.map((h) => h.memory.content).slice(0, 2)).toEqual([
      'Tundra has a new maintainer: Bruno Quinlan.',
      'Tundra is maintained by Anika Petrov.',
    ]);
  });

  it('a version restored beside the newer one can still be made current with replace', async () => {
    const { service, clock } = open();
    const old = await service.remember(fact('The staging API of Heron runs on port 9090.'));
    clock.advance(DAY);
    const now = await service.remember(fact("Heron's staging API now runs on port 9191."));
    expect(now.outcome).toBe('update');
    clock.advance(DAY);
    service.restore(old.memory.id);
    // Both active; search folds the old one under the newer.
    clock.advance(DAY);
    const back = service.restore(old.memory.id, { replace: true });
    expect(back.replaced?.id).toBe(now.memory.id);
    expect(back.memory.content).toBe('The staging API of Heron runs on port 9090.');
    expect(active(service)).toEqual(['The staging API of Heron runs on port 9090.']);
    expect(service.repo.get(old.memory.id)).toMatchObject({ supersededBy: back.memory.id, validTo: clock() });
    expect(service.history(back.memory.id).map((m) => m.id)).toContain(now.memory.id);
    // A memory with no newer version is still refused.
    expect(() => service.restore(back.memory.id, { replace: true })).toThrow(/already the current version/);
  });

  it('a newer fact about another qualifier (production) does not pass the one asked about (staging)', async () => {
    const { service, clock } = open();
    clock.set(Date.UTC(2025, 0, 1));
    await service.remember(fact('The staging API of Heron runs on port 9090.'));
    clock.set(Date.UTC(2025, 3, 1));
    await service.remember(fact("Heron's staging API now runs on port 9191."));
    clock.set(Date.UTC(2025, 6, 1));
    await service.remember(fact('The production API of Heron runs on port 8080.'));
    await service.remember(fact('The Heron repo uses Node 20.'));
    const hits = await service.search('What port does the Heron staging API run on?');
    expect(hits[0]?.memory.content).toBe("Heron's staging API now runs on port 9191.");
    expect(hits[0]?.versions.map((v) => v.content)).toEqual(['The staging API of Heron runs on port 9090.']);
    // Shown scores follow the order.
    const scores = hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(new Set(scores).size).toBeGreaterThan(1);
  });

  it('cuts off weak matches and scores on a 0–1 scale', async () => {
    const { service } = open();
    for (const text of FOUR) await service.remember(fact(text));
    const hits = await service.search('port');
    expect(hits.map((h) => h.memory.content).sort()).toEqual([FOUR[0], FOUR[1]].sort());
    for (const h of hits) expect(h.score).toBeGreaterThan(0);
    for (const h of hits) expect(h.score).toBeLessThanOrEqual(1);
    expect(await service.search('completely unrelated gardening question')).toEqual([]);
    expect((await service.search('port', { all: true })).length).toBeGreaterThan(hits.length);
  });
});

describe('the judge model', () => {
  let server: ModelServer;
  let judged: MemoryService;
  let clockOf: ReturnType<typeof open>['clock'];
  beforeEach(async () => {
    server = await startModelServer();
    const { reopen, clock } = open();
    clockOf = clock;
    const provider = new OpenAICompatibleProvider(modelInfo(server.openaiBaseUrl, { model: 'cheap' }), {
      apiKey: 'k',
    });
    judged = reopen({ judge: modelJudge(provider) });
  });
  afterEach(async () => {
    await server.close();
  });

  it('decides an ambiguous pair the text cannot settle, and its subject/attribute are kept', async () => {
    const first = await judged.remember(fact('Tundra is maintained by Anika Petrov.'));
    expect(server.requests).toHaveLength(0); // nothing close yet: no call
    clockOf.advance(DAY);
    server.script(
      reply().text(
        `{"decision":"update","id":${first.memory.id},"subject":"Tundra","attribute":"maintainer","value":"Bruno Quinlan"}`,
      ),
    );
    const r = await judged.remember(fact('Tundra has a new maintainer: Bruno Quinlan.'));
    expect(r).toMatchObject({ outcome: 'update', judged: true });
    expect(r.superseded?.id).toBe(first.memory.id);
    expect(r.memory).toMatchObject({ subject: 'Tundra', attribute: 'maintainer' });
    const sent = wireMessages(server.requests[0]!.body).map(wireText).join('\n');
    expect(sent).toContain(`[id=${first.memory.id}]`);
  });

  it('a malformed reply falls back to keeping both', async () => {
    await judged.remember(fact('Tundra is maintained by Anika Petrov.'));
    server.script(reply().text('It is probably an update of the first memory, I think.'));
    const r = await judged.remember(fact('Tundra has a new maintainer: Bruno Quinlan.'));
    expect(server.requests).toHaveLength(1);
    expect(r.outcome).toBe('new');
    expect(r.judged).toBeUndefined();
    expect(active(judged)).toHaveLength(2);
  });

  it('a memory about another subject is not even shown to the judge: both are kept', async () => {
    const heron = await judged.remember(fact('The staging API of Heron runs on port 9090.'));
    server.respond(() => reply().text(`{"decision":"update","id":${heron.memory.id}}`));
    const r = await judged.remember(fact('The staging API of Osprey runs on port 9090.'));
    expect(server.requests).toHaveLength(0);
    expect(r.outcome).toBe('new');
    expect(active(judged)).toHaveLength(2);
  });

  it('a duplicate verdict that would drop a new value is refused', async () => {
    const v = await judged.remember(fact('Heron uses PostgreSQL.'));
    server.respond(() => reply().text(`{"decision":"duplicate","id":${v.memory.id}}`));
    const r = await judged.remember(fact('Heron uses PostgreSQL 16 with the pgvector extension.'));
    expect(server.requests).toHaveLength(1);
    expect(r.outcome).toBe('new');
  });

  it('an HTTP error falls back to the offline rule, which still catches a plain update', async () => {
    await judged.remember(fact('The user lives in Paris'));
    server.respond(() => reply().error(503));
    const r = await judged.remember(fact('The user lives in Berlin'));
    expect(server.requests.length).toBeGreaterThan(0);
    expect(r.outcome).toBe('update');
    expect(r.judged).toBeUndefined();
  });

  it('{judge: false} never asks', async () => {
    await judged.remember(fact('The user lives in Paris'));
    const r = await judged.remember(fact('The user lives in Berlin'), { judge: false });
    expect(r.outcome).toBe('update');
    expect(server.requests).toHaveLength(0);
  });
});
