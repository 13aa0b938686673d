/**
 * The kind of value a statement holds and a question asks for, and the newest
 * answer among statements about the asked subject holding a value of that kind
 * — through MemoryService.search, on statements worded apart.
 */
import { describe, expect, it } from 'vitest';
import { shapedValues, shapesAsked } from '../../src/memory/shapes.js';
import { readStatement } from '../../src/memory/statement.js';
import { useService } from './service-fixtures.js';

const values = (text: string) => shapedValues(readStatement(text)).map((v) => `${v.shape}:${v.key}`);

describe('kinds of value read from a statement', () => {
  it.each([
    ['Ownership of Coppermark has passed to Marco Costa.', ['person:marco costa']],
    ['northstone-search now lives on svc-19.lon1.', ['host:svc-19.lon1']],
    ['The resolver answers on 10.0.3.17.', ['host:10.0.3.17']],
    ['REDF-1422这个支付回调丢失的问题由吕伟跟进。', ['ticket:redf-1422', 'person:吕伟']],
    ['萧家豪负责Bluebark项目。', ['person:萧家豪']],
    ['Bluebark项目由彭红负责维护。', ['person:彭红']],
    ['We bumped spring-boot in Maplewood to v2.8.2.', ['version:v2.8.2']],
    ['Tuesdays at 11:00 is when the Frostforge team holds its demo.', ['time:11:00']],
    ['紫湖系统的周会定在每周二下午四点半。', ['time:每周二下午四点半']],
    ['We switched Windleaf’s database to Neo4j.', ['database:neo4j']],
    ['Rafael switched editors and now uses Sublime Text.', ['editor:sublime text']],
    ['龙原系统跑在自建机房上，由运维组统一管理。', ['cloud:自建机房']],
    ['龙原系统用的是金山云的服务器。', ['cloud:金山云']],
    ['Does Marco Meyer still use Sublime Text?', ['person:marco meyer', 'editor:sublime text']],
    ['The service is written in TypeScript.', ['language:typescript']],
    ['The edge proxy moved from Fly.io to Hetzner.', ['cloud:fly.io', 'cloud:hetzner']],
    ['The parser is C++ and the CLI is C#.', ['language:c++', 'language:c#']],
    ['Dana moved to new york last spring.', ['place:new york']],
    ['Mira Okafor lives in Rio de Janeiro.', ['person:mira okafor', 'place:rio de janeiro']],
  ])('%s', (text, expected) => {
    expect(values(text)).toEqual(expected);
  });

  // What must not be read as a value of a kind: the form alone misleads.
  it.each([
    ['config/prod.yaml sets the timeout', []],
    ['雷泉平台的生产环境接口跑在7000端口。', []],
    ['紫湖系统的周会很重要。', []],
    ['We go to the office on foot.', []],
    ['The JavaScript bundle is small.', ['language:javascript']],
    ['postgresql-client is installed.', []],
    ['The render step is slow.', []],
  ])('not a value of a kind: %s', (text, expected) => {
    expect(values(text)).toEqual(expected);
  });
});

describe('kinds of value a question asks for', () => {
  it.each([
    ['Who currently looks after Coppermark?', ['person']],
    ['Frostpeak项目现在的负责人是谁？', ['person']],
    ['What machine runs the moonbrook-notifier service?', ['host']],
    ['Which spring-boot version is Maplewood on now?', ['version']],
    ['紫湖系统的周会几点开？', ['time']],
    ['Which datastore does Stormridge use now?', ['database']],
    ['What editor does Rafael Castillo use now?', ['editor']],
    ['夜河现在用哪家云？', ['cloud']],
    ['What port does the Heron staging API use?', []],
  ])('%s', (question, expected) => {
    expect([...shapesAsked(question)]).toEqual(expected);
  });
});

const open = useService();
const at = (y: number, m: number) => Date.UTC(y, m - 1, 1);
const fact = (content: string, createdAt: number) => ({ content, category: 'fact' as const, createdAt });

async function firstAnswer(rows: Array<[string, number]>, question: string): Promise<string[]> {
  const { service, clock } = open();
  service.importAll(rows.map(([content, when]) => fact(content, when)));
  clock.set(at(2026, 6));
  return (await service.search(question)).map((h) => h.memory.content);
}

