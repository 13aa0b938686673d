import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  defaultDbPath,
  type Migration,
  migrate,
  migrations,
  openDatabase,
  Store,
  StoreError,
  schemaVersion,
} from '../../src/store/index.js';
import { useTempDirs } from './helpers.js';

const tempDir = useTempDirs();

function tableNames(db: Database.Database): string[] {
  return db
    .prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .pluck()
    .all();
}

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to throw');
}

describe('openDatabase', () => {
  it('creates parent directories, sets the pragmas and migrates an empty file', () => {
    const path = join(tempDir(), 'nested', 'deeper', 'tea.db');
    const db = openDatabase(path);
    try {
      expect(schemaVersion(db)).toBe(migrations.length);
      expect(tableNames(db)).toEqual(expect.arrayContaining(['sessions', 'messages', 'tool_calls', 'usage']));
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    } finally {
      db.close();
    }
  });

  it('reopens an existing database without re-running migrations and keeps the data', () => {
    const path = join(tempDir(), 'tea.db');
    const first = Store.open(path);
    first.sessions.create({ id: 'keep-me', cwd: '/w' });
    first.close();

    const db = openDatabase(path);
    try {
      expect(migrate(db)).toEqual({ from: migrations.length, to: migrations.length, applied: [] });
    } finally {
      db.close();
    }
    const again = Store.open(path);
    expect(again.sessions.get('keep-me')?.cwd).toBe('/w');
    again.close();
  });

  it('refuses a database newer than the code, clearly, and leaves it untouched', () => {
    const path = join(tempDir(), 'future.db');
    const raw = new Database(path);
    raw.exec('CREATE TABLE from_the_future (x INTEGER); INSERT INTO from_the_future VALUES (42)');
    raw.pragma('user_version = 99');
    raw.close();

    const err = catchError(() => Store.open(path));
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('schema-too-new');
    expect((err as StoreError).message).toMatch(
      new RegExp(`schema version 99, newer than .*supports \\(${migrations.length}\\)`),
    );
    expect((err as StoreError).message).toContain(path);

    const check = new Database(path, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(99);
    expect(check.prepare('SELECT x FROM from_the_future').pluck().get()).toBe(42);
    check.close();
  });

  it('reports a file that is not a database without overwriting it', () => {
    const path = join(tempDir(), 'notes.db');
    const text = 'these are my notes, not a database\n'.repeat(200);
    writeFileSync(path, text);
    const err = catchError(() => openDatabase(path));
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('damaged');
    expect((err as StoreError).message).toContain(path);
    expect((err as StoreError).message).toMatch(/is damaged \(file is not a database\)/);
    expect(readFileSync(path, 'utf8')).toBe(text);
  });

  it('reports a path whose parent cannot be created', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'a-file'), 'x');
    const err = catchError(() => openDatabase(join(dir, 'a-file', 'tea.db')));
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).message).toMatch(/cannot create the directory/);
  });

  it('opens an in-memory database', () => {
    const store = Store.open(':memory:');
    expect(schemaVersion(store.db)).toBe(migrations.length);
    expect(store.sessions.create({ cwd: '/m' }).cwd).toBe('/m');
    store.close();
    store.close(); // closing twice is harmless
    expect(store.db.open).toBe(false);
  });
});

describe('migrate', () => {
  const addNotes: Migration = {
    version: migrations.length + 1,
    name: 'notes',
    up: (db) => {
      db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
      db.prepare('INSERT INTO notes (body) VALUES (?)').run('seeded');
    },
  };

  it('applies only the appended migration to an existing database', () => {
    const path = join(tempDir(), 'tea.db');
    const store = Store.open(path);
    store.sessions.create({ id: 'old', cwd: '/w' });
    store.close();

    const db = openDatabase(path, { migrations: [...migrations, addNotes] });
    try {
      expect(schemaVersion(db)).toBe(migrations.length + 1);
      expect(db.prepare('SELECT body FROM notes').pluck().all()).toEqual(['seeded']);
      expect(db.prepare('SELECT id FROM sessions').pluck().all()).toEqual(['old']);
    } finally {
      db.close();
    }
  });

  it('rolls back a failing migration and keeps the previous version', () => {
    const path = join(tempDir(), 'tea.db');
    Store.open(path).close();
    const broken: Migration = {
      version: migrations.length + 1,
      name: 'half done',
      up: (db) => {
        db.exec('CREATE TABLE half (x INTEGER)');
        throw new Error('boom');
      },
    };
    const err = catchError(() => openDatabase(path, { migrations: [...migrations, broken] }));
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('migration-failed');
    expect((err as StoreError).message).toMatch(
      new RegExp(`migration ${migrations.length + 1} \\(half done\\) failed.*boom`),
    );

    const db = new Database(path, { readonly: true });
    expect(schemaVersion(db)).toBe(migrations.length);
    expect(tableNames(db)).not.toContain('half');
    db.close();
  });

  it('rejects a migration list with gaps', () => {
    const db = new Database(':memory:');
    const gap: Migration = { ...addNotes, version: migrations.length + 2 };
    expect(() => migrate(db, [...migrations, gap])).toThrow(
      new RegExp(
        `out of order: entry ${migrations.length} has version ${migrations.length + 2}, expected ${migrations.length + 1}`,
      ),
    );
    expect(schemaVersion(db)).toBe(0);
    db.close();
  });
});

describe('defaultDbPath', () => {
  it('puts tea.db in the data home', () => {
    expect(defaultDbPath('/home/me/.tea')).toBe('/home/me/.tea/tea.db');
  });
});

describe('migration 5', () => {
  it('adds summary-to-source links and retires the keyword summaries of earlier versions', () => {
    const path = join(tempDir(), 'tea.db');
    const v4 = openDatabase(path, { migrations: migrations.slice(0, 4) });
    const insert = v4.prepare(
      `INSERT INTO memories (content, priority, importance, category, tags, content_hash, created_at, valid_from)
       VALUES (?, ?, 3, 'fact', ?, 'h', 1, 1)`,
    );
    const fact = Number(insert.run('The user lives in Lyon', 2, '[]').lastInsertRowid);
    const legacy = Number(
      insert.run(
        'Summary of 2 recent facts (key topics: lyon, cat): The user lives in Lyon; The user has a cat',
        1,
        '["reflection","lyon"]',
      ).lastInsertRowid,
    );
    const tagged = Number(insert.run('Summary of my week: calm', 3, '["reflection"]').lastInsertRowid);
    insert.run('Summary of 2 recent facts (key topics: x): quoted by the user', 3, '["notes"]');
    v4.close();

    const store = Store.open(path);
    try {
      expect(schemaVersion(store.db)).toBe(migrations.length);
      const deleted = store.db
        .prepare<[], number>('SELECT id FROM memories WHERE deleted_at IS NOT NULL ORDER BY id')
        .pluck()
        .all();
      // Only the keyword summary: not a tagged note, nor the same words without the tag.
      expect(deleted).toEqual([legacy]);

      const link = store.db.prepare('INSERT INTO memory_sources (summary_id, source_id) VALUES (?, ?)');
      link.run(tagged, fact);
      expect(() => link.run(tagged, fact)).toThrow(/UNIQUE|PRIMARY KEY/);
      expect(() => link.run(tagged, 999)).toThrow(/FOREIGN KEY/);
      store.db.prepare('DELETE FROM memories WHERE id = ?').run(fact);
      expect(store.db.prepare('SELECT count(*) FROM memory_sources').pluck().get()).toBe(0);
    } finally {
      store.close();
    }
  });
});
