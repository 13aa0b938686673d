import { describe, expect, it } from 'vitest';
import type { ExtractedMemory } from '../../src/memory/extract.js';
import { CountingEmbedder, FlakyEmbedder, useService } from './service-fixtures.js';

const open = useService();

describe('MemoryService.remember', () => {
  it('adds a new memory with a vector from its embedder', async () => {
    const { service } = open();
    const r = await service.remember({ content: 'The user prefers dark mode', category: 'preference' });
    expect(r.outcome).toBe('new');
    expect(r.memory.priority).toBe(1);
    expect(r.memory.scope).toBe('user');
    const stored = service.repo.getEmbedding(r.memory.id);
    expect(stored?.embedder).toBe('offline-hash-192');
    expect(stored?.vector.length).toBe(192);
  });

  it('a repeat is a duplicate: nothing added, access bumped', async () => {
    const { service } = open();
    const first = await service.remember({ content: 'Always answer in English', category: 'instruction' });
    const again = await service.remember({
      content: '  always answer   in english ',
      category: 'instruction',
    });
    expect(again.outcome).toBe('duplicate');
    expect(again.memory.id).toBe(first.memory.id);
    expect(again.memory.accessCount).toBe(1);
    expect(service.list()).toHaveLength(1);
  });

  it('Paris then Berlin (same subject and attribute): Berlin supersedes Paris, which is kept as history', async () => {
    const { service, clock } = open();
    const paris = await service.remember({
      content: 'The user lives in Paris',
      category: 'fact',
      subject: 'user',
      attribute: 'home city',
      value: 'Paris',
    });
    clock.advance(1000);
    const berlin = await service.remember({
      content: 'The user lives in Berlin',
      category: 'fact',
      subject: 'User',
      attribute: 'Home city',
      value: 'Berlin',
    });
    expect(berlin.outcome).toBe('update');
    expect(berlin.superseded?.id).toBe(paris.memory.id);
    expect(berlin.memory.subject).toBe('User');
    expect(berlin.memory.attribute).toBe('Home city');

    const old = service.repo.get(paris.memory.id);
    expect(old?.validTo).toBe(clock());
    expect(old?.supersededBy).toBe(berlin.memory.id);
    expect(old?.deletedAt).toBeNull();

    const hits = await service.search('where does the user live');
    expect(hits.map((h) => h.memory.content)).toEqual(['The user lives in Berlin']);
    expect((await service.search('Paris')).map((h) => h.memory.id)).not.toContain(paris.memory.id);
    expect(service.list().map((m) => m.id)).toEqual([berlin.memory.id]);
    expect(service.list({ includeInactive: true })).toHaveLength(2);
  });

  it('Paris then Berlin without subject or attribute is still an update, never a merge', async () => {
    const { service } = open();
    const paris = await service.remember({ content: 'The user lives in Paris', category: 'fact' });
    const berlin = await service.remember({ content: 'The user lives in Berlin', category: 'fact' });
    expect(berlin.outcome).toBe('update');
    expect(berlin.superseded?.id).toBe(paris.memory.id);
    expect(berlin.memory.content).toBe('The user lives in Berlin');
  });

  it('keeps scopes apart: the same text in another scope is new', async () => {
    const { service } = open();
    await service.remember({
      content: 'Use pnpm for installs',
      category: 'instruction',
      scope: 'project:/a',
    });
    const other = await service.remember({
      content: 'Use pnpm for installs',
      category: 'instruction',
      scope: 'project:/b',
    });
    expect(other.outcome).toBe('new');
    expect(service.list({ scopes: ['project:/b'] })).toHaveLength(1);
  });

  it('an embedder outage loses nothing: stored without a vector, found by text, embedded later', async () => {
    const embedder = new FlakyEmbedder();
    const { service } = open({ embedder });
    const { outcome, memory } = await service.remember({ content: 'Backups run at 02:00', category: 'fact' });
    expect(outcome).toBe('new');
    expect(service.repo.getEmbedding(memory.id)).toBeUndefined();
    expect((await service.search('backups')).map((h) => h.memory.id)).toEqual([memory.id]);
    embedder.up = true;
    await service.search('backups');
    expect(service.repo.getEmbedding(memory.id)?.embedder).toBe('counting-32');
  });

  it('rejects bad input with a clear error and stores nothing', async () => {
    const { service } = open();
    await expect(service.remember({ content: '   ', category: 'fact' })).rejects.toThrow(/non-empty/);
    await expect(service.remember({ content: 'x', category: 'bogus' as unknown as 'fact' })).rejects.toThrow(
      /category/,
    );
    await expect(service.remember({ content: 'x', category: 'fact', importance: 9 })).rejects.toThrow(
      /importance must be an integer from 1 to 5/,
    );
    expect(service.exportAll()).toHaveLength(0);
  });
});