describe('the newest statement holding a value of the asked kind answers', () => {
  it('a question word asks for a person: the newest owner, worded apart, comes first', async () => {
    const hits = await firstAnswer(
      [
        ['Lena Romero looks after Coppermark and reviews every release.', at(2023, 12)],
        ['Ownership of Coppermark has passed to Marco Costa.', at(2024, 8)],
        ['Coppermark stores its data in SQLite.', at(2025, 1)],
      ],
      'Who currently looks after Coppermark?',
    );
    expect(hits[0]).toBe('Ownership of Coppermark has passed to Marco Costa.');
    expect(hits).toContain('Lena Romero looks after Coppermark and reviews every release.');
  });

  it('the older rival it passed says so and ranks visibly below it', async () => {
    const { service, clock } = open();
    service.importAll([
      fact('Lena Romero looks after Coppermark.', at(2023, 12)),
      fact('Ownership of Coppermark has passed to Marco Costa.', at(2024, 8)),
    ]);
    clock.set(at(2026, 6));
    const [answer, older] = await service.search('Who looks after Coppermark now?');
    expect(answer?.memory.content).toBe('Ownership of Coppermark has passed to Marco Costa.');
    expect(answer?.newer).toBeUndefined();
    expect(older?.newer).toBe(answer?.memory.id);
    // Two decimals apart at least, as the CLI shows scores.
    expect(Number(older?.score.toFixed(2))).toBeLessThan(Number(answer?.score.toFixed(2)));
  });

  it('a question naming an old value ("still on …?") is answered by the newest value of its kind', async () => {
    const hits = await firstAnswer(
      [
        ['northstone-search runs on svc-19.syd1.', at(2024, 6)],
        ['The northstone-search service is deployed on node-24.nyc2.', at(2024, 9)],
        ['northstone-search now lives on svc-19.lon1.', at(2024, 10)],
      ],
      'Is northstone-search still on node-24.nyc2?',
    );
    expect(hits[0]).toBe('northstone-search now lives on svc-19.lon1.');
  });

  it('well-known things of a kind: a database named in the question', async () => {
    const hits = await firstAnswer(
      [
        ['Windleaf stores its data in PostgreSQL.', at(2025, 11)],
        ['The admin API of Windleaf runs on port 3017.', at(2026, 1)],
        ["We switched Windleaf's database to Neo4j.", at(2026, 3)],
      ],
      'Does Windleaf still run on PostgreSQL?',
    );
    expect(hits[0]).toBe("We switched Windleaf's database to Neo4j.");
  });

  it('a Chinese time named in the question', async () => {
    const hits = await firstAnswer(
      [
        ['紫湖系统的周会定在每周二下午四点半。', at(2025, 3)],
        ['紫湖系统的周会定在每周二上午九点。', at(2025, 7)],
      ],
      '紫湖系统的周会还是每周二下午四点半吗？',
    );
    expect(hits[0]).toBe('紫湖系统的周会定在每周二上午九点。');
  });

  it('a config key named beside the subject makes rivals of every statement holding both', async () => {
    const hits = await firstAnswer(
      [
        ['Kestrel runs with rate_limit_per_minute at 3120.', at(2025, 6)],
        ["Kestrel's rate_limit_per_minute is now 4140.", at(2026, 1)],
      ],
      'Kestrel rate_limit_per_minute value',
    );
    expect(hits[0]).toBe("Kestrel's rate_limit_per_minute is now 4140.");
  });

  it('the newest value about the subject answers though the words ranked it below the window', async () => {
    const first =
      'Pablo Mira Noah Olga Elena Kira Jamal Tom Hiro Priya Wanda Leon Selma Omar Ines Clara Bruno Dana'.split(
        ' ',
      );
    const cities = ['Lisbon', 'Seoul', 'Tokyo', 'Zurich', 'Berlin', 'Austin'];
    const crowd: Array<[string, number]> = [...first, ...first.map((f) => `${f}a`)].map((name, i) => [
      `${name} Jensen's home city is ${cities[i % cities.length]}.`,
      at(2024, 1 + (i % 12)),
    ]);
    const hits = await firstAnswer(
      [
        ...crowd,
        // His own statements that share more words with the question, crowding the answer out of the window.
        ...Array.from({ length: 24 }, (_, i): [string, number] => [
          `Felix Jensen's home directory on build box ${i + 1} is /home/felix.`,
          at(2024, 1 + (i % 12)),
        ]),
        ["Felix Jensen's home city is Toronto.", at(2024, 3)],
        ['Felix Jensen moved to Denver.', at(2025, 1)],
        ['Felix Jensen looks after Wolfforge and reviews every release.', at(2025, 6)],
      ],
      "What is Felix Jensen's home city?",
    );
    // The newest city takes the place the old one held, the old one right below it.
    const denver = hits.indexOf('Felix Jensen moved to Denver.');
    expect(denver).toBeGreaterThanOrEqual(0);
    expect(hits[denver + 1]).toBe("Felix Jensen's home city is Toronto.");
  });

  // Attempts to make a newer statement answer what it does not.
  it('a newer value of the kind about another subject does not pass', async () => {
    const hits = await firstAnswer(
      [
        ['Windleaf stores its data in PostgreSQL.', at(2025, 11)],
        ['We switched Frosthaven to Neo4j.', at(2026, 3)],
      ],
      'Does Windleaf still run on PostgreSQL?',
    );
    expect(hits[0]).toBe('Windleaf stores its data in PostgreSQL.');
  });

  it('a newer value of the kind with another qualifier (production) does not pass the asked one (staging)', async () => {
    const hits = await firstAnswer(
      [
        ['The staging API of Heron is deployed on stage-1.example.com.', at(2025, 1)],
        ['The production API of Heron is deployed on prod-2.example.com.', at(2025, 6)],
      ],
      'Which host does the staging API of Heron run on?',
    );
    expect(hits[0]).toBe('The staging API of Heron is deployed on stage-1.example.com.');
  });

  it('a statement with no value of the asked kind is no rival, however new', async () => {
    const hits = await firstAnswer(
      [
        ['Lena Romero looks after Coppermark.', at(2024, 1)],
        ['Coppermark looks after its own release notes now.', at(2026, 1)],
      ],
      'Who looks after Coppermark?',
    );
    expect(hits[0]).toBe('Lena Romero looks after Coppermark.');
  });

  it('asked about a past year, the version valid then answers', async () => {
    const hits = await firstAnswer(
      [
        ['Lena Romero looks after Coppermark.', at(2023, 12)],
        ['Ownership of Coppermark has passed to Marco Costa.', at(2025, 8)],
      ],
      'Who looked after Coppermark in 2024?',
    );
    expect(hits[0]).toBe('Lena Romero looks after Coppermark.');
  });
});
