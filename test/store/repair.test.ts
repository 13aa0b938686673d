import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { rebuildSearchIndexes } from '../../src/memory/rebuild.js';
import { MemoryService } from '../../src/memory/service.js';
import { readableCounts } from '../../src/store/census.js';
import { checkFile } from '../../src/store/check.js';
import { makeBackup, openDatabase, Store, StoreError } from '../../src/store/index.js';
import { type RepairOutcome, repairDatabase } from '../../src/store/repair.js';
import { RECOVERED_TITLE } from '../../src/store/salvage.js';
import { scanTable } from '../../src/store/scan.js';
import { overwritePages, pagesOf, rowsOf } from './damage.js';
import { useTempDirs } from './helpers.js';

const tempDir = useTempDirs();
const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const FACTS = ['The staging port is 8443', 'The deploy user is tea', 'Backups run at 02:00'];

/** 15 sessions of 6 messages each (one with a 20 KB answer, on overflow pages), and three memories. */
async function teaDatabase(): Promise<string> {
  const path = join(tempDir(), 'tea.db');
  const store = Store.open(path);
  for (let i = 0; i < 15; i++) {
    const s = store.sessions.create({ id: `session-${String(i).padStart(2, '0')}`, cwd: `/work/${i}` });
    for (let j = 0; j < 6; j++) {
      const text =
        i === 7 && j === 3 ? `long answer ${'x'.repeat(20_000)}` : `message ${j} of ${i} `.repeat(40);
      store.messages.append(s.id, {
        turnId: `t${j >> 1}`,
        role: j % 2 ? 'assistant' : 'user',
        parts: [{ type: 'text', text }],
      });
    }
  }
  const memory = new MemoryService({ db: store.db });
  for (const content of FACTS) await memory.remember({ content, category: 'fact' }, { judge: false });
  store.close();
  return path;
}

function repaired(outcome: RepairOutcome): Extract<RepairOutcome, { status: 'repaired' }> {
  if (outcome.status !== 'repaired') throw new Error('expected a repair');
  return outcome;
}

const repair = (path: string) =>
  repaired(repairDatabase(path, { rebuild: rebuildSearchIndexes, now: () => T0 }));

async function searchIds(path: string, query: string): Promise<number[]> {
  const db = openDatabase(path);
  try {
    return (await new MemoryService({ db }).search(query)).map((h) => h.memory.id);
  } finally {
    db.close();
  }
}

describe('tea db repair, damage in indexes only', () => {
  it("the trial's damage (noise over the two session indexes) is rebuilt with every row kept, the damaged file beside it", async () => {
    const path = await teaDatabase();
    const before = Object.fromEntries(['sessions', 'messages', 'memories'].map((t) => [t, rowsOf(path, t)]));
    overwritePages(path, [
      pagesOf(path, 'sessions_by_updated').root,
      pagesOf(path, 'sessions_by_cwd_updated').root,
    ]);
    const damaged = readFileSync(path);
    const check = checkFile(path);
    expect(check).toMatchObject({ ok: false, indexesOnly: true, tables: [] });
    expect(check.findings.join('\n')).toMatch(/\(index sessions_by_updated\)/);

    const r = repair(path);
    expect(r.salvage.lossless).toBe(true);
    expect(r.keptAs).toBe(`${path}.damaged-20260110-120000000`);
    expect(readFileSync(r.keptAs).equals(damaged)).toBe(true);
    expect(checkFile(path).ok).toBe(true);
    for (const [table, rows] of Object.entries(before)) expect(rowsOf(path, table)).toEqual(rows);
    // The indexes answer again: the store lists sessions by them.
    const store = Store.open(path);
    expect(store.sessions.list({ limit: 100 })).toHaveLength(15);
    store.close();
    expect(await searchIds(path, 'staging port')).toContain(1);
  });

  it("memory's full-text and vector indexes (a virtual table's own tables) are rebuilt from the memories", async () => {
    const path = await teaDatabase();
    const before = await searchIds(path, 'deploy user');
    expect(before.length).toBeGreaterThan(0);
    overwritePages(path, [
      pagesOf(path, 'memories_fts_words_data').root,
      pagesOf(path, 'memories_fts_trigram_data').root,
      pagesOf(path, 'memory_knn_192_chunks').root,
    ]);
    expect(checkFile(path)).toMatchObject({ ok: false, indexesOnly: true });
    const r = repair(path);
    expect(r.salvage.lossless).toBe(true);
    expect(r.salvage.rebuilt).toEqual(['memories_fts_trigram', 'memories_fts_words', 'memory_knn_192']);
    expect(checkFile(path).ok).toBe(true);
    expect(await searchIds(path, 'deploy user')).toEqual(before);
  });

  it('a sound database is left alone', async () => {
    const path = await teaDatabase();
    const bytes = readFileSync(path);
    expect(repairDatabase(path, { rebuild: rebuildSearchIndexes })).toEqual({ status: 'sound' });
    expect(readFileSync(path).equals(bytes)).toBe(true);
  });
});