describe('MemoryService.ingest', () => {
  it('applies each extracted memory in order: new, duplicate within the batch, update', async () => {
    const { service } = open();
    const batch: ExtractedMemory[] = [
      { content: 'The project API listens on port 3000', category: 'fact', importance: 4 },
      { content: 'The user likes concise answers', category: 'preference', tags: ['style'] },
      { content: 'the project api listens on port 3000', category: 'fact' },
      { content: 'The project API listens on port 8080', category: 'fact' },
    ];
    const results = await service.ingest(batch, { scope: 'project:/repo', sessionId: 's-1' });
    expect(results.map((r) => r.outcome)).toEqual(['new', 'new', 'duplicate', 'update']);
    expect(results[2]?.memory.id).toBe(results[0]?.memory.id);
    const active = service.list({ scopes: ['project:/repo'] });
    expect(active.map((m) => m.content).sort()).toEqual([
      'The project API listens on port 8080',
      'The user likes concise answers',
    ]);
    expect(active.every((m) => m.sourceSessionId === 's-1')).toBe(true);
    expect(active.find((m) => m.category === 'preference')?.tags).toEqual(['style']);
    expect(service.repo.get(results[0]?.memory.id ?? 0)?.supersededBy).toBe(results[3]?.memory.id);
  });

  it('one bad item rejects the batch before anything is written', async () => {
    const { service } = open();
    const batch = [
      { content: 'A good fact', category: 'fact' },
      { content: '', category: 'fact' },
    ] as ExtractedMemory[];
    await expect(service.ingest(batch, { scope: 'user' })).rejects.toThrow(/extracted memory 2 of 2/);
    expect(service.exportAll()).toHaveLength(0);
    expect(await service.ingest([], { scope: 'user' })).toEqual([]);
  });
});

describe('MemoryService.search', () => {
  it('finds Chinese memories with a two-character query', async () => {
    const { service } = open();
    await service.remember({ content: '用户喜欢喝乌龙茶', category: 'preference' });
    await service.remember({ content: '项目使用PostgreSQL数据库', category: 'fact' });
    await service.remember({ content: 'Deploy on Fridays is forbidden', category: 'instruction' });
    const hits = await service.search('乌龙');
    expect(hits[0]?.memory.content).toBe('用户喜欢喝乌龙茶');
    const db = await service.search('数据');
    expect(db[0]?.memory.content).toBe('项目使用PostgreSQL数据库');
    expect(await service.search('   ')).toEqual([]);
  });

  it('honours scopes and limit', async () => {
    const { service } = open();
    await service.remember({ content: 'Tests use vitest', category: 'fact', scope: 'project:/a' });
    await service.remember({ content: 'Tests use jest here', category: 'fact', scope: 'project:/b' });
    const hits = await service.search('tests', { scopes: ['project:/b'] });
    expect(hits.map((h) => h.memory.scope)).toEqual(['project:/b']);
    expect(await service.search('tests', { limit: 1 })).toHaveLength(1);
  });
});

describe('MemoryService.update / forget / list', () => {
  it('a content edit re-embeds at once with the built-in embedder', async () => {
    const { service } = open();
    const { memory } = await service.remember({ content: 'Editor is vim', category: 'preference' });
    const before = service.repo.getEmbedding(memory.id)?.vector;
    const updated = service.update(memory.id, { content: 'Editor is helix', pinned: true, tags: ['editor'] });
    expect(updated.pinned).toBe(true);
    expect(updated.tags).toEqual(['editor']);
    const after = service.repo.getEmbedding(memory.id)?.vector;
    expect(after).toBeDefined();
    expect(after).not.toEqual(before);
    expect(() => service.update(memory.id, { importance: 0 })).toThrow(/importance/);
    expect(() => service.update(9999, { importance: 2 })).toThrow(/no memory with id 9999/);
  });

  it('with another embedder, an edited memory is re-embedded by the next search', async () => {
    const embedder = new CountingEmbedder();
    const { service } = open({ embedder });
    const { memory } = await service.remember({ content: 'Shell is bash', category: 'preference' });
    service.update(memory.id, { content: 'Shell is fish' });
    expect(service.repo.getEmbedding(memory.id)).toBeUndefined();
    const hits = await service.search('fish shell');
    expect(hits[0]?.memory.id).toBe(memory.id);
    expect(service.repo.getEmbedding(memory.id)?.embedder).toBe('counting-32');
  });

  it('forget soft-deletes: gone from list and search, kept in export', async () => {
    const { service } = open();
    const { memory } = await service.remember({ content: 'Lucky number is 7', category: 'general' });
    const gone = service.forget(memory.id);
    expect(gone.deletedAt).not.toBeNull();
    expect(service.list()).toEqual([]);
    expect(await service.search('lucky number')).toEqual([]);
    expect(service.exportAll().map((m) => m.id)).toEqual([memory.id]);
    expect(service.list({ includeInactive: true, category: 'general' })).toHaveLength(1);
    expect(service.list({ category: 'fact' })).toEqual([]);
  });
});
