import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  closeDatabase,
  LEAVE_LOG_BYTES,
  listBackups,
  migrations,
  openDatabase,
  Store,
  StoreError,
} from '../../src/store/index.js';
import { overwritePages, pagesOf } from './damage.js';
import { useTempDirs } from './helpers.js';

const tempDir = useTempDirs();
const T0 = Date.UTC(2026, 0, 10, 12, 0, 0);
const DAY = 24 * 60 * 60 * 1000;

function withSessions(path: string, count: number, textChars = 20): void {
  const store = Store.open(path);
  for (let i = 0; i < count; i++) {
    const id = `s${i}`;
    store.sessions.create({ id, cwd: '/w' });
    store.messages.append(id, {
      turnId: 't',
      role: 'user',
      parts: [{ type: 'text', text: 'x'.repeat(textChars) }],
    });
  }
  store.close();
}

const walBytes = (path: string) => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);

describe('the daily backup waits for the close', () => {
  it('none is made at open (the first request does not wait for it); closing makes it', () => {
    const path = join(tempDir(), 'tea.db');
    withSessions(path, 1);
    const store = Store.open(path, { backup: { now: () => T0 } });
    expect(listBackups(path)).toEqual([]);
    store.sessions.create({ id: 'during', cwd: '/w' });
    store.close();
    expect(listBackups(path).map((b) => b.at)).toEqual([T0]);
    const copy = new Database(listBackups(path)[0]!.path, { readonly: true });
    expect(copy.prepare('SELECT id FROM sessions ORDER BY id').pluck().all()).toEqual(['during', 's0']);
    copy.close();
  });

  it('`backupIfDue` takes it earlier, once per open; the close then makes none', () => {
    const path = join(tempDir(), 'tea.db');
    withSessions(path, 1);
    let now = T0;
    const store = Store.open(path, { backup: { now: () => now } });
    expect(store.backupIfDue()?.at).toBe(T0);
    now += 2 * DAY;
    expect(store.backupIfDue()).toBeUndefined();
    store.close();
    expect(listBackups(path).map((b) => b.at)).toEqual([T0]);
  });

  it('is made at open, of the file as it was, before a migration runs', () => {
    const path = join(tempDir(), 'tea.db');
    const older = migrations.length - 1;
    const db = openDatabase(path, { migrations: migrations.slice(0, older) });
    db.prepare("INSERT INTO sessions (id, cwd, created_at, updated_at) VALUES ('old', '/w', 1, 1)").run();
    db.close();
    const opened = openDatabase(path, { backup: { now: () => T0 } });
    const [backup] = listBackups(path);
    expect(backup?.at).toBe(T0);
    const copy = new Database(backup!.path, { readonly: true });
    expect(copy.pragma('user_version', { simple: true })).toBe(older);
    expect(copy.prepare('SELECT id FROM sessions').pluck().all()).toEqual(['old']);
    copy.close();
    expect(opened.pragma('user_version', { simple: true })).toBe(migrations.length);
    closeDatabase(opened);
    expect(listBackups(path)).toHaveLength(1); // not a second one at the close
  });

  it('a page damaged deep in a table fails the backup at the close: the way back is said, the file is closed, older backups stay', () => {
    const path = join(tempDir(), 'tea.db');
    withSessions(path, 60, 3000);
    closeDatabase(openDatabase(path, { backup: { now: () => T0 } }));
    expect(listBackups(path)).toHaveLength(1);
    // A leaf in the middle: the probe at open (first pages only) does not reach it.
    const leaves = pagesOf(path, 'messages').leaves;
    expect(leaves.length).toBeGreaterThan(4);
    overwritePages(path, [leaves[Math.floor(leaves.length / 2)]!]);
    const db = openDatabase(path, { backup: { now: () => T0 + 2 * DAY } });
    let error: unknown;
    try {
      closeDatabase(db);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe('damaged');
    expect((error as StoreError).message).toMatch(/is damaged \(database disk image is malformed\)/);
    expect((error as StoreError).message).toContain('tea-20260110-120000000.db');
    expect(db.open).toBe(false);
    expect(listBackups(path).map((b) => b.at)).toEqual([T0]);
  });
});

describe('closing for exit', () => {
  it('leaves a small log and the connection open; what is in the log is read by the next connection', () => {
    const path = join(tempDir(), 'tea.db');
    const store = Store.open(path);
    store.sessions.create({ id: 'kept', cwd: '/w' });
    expect(store.close({ exiting: true })).toBe(true);
    expect(store.db.open).toBe(true);
    expect(walBytes(path)).toBeGreaterThan(0);
    const next = Store.open(path);
    expect(next.sessions.list().map((s) => s.id)).toEqual(['kept']);
    next.close();
    store.db.close(); // the test process goes on: close it as its exit would not
  });

  it('checkpoints a log over LEAVE_LOG_BYTES and closes as usual', () => {
    const path = join(tempDir(), 'tea.db');
    const store = Store.open(path);
    store.sessions.create({ id: 'big', cwd: '/w' });
    store.messages.append('big', {
      turnId: 't',
      role: 'user',
      parts: [{ type: 'text', text: 'y'.repeat(LEAVE_LOG_BYTES + 100_000) }],
    });
    expect(walBytes(path)).toBeGreaterThan(LEAVE_LOG_BYTES);
    expect(store.close({ exiting: true })).toBe(false);
    expect(store.db.open).toBe(false);
    expect(walBytes(path)).toBe(0);
  });

  it('an in-memory database is simply closed', () => {
    const store = Store.open(':memory:');
    expect(store.close({ exiting: true })).toBe(false);
    expect(store.db.open).toBe(false);
  });
});
