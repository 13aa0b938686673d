import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { OfflineEmbedder } from '../../src/memory/embed.js';
import type { ExtractedMemory } from '../../src/memory/extract.js';
import {
  acceptJudgement,
  decideIngest,
  hashContent,
  type IngestCandidate,
  readIngest,
  type SimilarMemory,
} from '../../src/memory/ingest.js';
import type { Memory } from '../../src/memory/types.js';

const embedder = new OfflineEmbedder();
let nextId = 1;

function stored(content: string, extra: Partial<Memory> = {}): Memory {
  return {
    id: nextId++,
    content,
    priority: 2,
    importance: 3,
    category: 'fact',
    tags: [],
    contentHash: hashContent(content),
    expiresAt: null,
    pinned: false,
    createdAt: 1,
    accessedAt: null,
    accessCount: 0,
    validFrom: 1,
    validTo: null,
    supersededBy: null,
    subject: null,
    attribute: null,
    sourceSessionId: null,
    sourceMessageId: null,
    scope: 'user',
    deletedAt: null,
    ...extra,
  };
}

function candidate(
  content: string,
  extra: Partial<ExtractedMemory> = {},
  withVector = false,
): IngestCandidate {
  const out: IngestCandidate = { content, category: 'fact', hash: hashContent(content), ...extra };
  if (withVector) out.vector = embedder.embedOne(content);
  return out;
}

function similar(memories: Memory[], withVectors = false): SimilarMemory[] {
  return memories.map((memory) =>
    withVectors ? { memory, vector: embedder.embedOne(memory.content) } : { memory },
  );
}

/** Runs a case both without vectors and with offline vectors: the outcome must not depend on them. */
function decideBoth(c: IngestCandidate, memories: Memory[]): ReturnType<typeof decideIngest>[] {
  const plain = decideIngest({ ...c, vector: undefined }, similar(memories));
  const withVectors = decideIngest({ ...c, vector: embedder.embedOne(c.content) }, similar(memories, true));
  return [plain, withVectors];
}

describe('hashContent', () => {
  it('is the first 16 hex chars of sha256 over trimmed, collapsed, lower-cased text', () => {
    const expected = createHash('sha256').update('user lives in paris').digest('hex').slice(0, 16);
    expect(hashContent('  User   lives\nin PARIS ')).toBe(expected);
    expect(hashContent('User lives in Paris')).toMatch(/^[0-9a-f]{16}$/);
    expect(hashContent('User lives in Berlin')).not.toBe(expected);
  });
});