describe('tea db repair, damage in tables', () => {
  it('copies every readable row past a damaged page of messages and says which ids could not be read', async () => {
    const path = await teaDatabase();
    const all = rowsOf(path, 'messages') as Array<{ id: number }>;
    const leaves = pagesOf(path, 'messages').leaves;
    const hit = leaves[Math.floor(leaves.length / 2)]!;
    overwritePages(path, [hit]);
    const check = checkFile(path);
    expect(check).toMatchObject({ ok: false, indexesOnly: false, tables: ['messages'] });

    const r = repair(path);
    expect(r.salvage.lossless).toBe(false);
    const messages = r.salvage.tables.find((t) => t.table === 'messages')!;
    const left = (rowsOf(path, 'messages') as Array<{ id: number }>).map((m) => m.id);
    const lostIds = all.map((m) => m.id).filter((id) => !left.includes(id));
    expect(lostIds.length).toBeGreaterThan(0);
    expect(messages.copied).toBe(all.length - lostIds.length);
    // One stretch of ids, bounded by the rows read on either side.
    expect(messages.lost).toEqual([{ from: BigInt(lostIds[0]!), to: BigInt(lostIds.at(-1)!) }]);
    for (const t of r.salvage.tables.filter((x) => x.table !== 'messages')) {
      expect({ table: t.table, lost: t.lost, bad: t.badRows }).toEqual({ table: t.table, lost: [], bad: 0 });
    }
    expect(checkFile(path).ok).toBe(true);
    expect(rowsOf(path, 'sessions')).toHaveLength(15);
  });

  it('a row whose overflow page is damaged is skipped alone', async () => {
    const path = await teaDatabase();
    const all = rowsOf(path, 'messages');
    const overflow = pagesOf(path, 'messages').overflow;
    expect(overflow.length).toBeGreaterThan(0);
    overwritePages(path, [overflow[1]!]);
    const r = repair(path);
    const messages = r.salvage.tables.find((t) => t.table === 'messages')!;
    expect(messages).toMatchObject({ copied: all.length - 1, badRows: 1, lost: [] });
    expect(readableCounts(path)).toEqual({ sessions: 15, messages: all.length - 1, memories: 3 });
  });

  it('messages whose session row was lost get a session again, so they can be listed', async () => {
    const path = await teaDatabase();
    overwritePages(path, [pagesOf(path, 'sessions').root]);
    const r = repair(path);
    const sessions = r.salvage.tables.find((t) => t.table === 'sessions')!;
    expect(sessions).toMatchObject({ copied: 0, lost: [{ from: null, to: null }] });
    expect(r.salvage.recreatedSessions).toBe(15);
    const store = Store.open(path);
    const listed = store.sessions.list({ limit: 100 });
    expect(listed).toHaveLength(15);
    expect(listed.every((s) => s.title === RECOVERED_TITLE)).toBe(true);
    expect(store.messages.list('session-03')).toHaveLength(6);
    store.close();
  });

  it('compares the result with the newest backup, row by row', async () => {
    const path = await teaDatabase();
    const db = openDatabase(path);
    makeBackup(db, path, { now: () => T0 - 1000 });
    db.close();
    const store = Store.open(path);
    store.sessions.create({ id: 'after-the-backup', cwd: '/w' });
    store.close();
    overwritePages(path, [pagesOf(path, 'sessions_by_updated').root]);
    const r = repair(path);
    expect(r.backup).toMatchObject({
      holds: { sessions: 15, memories: 3 },
      missing: { sessions: 0, messages: 0, memories: 0 },
      newer: { sessions: 1, messages: 0, memories: 0 },
    });
  });

  it('a file whose list of tables cannot be read is left as it was, with no copy made', async () => {
    const path = await teaDatabase();
    // A leaf of sqlite_schema, the table that lists every table and index.
    overwritePages(path, [pagesOf(path, 'sqlite_schema').leaves.at(-1)!]);
    const bytes = readFileSync(path);
    let error: unknown;
    try {
      repairDatabase(path, { rebuild: rebuildSearchIndexes, now: () => T0 });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StoreError);
    expect(readFileSync(path).equals(bytes)).toBe(true);
    expect(existsSync(`${path}.damaged-20260110-120000000`)).toBe(false);
    expect(existsSync(`${path}.repairing`)).toBe(false);
  });
});

describe('reading past damage', () => {
  it('a table without rowids is read from both ends up to the damaged page', () => {
    const path = join(tempDir(), 'keyed.db');
    const db = new Database(path);
    db.exec('CREATE TABLE pairs (a INTEGER, b TEXT, PRIMARY KEY (a, b)) WITHOUT ROWID');
    const insert = db.prepare('INSERT INTO pairs VALUES (?, ?)');
    db.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run(i, `value ${i} ${'p'.repeat(40)}`);
    })();
    db.close();
    const leaves = pagesOf(path, 'pairs').leaves;
    overwritePages(path, [leaves[Math.floor(leaves.length / 2)]!]);
    const damaged = new Database(path, { readonly: true });
    const seen: number[] = [];
    const scan = scanTable(
      damaged,
      'pairs',
      'CREATE TABLE pairs (a, b, PRIMARY KEY (a, b)) WITHOUT ROWID',
      ['a', 'b'],
      (row) => seen.push(Number(row[0])),
    );
    damaged.close();
    expect(scan.lostUnknown).toBe(true);
    expect(seen).toContain(0);
    expect(seen).toContain(1999);
    expect(seen.length).toBeGreaterThan(1800);
    expect(seen.length).toBeLessThan(2000);
  });
});
