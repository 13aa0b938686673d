import { closeSync, existsSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { basename, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  backupDir,
  closeDatabase,
  damageReport,
  listBackups,
  openDatabase,
  restoreBackup,
  Store,
  StoreError,
} from '../../src/store/index.js';
import { useTempDirs } from './helpers.js';

const tempDir = useTempDirs();
const HOUR = 60 * 60 * 1000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);

function withSession(path: string, id: string): void {
  const store = Store.open(path);
  store.sessions.create({ id, cwd: '/w' });
  store.messages.append(id, {
    turnId: 't',
    role: 'user',
    parts: [{ type: 'text', text: `hello from ${id}` }],
  });
  store.close();
}

/** Overwrites the table `name`'s pages with 0xFF. */
function damageTable(path: string, name: string): void {
  const db = new Database(path, { readonly: true });
  const size = db.pragma('page_size', { simple: true }) as number;
  const pages = db
    .prepare<[string], { pageno: number }>('SELECT pageno FROM dbstat WHERE name = ?')
    .all(name)
    .map((r) => r.pageno);
  db.close();
  const fd = openSync(path, 'r+');
  for (const p of pages) writeSync(fd, Buffer.alloc(size, 0xff), 0, size, (p - 1) * size);
  closeSync(fd);
}

describe('daily backups', () => {
  it('one a day at most, the newest three kept, never of a file just created', () => {
    const path = join(tempDir(), 'tea.db');
    let now = T0;
    const open = () => closeDatabase(openDatabase(path, { backup: { now: () => now } }));
    open();
    expect(listBackups(path)).toEqual([]); // new file: nothing to keep yet
    withSession(path, 'a');
    open();
    expect(listBackups(path).map((b) => b.at)).toEqual([T0]);
    now += DAY - 1;
    open();
    expect(listBackups(path)).toHaveLength(1);
    for (let day = 1; day <= 4; day++) {
      now = T0 + day * DAY;
      open();
    }
    expect(listBackups(path).map((b) => (b.at - T0) / DAY)).toEqual([4, 3, 2]);
    expect(basename(listBackups(path)[0]!.path)).toBe('tea-20260114-120000000.db');
    const copy = new Database(listBackups(path)[0]!.path, { readonly: true });
    expect(copy.prepare('SELECT id FROM sessions').pluck().all()).toEqual(['a']);
    copy.close();
  });

  it('an existing file with nothing in it yet is not backed up; the first session is, when it is next closed', () => {
    const path = join(tempDir(), 'tea.db');
    const open = () => closeDatabase(openDatabase(path, { backup: { now: () => T0 } }));
    open();
    open(); // e.g. `tea sessions list` twice on a fresh install
    expect(listBackups(path)).toEqual([]);
    withSession(path, 'first');
    open();
    expect(listBackups(path).map((b) => b.at)).toEqual([T0]);
  });

  it('a database that has doubled since its newest backup is backed up again after an hour, not a day', () => {
    const path = join(tempDir(), 'tea.db');
    let now = T0;
    const open = () => closeDatabase(openDatabase(path, { backup: { now: () => now } }));
    withSession(path, 'first');
    open();
    expect(listBackups(path)).toHaveLength(1);
    // A morning's work: far more than the first backup held.
    const store = Store.open(path);
    for (let i = 0; i < 40; i++) {
      const id = `s${i}`;
      store.sessions.create({ id, cwd: '/w' });
      store.messages.append(id, {
        turnId: 't',
        role: 'user',
        parts: [{ type: 'text', text: 'x'.repeat(20_000) }],
      });
    }
    store.close();
    now = T0 + HOUR - 1;
    open();
    expect(listBackups(path)).toHaveLength(1); // not within the hour
    now = T0 + HOUR;
    open();
    expect(listBackups(path).map((b) => b.at)).toEqual([T0 + HOUR, T0]);
    const copy = new Database(listBackups(path)[0]!.path, { readonly: true });
    expect(copy.prepare('SELECT count(*) FROM sessions').pluck().get()).toBe(41);
    copy.close();
    // Without growth, the next one waits for the day.
    now = T0 + 5 * HOUR;
    open();
    expect(listBackups(path)).toHaveLength(2);
  });

  it('a damaged table fails the backup (with the way back) and the older backups stay', () => {
    const path = join(tempDir(), 'tea.db');
    withSession(path, 'a');
    closeDatabase(openDatabase(path, { backup: { now: () => T0 } }));
    damageTable(path, 'messages');
    let error: unknown;
    try {
      openDatabase(path, { backup: { now: () => T0 + 2 * DAY } });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('damaged');
    expect((error as StoreError).message).toMatch(/is damaged \(database disk image is malformed\)/);
    expect((error as StoreError).message).toContain('tea-20260110-120000000.db');
    expect(damageReport(error)).toBe((error as StoreError).message);
    expect(listBackups(path).map((b) => b.at)).toEqual([T0]);
    expect(existsSync(join(backupDir(path), 'tea-20260112-120000000.db.partial'))).toBe(false);
  });
});

describe('restoreBackup', () => {
  it('puts the newest good backup back and keeps the damaged file (and its WAL) beside it', () => {
    const path = join(tempDir(), 'tea.db');
    withSession(path, 'a');
    closeDatabase(openDatabase(path, { backup: { now: () => T0 } }));
    withSession(path, 'b');
    closeDatabase(openDatabase(path, { backup: { now: () => T0 + DAY } }));
    // The newest backup is itself damaged: the one before it is used.
    writeFileSync(listBackups(path)[0]!.path, 'garbage');
    writeFileSync(`${path}-wal`, 'a stale wal');
    const before = readFileSync(path);

    const done = restoreBackup(path, { now: () => T0 + 2 * DAY });
    expect(basename(done.from.path)).toBe('tea-20260110-120000000.db');
    expect(done.keptAs).toBe(`${path}.damaged-20260112-120000000`);
    expect(readFileSync(done.keptAs!).equals(before)).toBe(true);
    expect(readFileSync(`${done.keptAs}-wal`, 'utf8')).toBe('a stale wal');
    expect(existsSync(`${path}-wal`)).toBe(false);
    const store = Store.open(path);
    expect(store.sessions.list().map((s) => s.id)).toEqual(['a']);
    store.close();
  });

  it('says so when there is no backup', () => {
    const path = join(tempDir(), 'tea.db');
    withSession(path, 'a');
    expect(() => restoreBackup(path)).toThrow(/there is no backup of/);
  });
});
