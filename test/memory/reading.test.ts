/** Reading what people write: times in questions, names, version picks and import files. */
import { describe, expect, it } from 'vitest';
import { readMemoryFile } from '../../src/memory/import-file.js';
import { namesIn } from '../../src/memory/names.js';
import { readStatement } from '../../src/memory/statement.js';
import { timeIntent } from '../../src/memory/time-query.js';
import { pickVersion } from '../../src/memory/versions.js';
import { mem } from './memory-factory.js';

const NOW = Date.UTC(2026, 11, 1);
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('timeIntent', () => {
  it.each([
    ['Which port did Heron use in 2024?', '2024-07-01'],
    ['2024年王磊早上喝什么？', '2024-07-01'],
    ['in March 2025 who owned Heron', '2025-03-15'],
    ['2025-03 owner of Heron', '2025-03-15'],
    ['2025年3月谁负责Heron', '2025-03-15'],
    ['What did Dana use last year?', '2025-07-01'],
    ['去年王磊住在哪里', '2025-07-01'],
    ['前年的端口', '2024-07-01'],
    ['two years ago', '2024-12-01'],
    ['3年前的负责人', '2023-12-02'],
    ['Where did Heron run in 2027?', '2026-12-01'],
  ])('%s → the version valid on %s', (q, when) => {
    const intent = timeIntent(q, NOW);
    expect(intent.kind).toBe('at');
    expect(intent.kind === 'at' ? day(intent.at) : '').toBe(when);
  });

  it.each([
    ['What port does Heron use now?', 'now'],
    ['Is Heron still on port 9090?', 'now'],
    ['王磊现在早上喝什么', 'now'],
    ['目前谁负责Heron', 'now'],
    ['Who used to own Heron?', 'before'],
    ['王磊以前早上喝什么？', 'before'],
    ['Heron原来部署在哪里', 'before'],
    ['Heron port', 'any'],
    ['port 2024 of heron', 'any'],
    ['Always run the tests before committing', 'any'],
  ])('%s → %s', (q, kind) => {
    expect(timeIntent(q, NOW).kind).toBe(kind);
  });
});

describe('pickVersion', () => {
  const v1 = mem(1, { validFrom: Date.UTC(2023, 0, 1), validTo: Date.UTC(2024, 5, 1), supersededBy: 2 });
  const v2 = mem(2, { validFrom: Date.UTC(2024, 5, 1), validTo: Date.UTC(2025, 5, 1), supersededBy: 3 });
  const v3 = mem(3, { validFrom: Date.UTC(2025, 5, 1) });
  const versions = [v3, v2, v1];
  it('answers with the newest active version unless asked about another time', () => {
    expect(pickVersion(versions, { kind: 'any' })).toBe(v3);
    expect(pickVersion(versions, { kind: 'now' })).toBe(v3);
    expect(pickVersion(versions, { kind: 'before' })).toBe(v2);
    expect(pickVersion(versions, { kind: 'at', at: Date.UTC(2023, 6, 1) })).toBe(v1);
    expect(pickVersion(versions, { kind: 'at', at: Date.UTC(2024, 6, 1) })).toBe(v2);
    expect(pickVersion(versions, { kind: 'at', at: Date.UTC(2026, 0, 1) })).toBe(v3);
    // Before the first version: nothing was valid, the newest answers.
    expect(pickVersion(versions, { kind: 'at', at: Date.UTC(2020, 0, 1) })).toBe(v3);
  });

  it('two active versions (kept apart at ingest) end where the newer begins', () => {
    const a = mem(4, { validFrom: Date.UTC(2024, 0, 1) });
    const b = mem(5, { validFrom: Date.UTC(2025, 0, 1) });
    expect(pickVersion([b, a], { kind: 'at', at: Date.UTC(2024, 6, 1) })).toBe(a);
    expect(pickVersion([b, a], { kind: 'at', at: Date.UTC(2025, 6, 1) })).toBe(b);
  });
});

describe('namesIn', () => {
  it.each([
    ['The staging API of Heron runs on port 9090.', ['heron']],
    ["Heron's staging API now runs on port 9191.", ['heron']],
    ['PROJ-142 is assigned to Dana Whitfield.', ['proj-142', 'dana', 'whitfield']],
    ['api.heron.example.com points to 10.0.0.7.', ['api.heron.example.com']],
    ['Reminder: Nebula sprint planning, Tuesdays at 16:30.', ['nebula']],
    ['黄梦瑶住在哪个城市？', ['黄梦瑶']],
    ['谢凯从昆明搬去了青岛。', ['谢凯']],
    ['彭宇说以后早上都喝牛奶。', ['彭宇']],
    ['山川项目部署在UCloud上。', ['山川', 'ucloud']],
    ['光港用的是哪家云服务？', ['光港']],
    ['The user lives in Paris', ['paris']],
  ])('%s → %j', (text, want) => {
    expect(namesIn(readStatement(text))).toEqual(want);
  });
});

describe('readMemoryFile', () => {
  it('reads a JSON array, an object holding a list, and JSON Lines, with the usual field names', () => {
    const array = readMemoryFile(
      JSON.stringify([
        { content: 'The user lives in Paris', created_at: '2025-01-02T00:00:00Z', tags: 'home, city' },
        { content: 'Prefers tabs', category: 'preference', createdAt: 1735862400 },
        'The user has two cats',
      ]),
    );
    expect(array).toEqual([
      {
        content: 'The user lives in Paris',
        category: 'fact',
        created_at: '2025-01-02T00:00:00Z',
        createdAt: Date.UTC(2025, 0, 2),
        tags: ['home', 'city'],
      },
      { content: 'Prefers tabs', category: 'preference', createdAt: 1735862400_000 },
      { content: 'The user has two cats', category: 'fact' },
    ]);
    expect(readMemoryFile(JSON.stringify({ memories: [{ text: 'a b c' }] }))).toEqual([
      { text: 'a b c', content: 'a b c', category: 'fact' },
    ]);
    const lines = readMemoryFile('{"content":"one","timestamp":1735862400000}\n\n{"content":"two"}\n');
    expect(lines.map((m) => [m.content, m.createdAt])).toEqual([
      ['one', 1735862400000],
      ['two', undefined],
    ]);
  });

  it.each([
    ['{"not":"an array"}', /expected a JSON array/],
    ['{"content":"ok"}\n{"content":', /line 2 is not JSON/],
    ['[{"content":""}]', /memory 1 of 1: "content" must be a non-empty string/],
    ['[{"content":"x"},{"content":"y","category":"secret"}]', /memory 2 of 2: unknown category "secret"/],
    ['[{"content":"x","created_at":"yesterday-ish"}]', /memory 1 of 1: cannot read the time "yesterday-ish"/],
    ['[{"content":"x","tags":[1,2]}]', /tags must be a list of strings/],
    ['[\n  {"content": "x"},\n  {"content": "y"', /^not valid JSON \(/],
    [
      '[{"content":"x","created_at":"2999-01-01"}]',
      /memory 1 of 1: created_at 2999-01-01T00:00:00.000Z is in the future/,
    ],
  ])('names what is wrong in %s', (text, message) => {
    expect(() => readMemoryFile(text)).toThrow(message);
  });
});
