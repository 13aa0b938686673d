/**
 * The runtime's lazy long-term memory over a real SQLite file: an empty memories
 * table answers recall (and the after-turn jobs' reads) without loading the
 * service; anything else loads it once and delegates.
 */
import { describe, expect, it } from 'vitest';
import type { Provider } from '../../src/llm/types.js';
import { MemoryService } from '../../src/memory/service.js';
import { LazyMemory } from '../../src/runtime/lazy-memory.js';
import type { Store } from '../../src/store/index.js';
import { useStore } from '../store/helpers.js';

const open = useStore();
const SCOPES = ['project:/w', 'user', 'global'];

/** A lazy memory over `store` and how many times it loaded its service. */
function lazyOver(store: Store, opts: { failFirst?: boolean } = {}) {
  const loads = { count: 0 };
  const memory = new LazyMemory({
    db: () => store.db,
    load: async () => {
      loads.count += 1;
      if (opts.failFirst && loads.count === 1) throw new Error('could not load');
      return new MemoryService({ db: store.db });
    },
  });
  return { memory, loads };
}

/** A model that must not be called: there is nothing to tune or summarise. */
const provider = new Proxy({} as Provider, {
  get() {
    throw new Error('no model call was expected');
  },
});

describe('LazyMemory', () => {
  it('answers recall, search and upkeep on an empty table without loading the service', async () => {
    const { store } = open();
    const { memory, loads } = lazyOver(store);
    expect(await memory.recall('what do I like?', { scopes: SCOPES })).toEqual({ text: '', memories: [] });
    expect(await memory.search('tea')).toEqual([]);
    expect(await memory.ingest([], { scope: 'user' })).toEqual([]);
    expect(await memory.reembed(10)).toBe(0);
    expect((await memory.tune(provider, 'tea', { scopes: SCOPES })).changed).toEqual([]);
    expect(await memory.reflect({ provider })).toMatchObject({ summaries: [], calls: 0 });
    expect(loads.count).toBe(0);
    expect(memory.loaded).toBe(false);
  });

  it('loads the service on the first write, once, and recall then finds what was written', async () => {
    const { store } = open();
    const { memory, loads } = lazyOver(store);
    await memory.recall('anything', { scopes: SCOPES });
    const added = await memory.remember({
      content: 'The user drinks green tea every morning',
      category: 'preference',
    });
    expect(added.outcome).toBe('new');
    expect(loads.count).toBe(1);
    expect(memory.loaded).toBe(true);
    const recalled = await memory.recall('what does the user drink?', { scopes: SCOPES });
    expect(recalled.memories.map((m) => m.id)).toEqual([added.memory.id]);
    expect(recalled.text).toContain('green tea');
    expect((await memory.search('green tea')).map((h) => h.memory.id)).toEqual([added.memory.id]);
    expect((await memory.list()).map((m) => m.id)).toEqual([added.memory.id]);
    expect(loads.count).toBe(1);
  });

  it('loads the service when recall finds rows a previous run left', async () => {
    const { store } = open();
    await new MemoryService({ db: store.db }).remember({
      content: 'The project deploys with make ship',
      category: 'fact',
      scope: 'project:/w',
    });
    const { memory, loads } = lazyOver(store);
    const recalled = await memory.recall('how do we deploy?', { scopes: SCOPES });
    expect(recalled.text).toContain('make ship');
    expect(loads.count).toBe(1);
  });

  it('loads the service for reads an empty table cannot answer alone (profile, list, get)', async () => {
    const { store } = open();
    const { memory, loads } = lazyOver(store);
    expect(await memory.profile()).toBe('');
    expect(loads.count).toBe(1);
    await memory.setProfile('Name: Ada');
    // The profile alone is not a memory: recall on an empty table stays empty, as the service's does.
    expect(await memory.recall('who am I?', { scopes: SCOPES })).toEqual({ text: '', memories: [] });
    expect(await memory.list()).toEqual([]);
    expect(await memory.get(1)).toBeUndefined();
    expect(loads.count).toBe(1);
  });

  it('reports a failed load to the caller and tries again on the next call', async () => {
    const { store } = open();
    const { memory, loads } = lazyOver(store, { failFirst: true });
    await expect(
      memory.remember({ content: 'The user likes oolong', category: 'preference' }),
    ).rejects.toThrow('could not load');
    expect(memory.loaded).toBe(false);
    const added = await memory.remember({ content: 'The user likes oolong', category: 'preference' });
    expect(added.outcome).toBe('new');
    expect(loads.count).toBe(2);
  });
});
