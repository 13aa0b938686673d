import { describe, expect, it } from 'vitest';
import { OfflineEmbedder } from '../../src/memory/embed.js';
import { PROFILE_MAX_CHARS } from '../../src/memory/profile.js';
import { MemoryService } from '../../src/memory/service.js';
import type { Priority } from '../../src/memory/types.js';
import { useStore } from '../store/helpers.js';
import { DAY, useService } from './service-fixtures.js';

const open = useService();
const openStore = useStore();

/** Distinct words so no two seeded memories look alike. */
const WORDS = [
  'apple',
  'bridge',
  'candle',
  'desert',
  'engine',
  'forest',
  'glacier',
  'harbor',
  'island',
  'jungle',
  'kettle',
  'lantern',
  'meadow',
  'nebula',
  'orchard',
  'pepper',
  'quartz',
  'river',
  'saddle',
  'tunnel',
  'umbrella',
  'violin',
  'walnut',
  'xylophone',
  'yogurt',
  'zephyr',
  'anchor',
  'basket',
  'canyon',
  'dolphin',
];

function seed(
  service: MemoryService,
  count: number,
  priority: Priority,
  offset: number,
  scope = 'user',
): number[] {
  return Array.from({ length: count }, (_, i) => {
    const word = WORDS[(offset + i) % WORDS.length] ?? 'x';
    return service.repo.add({
      content: `Remember the ${word} note number ${offset + i}`,
      category: priority === 0 ? 'instruction' : 'general',
      priority,
      scope,
    }).id;
  });
}