describe('decideIngest', () => {
  it('Paris then Berlin without subject/attribute: an update of the Paris memory, never a merge', () => {
    const paris = stored('User lives in Paris');
    const other = stored('User works as a nurse');
    for (const d of decideBoth(candidate('User lives in Berlin'), [other, paris])) {
      expect(d).toEqual({ outcome: 'update', supersedes: paris.id });
    }
  });

  it('Paris then Berlin with subject/attribute: an update, even across categories and wordings', () => {
    const paris = stored('The user is based in Paris', { subject: 'user', attribute: 'home city' });
    const c = candidate('User moved to Berlin', {
      category: 'general',
      subject: 'User',
      attribute: 'Home City',
      value: 'Berlin',
    });
    for (const d of decideBoth(c, [paris])) expect(d).toEqual({ outcome: 'update', supersedes: paris.id });
  });

  it('the same subject, attribute and value is a duplicate', () => {
    const berlin = stored('User lives in Berlin', { subject: 'user', attribute: 'home city' });
    const c = candidate('Home city of the user: Berlin', {
      subject: 'user',
      attribute: 'home city',
      value: 'berlin',
    });
    for (const d of decideBoth(c, [berlin])) expect(d).toEqual({ outcome: 'duplicate', id: berlin.id });
  });

  it('different attributes of one subject are separate facts', () => {
    const city = stored('User lives in Paris', { subject: 'user', attribute: 'home city' });
    const c = candidate('User lives in a flat', { subject: 'user', attribute: 'housing', value: 'flat' });
    for (const d of decideBoth(c, [city])) expect(d).toEqual({ outcome: 'new' });
  });

  it('an exact repeat (modulo case and spaces) is a duplicate', () => {
    const m = stored('Always run the tests before committing', { category: 'instruction' });
    const c = candidate('  always run the TESTS before   committing', { category: 'instruction' });
    expect(c.hash).toBe(m.contentHash);
    for (const d of decideBoth(c, [m])) expect(d).toEqual({ outcome: 'duplicate', id: m.id });
  });

  it('a reworded repeat is a duplicate', () => {
    const m = stored('The user prefers dark mode in the editor.', { category: 'preference' });
    const c = candidate('User prefers dark mode in editor', { category: 'preference' });
    for (const d of decideBoth(c, [m])) expect(d).toEqual({ outcome: 'duplicate', id: m.id });
    const vectorsOnly = decideIngest(
      {
        ...candidate('user prefers the dark mode in the editor!!', { category: 'preference' }),
        vector: Float32Array.from([1, 0]),
      },
      [{ memory: m, vector: Float32Array.from([0.999, 0.02]) }],
    );
    expect(vectorsOnly).toEqual({ outcome: 'duplicate', id: m.id });
  });

  it('an unrelated memory is new', () => {
    const ms = [
      stored('User lives in Paris'),
      stored('The project uses PostgreSQL 16'),
      stored('User has two cats'),
    ];
    for (const d of decideBoth(candidate('The CI pipeline deploys on Fridays'), ms))
      expect(d).toEqual({ outcome: 'new' });
  });

  it('two short facts that share only "The user" are both kept', () => {
    const vim = stored('The user uses vim');
    for (const content of ['The user likes tea', 'The user runs Debian', 'The user has a cat'])
      for (const d of decideBoth(candidate(content), [vim])) expect(d).toEqual({ outcome: 'new' });
  });

  it('"prefers tabs" then "prefers spaces" is an update', () => {
    const tabs = stored('User prefers tabs for indentation', { category: 'preference' });
    const c = candidate('User prefers spaces for indentation', { category: 'preference' });
    for (const d of decideBoth(c, [tabs])) expect(d).toEqual({ outcome: 'update', supersedes: tabs.id });
  });

  it('a changed number ("port 3000" → "port 8080") is an update, also in a long sentence', () => {
    const short = stored('Dev server port 3000');
    for (const d of decideBoth(candidate('Dev server port 8080'), [short])) {
      expect(d).toEqual({ outcome: 'update', supersedes: short.id });
    }
    // Long enough that the shared words alone would pass the near-identical threshold.
    const sentence = (port: number): string =>
      `The local Vite development server of the customer web frontend listens on port ${port} by default in this monorepo checkout, started via npm scripts`;
    const long = stored(sentence(3000));
    const c = candidate(sentence(8080));
    for (const d of decideBoth(c, [long])) expect(d).toEqual({ outcome: 'update', supersedes: long.id });
  });

  it('Chinese: 住在上海 then 住在北京 is an update', () => {
    const sh = stored('住在上海');
    for (const d of decideBoth(candidate('住在北京'), [sh]))
      expect(d).toEqual({ outcome: 'update', supersedes: sh.id });
    const userSh = stored('用户住在上海');
    for (const d of decideBoth(candidate('用户住在北京'), [userSh])) {
      expect(d).toEqual({ outcome: 'update', supersedes: userSh.id });
    }
  });

  it('Chinese: an exact repeat is a duplicate and an unrelated one is new', () => {
    const m = stored('用户喜欢深色主题', { category: 'preference' });
    for (const d of decideBoth(candidate('用户喜欢深色主题', { category: 'preference' }), [m])) {
      expect(d).toEqual({ outcome: 'duplicate', id: m.id });
    }
    for (const d of decideBoth(candidate('明天下午三点开会', { category: 'preference' }), [m])) {
      expect(d).toEqual({ outcome: 'new' });
    }
  });

  it('a paraphrase in another category is not an update', () => {
    const m = stored('User prefers tabs for indentation', { category: 'preference' });
    const c = candidate('User prefers spaces for indentation', { category: 'instruction' });
    for (const d of decideBoth(c, [m])) expect(d).toEqual({ outcome: 'new' });
  });

  it('adding detail without replacing anything is new, not an update', () => {
    const m = stored('User prefers dark mode', { category: 'preference' });
    const c = candidate('User prefers dark mode in the terminal too', { category: 'preference' });
    for (const d of decideBoth(c, [m])) expect(d).toEqual({ outcome: 'new' });
  });

  it('ignores superseded and deleted memories', () => {
    const old = stored('User lives in Paris', { validTo: 5, supersededBy: 99 });
    const gone = stored('User lives in Berlin', { deletedAt: 5 });
    for (const d of decideBoth(candidate('User lives in Berlin'), [old, gone]))
      expect(d).toEqual({ outcome: 'new' });
  });

  it('prefers a subject/attribute match over a textual one when several could be updated', () => {
    const textual = stored('User lives in Lyon');
    const keyed = stored('Home: Paris', { subject: 'user', attribute: 'home city' });
    const c = candidate('User lives in Berlin', { subject: 'user', attribute: 'home city', value: 'Berlin' });
    expect(decideIngest(c, similar([textual, keyed]))).toEqual({ outcome: 'update', supersedes: keyed.id });
  });

  it('a value-preserving restatement with the same key and no value given is a duplicate', () => {
    const m = stored('User lives in Berlin', { subject: 'user', attribute: 'home city' });
    const c = candidate('user lives in berlin.', { subject: 'user', attribute: 'home city' });
    expect(decideIngest(c, similar([m]))).toEqual({ outcome: 'duplicate', id: m.id });
  });

  it('the four statements of two shared frames are all new, and none is shown to a judge as close', () => {
    const heron = stored('The staging API of Heron runs on port 9090.');
    const wang = stored('王磊每天早上都要喝一杯豆浆。');
    for (const [text, other] of [
      ['The staging API of Osprey runs on port 7000.', heron],
      ['陈静每天早上都要喝一杯咖啡。', wang],
    ] as const) {
      const reading = readIngest(candidate(text, {}, true), similar([heron, wang], true));
      expect(reading.decision).toEqual({ outcome: 'new' });
      expect(reading.close).not.toContain(other.id);
    }
  });

  it('a name in common makes a pair close for the judge, though the offline rule keeps both', () => {
    const anika = stored('Tundra is maintained by Anika Petrov.');
    const reading = readIngest(candidate('Tundra has a new maintainer: Bruno Quinlan.'), similar([anika]));
    expect(reading).toEqual({ decision: { outcome: 'new' }, close: [anika.id] });
  });
});

