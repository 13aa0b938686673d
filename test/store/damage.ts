/** Damaging a real database file the way a disk or a stray `dd` does, page by page. */
import { closeSync, existsSync, openSync, statSync, writeSync } from 'node:fs';
import Database from 'better-sqlite3';
import { expect } from 'vitest';

/** Bytes that look like /dev/urandom but are the same on every run (xorshift32). */
export function noise(length: number, seed = 0x9e3779b9): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0;
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

function readOnly(path: string): Database.Database {
  return new Database(path, { readonly: true });
}

export function pageSize(path: string): number {
  const db = readOnly(path);
  try {
    return db.pragma('page_size', { simple: true }) as number;
  } finally {
    db.close();
  }
}

/** The pages of the b-tree `name` (from `dbstat`), by kind: its root, its leaves, its overflow pages. */
export function pagesOf(
  path: string,
  name: string,
): { root: number; leaves: number[]; overflow: number[]; all: number[] } {
  const db = readOnly(path);
  try {
    const root =
      name === 'sqlite_schema'
        ? 1
        : db.prepare<[string], number>('SELECT rootpage FROM sqlite_schema WHERE name = ?').pluck().get(name);
    if (root === undefined) throw new Error(`no b-tree ${name}`);
    const rows = db
      .prepare<[string], { pageno: number; pagetype: string }>(
        'SELECT pageno, pagetype FROM dbstat WHERE name = ? ORDER BY pageno',
      )
      .all(name);
    return {
      root,
      leaves: rows.filter((r) => r.pagetype === 'leaf').map((r) => r.pageno),
      overflow: rows.filter((r) => r.pagetype === 'overflow').map((r) => r.pageno),
      all: rows.map((r) => r.pageno),
    };
  } finally {
    db.close();
  }
}

/** Overwrites whole pages (1-based) with noise, as `dd if=/dev/urandom … seek=… conv=notrunc` would. */
export function overwritePages(path: string, pages: readonly number[], seed = 0x9e3779b9): void {
  // Every page is in the main file (the writer checkpointed the WAL when it closed).
  const wal = `${path}-wal`;
  expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
  const size = pageSize(path);
  const fd = openSync(path, 'r+');
  try {
    pages.forEach((p, i) => {
      writeSync(fd, noise(size, seed + i), 0, size, (p - 1) * size);
    });
  } finally {
    closeSync(fd);
  }
}

/** Every row of `table`, read straight from the table (no index), in rowid order. */
export function rowsOf(path: string, table: string): unknown[] {
  const db = readOnly(path);
  try {
    return db.prepare(`SELECT * FROM "${table}" NOT INDEXED ORDER BY _rowid_`).all();
  } finally {
    db.close();
  }
}