describe('MemoryService.recall', () => {
  it('returns the injection block with prefixes and the profile, and touches what it selected', async () => {
    const { service, clock } = open();
    service.setProfile('Name: Ada. Senior TypeScript engineer in Berlin.');
    await service.remember({ content: 'Never push to main directly', category: 'instruction' });
    await service.remember({ content: 'The user prefers tabs over spaces', category: 'preference' });
    await service.remember({ content: 'The build uses esbuild', category: 'fact' });
    await service.remember({
      content: 'Renew the TLS certificate',
      category: 'reminder',
      expiresAt: clock() + 3 * DAY,
    });
    await service.remember({ content: 'Secret project code', category: 'fact', scope: 'project:/other' });

    const { text, memories } = await service.recall('how is the build done', { scopes: ['user'] });
    expect(text).toContain('### User profile\nName: Ada. Senior TypeScript engineer in Berlin.');
    // The context builder writes the one "## Memories" heading around this block.
    expect(text).not.toContain('## Memories');
    expect(text).toContain('!!! Must follow: Never push to main directly');
    expect(text).toContain('💡 Preference: The user prefers tabs over spaces');
    expect(text).toContain('- Fact: The build uses esbuild');
    expect(text).not.toContain('📌');
    expect(text).toMatch(/⏰ Reminder: Renew the TLS certificate \(due \d{4}-\d{2}-\d{2}\)/);
    expect(text).not.toContain('Secret project code');
    expect(memories).toHaveLength(4);
    expect(memories.every((m) => m.accessCount === 1 && m.accessedAt === clock())).toBe(true);
  });

  it('is empty when there is nothing to say', async () => {
    const { service } = open();
    expect(await service.recall('anything', { scopes: ['user'] })).toEqual({ text: '', memories: [] });
  });

  it('keeps the tier quotas: CRITICAL cannot crowd out HIGH, MEDIUM and LOW', async () => {
    const { service } = open();
    seed(service, 12, 0, 0);
    seed(service, 5, 1, 12);
    seed(service, 5, 2, 17);
    seed(service, 3, 3, 22);
    // MEDIUM and LOW memories arrive through retrieval, so the query must reach them.
    const { memories } = await service.recall('note number', { scopes: ['user'], max: 15 });
    const count = (p: number): number => memories.filter((m) => m.priority === p).length;
    expect(memories).toHaveLength(15);
    expect(count(0)).toBeLessThanOrEqual(10);
    expect(count(1)).toBeGreaterThanOrEqual(3);
    expect(count(2)).toBeGreaterThanOrEqual(2);
    expect(count(3)).toBeGreaterThanOrEqual(1);
  });

  it('brings relevant MEDIUM/LOW memories, not irrelevant ones, under a tight limit', async () => {
    const { service } = open();
    seed(service, 6, 3, 0);
    const target = service.repo.add({
      content: 'The staging database is on port 5433',
      category: 'general',
    }).id;
    const { memories } = await service.recall('which port does the staging database use', {
      scopes: ['user'],
      max: 1,
    });
    expect(memories.map((m) => m.id)).toEqual([target]);
  });

  it('respects the token cap', async () => {
    const { service } = open();
    seed(service, 10, 1, 0);
    const { memories, text } = await service.recall('', { scopes: ['user'], tokenCap: 30 });
    expect(memories.length).toBeGreaterThan(0);
    expect(memories.length).toBeLessThan(10);
    expect(text.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(memories.length);
  });

  it('runs maintenance at most once an hour', async () => {
    const { service, clock } = open();
    seed(service, 16, 0, 0);
    await service.recall('', { scopes: ['user'] });
    expect(service.list({ scopes: ['user'] }).filter((m) => m.priority === 0)).toHaveLength(15);
    clock.advance(60_000);
    seed(service, 1, 0, 16);
    await service.recall('', { scopes: ['user'] });
    expect(service.list().filter((m) => m.priority === 0)).toHaveLength(16);
    clock.advance(60 * 60_000);
    await service.recall('', { scopes: ['user'] });
    expect(service.list().filter((m) => m.priority === 0)).toHaveLength(15);
  });
});

describe('MemoryService.maintain', () => {
  it('decays a CRITICAL memory after 31 days, but not a pinned one', async () => {
    const { service, clock } = open();
    const plain = seed(service, 1, 0, 0)[0] ?? 0;
    const pinned = service.repo.add({
      content: 'Pinned rule stays',
      category: 'instruction',
      pinned: true,
    }).id;
    expect(service.maintain()).toEqual({ decayed: 0, expired: 0, evicted: 0 });
    clock.advance(31 * DAY);
    expect(service.maintain()).toEqual({ decayed: 1, expired: 0, evicted: 0 });
    expect(service.repo.get(plain)?.priority).toBe(1);
    expect(service.repo.get(pinned)?.priority).toBe(0);
  });

  it('soft-deletes a reminder once it is due', async () => {
    const { service, clock } = open();
    const { memory } = await service.remember({
      content: 'Call the dentist',
      category: 'reminder',
      expiresAt: clock() + DAY,
    });
    clock.advance(2 * DAY);
    expect(service.maintain()).toEqual({ decayed: 0, expired: 1, evicted: 0 });
    expect(service.repo.get(memory.id)?.deletedAt).toBe(clock());
  });

  it('caps CRITICAL at 15 per scope: the oldest unpinned goes first', async () => {
    const { service, clock } = open();
    const ids: number[] = [];
    for (let i = 0; i < 16; i++) {
      ids.push(
        service.repo.add({ content: `Rule ${WORDS[i]} applies`, category: 'instruction', pinned: i === 0 })
          .id,
      );
      clock.advance(1000);
    }
    seed(service, 15, 0, 0, 'project:/x');
    expect(service.maintain()).toEqual({ decayed: 0, expired: 0, evicted: 1 });
    expect(service.repo.get(ids[0] ?? 0)?.deletedAt).toBeNull();
    expect(service.repo.get(ids[1] ?? 0)?.deletedAt).not.toBeNull();
    expect(service.list({ scopes: ['user'] })).toHaveLength(15);
    expect(service.list({ scopes: ['project:/x'] })).toHaveLength(15);
  });
});

describe('MemoryService.reembed', () => {
  it('re-embeds with a new embedder of other dimensions, then finds nothing left to do', async () => {
    const { service, reopen } = open();
    const a = await service.remember({ content: 'Coffee, black, no sugar', category: 'preference' });
    const b = await service.remember({ content: 'The CI runs on GitHub Actions', category: 'fact' });
    service.repo.add({ content: 'An old row with no vector', category: 'general' });
    const small = reopen({ embedder: new OfflineEmbedder({ dimensions: 64 }) });
    expect(await small.reembed(2)).toBe(2);
    expect(await small.reembed()).toBe(1);
    expect(await small.reembed()).toBe(0);
    const stored = small.repo.getEmbedding(a.memory.id);
    expect(stored?.embedder).toBe('offline-hash-64');
    expect(stored?.vector.length).toBe(64);
    const hits = await small.search('which CI system');
    expect(hits[0]?.memory.id).toBe(b.memory.id);
  });
});

describe('MemoryService export/import', () => {
  it('round-trips every row with its history into a fresh database', async () => {
    const { service } = open();
    await service.remember({
      content: 'The user lives in Paris',
      category: 'fact',
      subject: 'user',
      attribute: 'city',
    });
    await service.remember({
      content: 'The user lives in Berlin',
      category: 'fact',
      subject: 'user',
      attribute: 'city',
    });
    const gone = await service.remember({ content: 'Old scratch note', category: 'general' });
    service.forget(gone.memory.id);
    await service.remember({ content: 'Always write tests', category: 'instruction', tags: ['qa'] });
    const exported = JSON.parse(JSON.stringify(service.exportAll())) as ReturnType<
      MemoryService['exportAll']
    >;
    expect(exported).toHaveLength(4);

    const fresh = new MemoryService({ db: openStore().store.db });
    expect(fresh.importAll(exported)).toBe(4);
    const rows = fresh.exportAll();
    const byContent = new Map(rows.map((m) => [m.content, m]));
    const paris = byContent.get('The user lives in Paris');
    const berlin = byContent.get('The user lives in Berlin');
    expect(paris?.supersededBy).toBe(berlin?.id);
    expect(paris?.validTo).not.toBeNull();
    expect(byContent.get('Old scratch note')?.deletedAt).not.toBeNull();
    expect(byContent.get('Always write tests')?.tags).toEqual(['qa']);
    expect(byContent.get('Always write tests')?.createdAt).toBe(
      exported.find((m) => m.content === 'Always write tests')?.createdAt,
    );
    expect(
      fresh
        .list()
        .map((m) => m.content)
        .sort(),
    ).toEqual(['Always write tests', 'The user lives in Berlin']);
    const found = (await fresh.search('where does the user live')).map((h) => h.memory.content);
    expect(found[0]).toBe('The user lives in Berlin');
    expect(found).not.toContain('The user lives in Paris');
    expect(fresh.repo.getEmbedding(berlin?.id ?? 0)?.embedder).toBe('offline-hash-192');
    // Importing the same export again adds nothing.
    expect(fresh.importAll(exported)).toBe(0);
    expect(fresh.exportAll()).toHaveLength(4);
  });

  it('skips exact duplicates and rejects a bad item without adding anything', async () => {
    const { service } = open();
    await service.remember({ content: 'Use UTC in logs', category: 'instruction' });
    expect(
      service.importAll([
        { content: 'use utc in logs', category: 'instruction' },
        { content: 'Timezone is Europe/Berlin', category: 'fact' },
      ]),
    ).toBe(1);
    expect(() =>
      service.importAll([
        { content: 'A fine one', category: 'fact' },
        { content: 'Bad', category: 'nope' as 'fact' },
      ]),
    ).toThrow(/memory 2 of 2 to import: .*category/);
    expect(service.exportAll()).toHaveLength(2);
  });
});

describe('MemoryService profile', () => {
  it('stores, replaces, clears and survives a new service; refuses an over-long profile', () => {
    const { service, reopen } = open();
    expect(service.profile()).toBe('');
    service.setProfile('  Prefers short answers.  ');
    expect(service.profile()).toBe('Prefers short answers.');
    expect(reopen().profile()).toBe('Prefers short answers.');
    expect(() => service.setProfile('x'.repeat(PROFILE_MAX_CHARS + 1))).toThrow(
      /1501 characters, more than the 1500 allowed/,
    );
    expect(service.profile()).toBe('Prefers short answers.');
    service.setProfile('y'.repeat(PROFILE_MAX_CHARS));
    expect(service.profile()).toHaveLength(PROFILE_MAX_CHARS);
    service.setProfile('');
    expect(service.profile()).toBe('');
  });
});