describe('acceptJudgement', () => {
  const heron = stored('The staging API of Heron runs on port 9090.');
  const pg = stored('Heron uses PostgreSQL.');
  it('takes add, update and duplicate verdicts the text does not contradict', () => {
    const c = candidate("Heron's staging API now runs on port 9191.");
    expect(acceptJudgement({ decision: 'update', id: heron.id }, c, [heron])).toEqual({
      outcome: 'update',
      supersedes: heron.id,
    });
    expect(acceptJudgement({ decision: 'add' }, c, [heron])).toEqual({ outcome: 'new' });
    expect(
      acceptJudgement({ decision: 'duplicate', id: pg.id }, candidate('Heron uses PostgreSQL'), [pg]),
    ).toEqual({
      outcome: 'duplicate',
      id: pg.id,
    });
  });

  it('refuses an update across subjects and a duplicate that drops a new value; ignores unknown ids', () => {
    const osprey = candidate('The staging API of Osprey runs on port 9090.');
    expect(acceptJudgement({ decision: 'update', id: heron.id }, osprey, [heron])).toEqual({
      outcome: 'new',
    });
    const more = candidate('Heron uses PostgreSQL 16.');
    expect(acceptJudgement({ decision: 'duplicate', id: pg.id }, more, [pg])).toEqual({ outcome: 'new' });
    expect(acceptJudgement({ decision: 'update', id: 999 }, more, [pg])).toBeUndefined();
  });
});

describe('which of two equally close versions an update replaces', () => {
  it('the latest, whatever order search found them in; a pinned one only when it is the only choice', () => {
    const old = stored('The Osprey cache runs on port 7000.', { validFrom: 1000, pinned: true });
    const latest = stored('The Osprey cache now runs on port 7100.', { validFrom: 2000 });
    const next = candidate('The Osprey cache now runs on port 7200.');
    for (const order of [
      [old, latest],
      [latest, old],
    ]) {
      expect(decideIngest(next, similar(order))).toEqual({ outcome: 'update', supersedes: latest.id });
    }
    const unpinnedOld = stored('The Osprey cache runs on port 6900.', { validFrom: 500 });
    expect(decideIngest(next, similar([unpinnedOld, old]))).toEqual({
      outcome: 'update',
      supersedes: unpinnedOld.id,
    });
    expect(decideIngest(next, similar([old]))).toEqual({ outcome: 'update', supersedes: old.id });
  });
});
