/**
 * The version relation between two statements, as an attacker's table: frames
 * shared by different subjects must never read as one fact changing value
 * ("slot"), whatever the position of the subject, the language or the wording.
 */
import { describe, expect, it } from 'vitest';
import { type Relation, relate } from '../../src/memory/relate.js';
import { readStatement } from '../../src/memory/statement.js';

type Want = 'same' | 'update' | 'version' | 'close' | 'apart' | 'unrelated' | 'not-slot';

function kind(r: Relation): Exclude<Want, 'not-slot'> {
  if (r.kind === 'slot') return r.single ? 'update' : 'version';
  return r.kind;
}

const rel = (older: string, newer: string) => kind(relate(readStatement(older), readStatement(newer)));

/** Different subjects in one frame: never an update, never even a version. */
const OTHER_SUBJECT: Array<[string, string]> = [
  ['The staging API of Heron runs on port 9090.', 'The staging API of Osprey runs on port 7000.'],
  ['The staging API of Heron runs on port 9090.', 'The staging API of Osprey runs on port 9090.'],
  ["Heron's staging API runs on port 9090.", "Osprey's staging API runs on port 9090."],
  ['王磊每天早上都要喝一杯豆浆。', '陈静每天早上都要喝一杯咖啡。'],
  ['王磊每天早上都要喝一杯豆浆。', '陈静每天早上都要喝一杯豆浆。'],
  ['乌龙茶是马娟每天早上必喝的。', '乌龙茶是谢凯每天早上必喝的。'],
  ['红茶是曹鹏每天早上必喝的。', '红茶是曹芳每天早上必喝的。'],
  ['拿铁是赵博文每天早上必喝的。', '拿铁是袁文博每天早上必喝的。'],
  ['天津是沈秀英的常住城市。', '天津是苏欣然的常住城市。'],
  ['PostgreSQL is the database of Heron.', 'PostgreSQL is the database of Osprey.'],
  ['PostgreSQL is used by Heron.', 'PostgreSQL is used by Osprey.'],
  ['The integration tests of Heron run on CircleCI.', 'The integration tests of Osprey run on CircleCI.'],
  ['我们在Heron里用的是PostgreSQL', '我们在Osprey里用的是PostgreSQL'],
  ['PROJ-142 is assigned to Dana Whitfield.', 'PROJ-143 is assigned to Dana Whitfield.'],
  ['Heron部署在Fly.io上。', 'Osprey部署在Fly.io上。'],
  ['Heron项目的负责人是李静。', 'Osprey项目的负责人是李静。'],
  [
    'Tuesdays at 16:30 is when the Badger team holds its weekly sync.',
    'Tuesdays at 16:30 is when the Badger team holds its sprint planning.',
  ],
  ['华为云上跑着夜翼平台。', '华为云上跑着天原项目。'],
  ['罗伟负责夜翼平台。', '罗伟负责龙帆项目。'],
  ['api.heron.example.com points to 10.0.0.7.', 'api.osprey.example.com points to 10.0.0.7.'],
  ['The user uses vim.', 'The user likes tea.'],
  ['Dana Whitfield is the owner of Heron.', 'Dana Whitfield is the owner of Osprey.'],
  ['Heron uses PostgreSQL.', 'Heron uses Redis for caching.'],
  ['每周三下午四点半是Starwood项目开迭代评审的时间。', '每周三下午四点是Starwood项目开迭代评审的时间。'],
];

/** The same subject, the same frame, another value of a one-value attribute. */
const UPDATES: Array<[string, string]> = [
  ['The staging API of Heron runs on port 9090.', "Heron's staging API now runs on port 9191."],
  ['The user lives in Paris', 'The user lives in Berlin'],
  ['I live in Paris.', 'The user lives in Berlin now.'],
  ['User prefers tabs for indentation', 'User prefers spaces for indentation'],
  ['Dev server port 3000', 'Dev server port 8080'],
  ['住在上海', '住在北京'],
  ['用户住在上海', '用户住在北京'],
  ['王磊每天早上都要喝一杯豆浆。', '王磊现在每天早上都要喝一杯咖啡。'],
  ['The owner of Heron is Dana Whitfield.', 'The owner of Heron is Marco Ruiz.'],
  ['PROJ-142 is assigned to Dana Whitfield.', 'PROJ-142 is now assigned to Marco Ruiz.'],
  ['Heron部署在Fly.io上', 'Heron部署在Render上'],
  ['Heron项目的负责人是李静。', 'Heron项目的负责人是王磊。'],
  [
    "Heron's staging API runs on port 9090 behind nginx.",
    "Heron's staging API runs on port 9191 behind nginx.",
  ],
  ['Heron uses Redis.', "Heron doesn't use Redis."],
  ['Dana has 2 cats.', 'Dana has 3 cats.'],
];

describe('relate: statements about different subjects are never one fact', () => {
  it.each(OTHER_SUBJECT)('%s | %s', (older, newer) => {
    const r = rel(older, newer);
    expect(r).not.toBe('update');
    expect(r).not.toBe('version');
    expect(r).not.toBe('same');
    // Either order: the relation does not depend on which came first.
    expect(['update', 'version', 'same']).not.toContain(rel(newer, older));
  });
});

describe('relate: one value of one fact changed', () => {
  it.each(UPDATES)('%s → %s', (older, newer) => {
    expect(rel(older, newer)).toBe('update');
  });
});

describe('relate: the rest', () => {
  it('a restatement is the same fact; one that drops a value is not', () => {
    expect(rel('The user prefers dark mode in the editor.', 'User prefers dark mode in editor')).toBe('same');
    // Dropping a value may be a change (四点半 → 四点, "and Redis" gone): not a restatement.
    expect(rel('Heron uses PostgreSQL and Redis.', 'Heron uses PostgreSQL.')).not.toBe('same');
    expect(rel('Heron uses PostgreSQL 16.', 'Heron uses PostgreSQL.')).not.toBe('same');
    expect(rel("Heron doesn't use Redis.", 'Heron uses Redis.')).not.toBe('same');
  });

  it('a multi-valued relation is a version (folded at search), never an update; with names, not even that', () => {
    expect(rel('The user likes green tea.', 'The user likes black tea.')).toBe('version');
    // Heron may use both: the text cannot tell, a judge can.
    expect(rel('Heron uses PostgreSQL.', 'Heron uses MySQL.')).toBe('close');
  });

  it('a subject swap that keeps a shared name is for a judge, not "apart"', () => {
    // The owner of Heron changed hands, said with the person as grammatical subject.
    expect(rel('Dana Whitfield is the owner of Heron.', 'Marco Ruiz is the owner of Heron.')).toBe('close');
  });

  it('statements with nothing in common are unrelated', () => {
    expect(rel('The user lives in Paris', 'The CI pipeline deploys on Fridays')).toBe('unrelated');
  });
});
