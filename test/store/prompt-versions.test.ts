import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { migrations, Store, schemaVersion } from '../../src/store/index.js';

const BUILTIN = 'Use tools; check results; never invent.';

describe('migration 13: prompt_versions and evolve_state', () => {
  let dir: string;
  let store: Store;
  let t = 1_000;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'tea-prompts-store-'));
    t = 1_000;
    store = Store.open(path.join(dir, 'tea.db'), { now: () => t });
  });
  afterEach(() => {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is numbered 13 after a stand-in 12, and a new database is at the newest version', () => {
    const versions = migrations.map((m) => m.version);
    expect(versions.slice(11, 13)).toEqual([12, 13]);
    expect(schemaVersion(store.db)).toBe(migrations.length);
    const tables = store.db
      .prepare<[], string>("SELECT name FROM sqlite_schema WHERE type = 'table'")
      .pluck()
      .all();
    expect(tables).toEqual(expect.arrayContaining(['prompt_versions', 'evolve_state']));
  });

  it('a fresh home stores nothing: no active version (the built-in text is in force)', () => {
    expect(store.prompts.active()).toBeUndefined();
    expect(store.prompts.list()).toEqual([]);
  });

  it('the first version stores the built-in text as version 1 and retires it when the new one is active', () => {
    const v2 = store.prompts.add(
      { content: 'mine', source: 'user', status: 'active', parentVersion: 1 },
      BUILTIN,
    );
    expect(v2).toMatchObject({
      version: 2,
      status: 'active',
      source: 'user',
      parentVersion: 1,
      activatedAt: 1_000,
    });
    expect(store.prompts.list().map((v) => [v.version, v.source, v.status, v.content])).toEqual([
      [1, 'builtin', 'retired', BUILTIN],
      [2, 'user', 'active', 'mine'],
    ]);
  });

  it('a candidate leaves the active version alone; activating it retires the old one', () => {
    const c = store.prompts.add({ content: 'proposal', source: 'evolve', status: 'candidate' }, BUILTIN);
    expect(c).toMatchObject({ version: 2, status: 'candidate', activatedAt: null });
    expect(store.prompts.active()?.version).toBe(1);
    t = 2_000;
    expect(store.prompts.activate(2)).toMatchObject({ status: 'active', activatedAt: 2_000 });
    expect(store.prompts.get(1)?.status).toBe('retired');
    // Already active: nothing changes.
    t = 3_000;
    expect(store.prompts.activate(2).activatedAt).toBe(2_000);
  });

  it('at most one version is active: the database refuses a second', () => {
    store.prompts.add({ content: 'a', source: 'user', status: 'active' }, BUILTIN);
    expect(() =>
      store.db.prepare("UPDATE prompt_versions SET status = 'active' WHERE version = 1").run(),
    ).toThrow(/UNIQUE/);
  });

  it.each([
    [
      "source 'root'",
      "INSERT INTO prompt_versions (version, content, source, status, created_at) VALUES (9, 'x', 'root', 'retired', 0)",
    ],
    [
      "status 'live'",
      "INSERT INTO prompt_versions (version, content, source, status, created_at) VALUES (9, 'x', 'user', 'live', 0)",
    ],
    [
      'version 0',
      "INSERT INTO prompt_versions (version, content, source, status, created_at) VALUES (0, 'x', 'user', 'retired', 0)",
    ],
  ])('the schema refuses %s', (_what, sql) => {
    expect(() => store.db.prepare(sql).run()).toThrow(/CHECK/);
  });

  it('refuses an empty version and an unknown one to activate', () => {
    expect(() => store.prompts.add({ content: '  \n', source: 'user', status: 'active' }, BUILTIN)).toThrow(
      /cannot be empty/,
    );
    expect(() => store.prompts.activate(7)).toThrow(/no prompt version 7/);
  });

  it('two connections adding at once get consecutive versions, never one twice', () => {
    const other = Store.open(path.join(dir, 'tea.db'));
    try {
      const a = store.prompts.add({ content: 'a', source: 'user', status: 'candidate' }, BUILTIN);
      const b = other.prompts.add({ content: 'b', source: 'user', status: 'candidate' }, BUILTIN);
      const c = store.prompts.add({ content: 'c', source: 'user', status: 'active' }, BUILTIN);
      expect([a.version, b.version, c.version]).toEqual([2, 3, 4]);
      expect(other.prompts.active()?.version).toBe(4);
    } finally {
      other.close();
    }
  });

  it('evolve_state keeps JSON values by key', () => {
    expect(store.evolveState.get('upkeep')).toBeUndefined();
    store.evolveState.set('upkeep', { at: 5, tools: [] });
    store.evolveState.set('upkeep', { at: 6, tools: ['x'] });
    expect(store.evolveState.get('upkeep')).toEqual({ at: 6, tools: ['x'] });
    expect(() => store.evolveState.set('bad', undefined)).toThrow(/JSON-serialisable/);
  });
});
