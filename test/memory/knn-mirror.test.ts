import type Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { prng as rng } from '../../bench/memory-corpus.js';
import { buildIngestCorpus } from '../../bench/memory-ingest-corpus.js';
import { VectorMatrix } from '../../src/memory/knn-matrix.js';
import { copyIndex, nearestFromCopy, SEARCHES_BEFORE_COPY } from '../../src/memory/knn-mirror.js';
import { MemoryService } from '../../src/memory/service.js';
import { ensureVectorIndex, indexVector, unindexVector, unitBytes } from '../../src/memory/vector-index.js';
import { Store } from '../../src/store/index.js';
import { useStore } from '../store/helpers.js';

const DIMS = 24;

function vector(next: () => number): Float32Array {
  const v = new Float32Array(DIMS);
  for (let i = 0; i < DIMS; i++) v[i] = next() * 2 - 1;
  return v;
}

function unit(v: Float32Array): Float32Array {
  const bytes = unitBytes(v);
  return new Float32Array(bytes.buffer, bytes.byteOffset, v.length);
}

/** What sqlite-vec itself answers. */
function fromTable(db: Database.Database, query: Float32Array, k: number): number[] {
  const table = ensureVectorIndex(db, DIMS);
  const rows = db
    .prepare(`SELECT rowid, distance FROM ${table} WHERE embedding MATCH ? AND k = ?`)
    .all(unitBytes(query), k) as Array<{ rowid: number }>;
  return rows.map((r) => Number(r.rowid));
}

/** What the copy answers (undefined: "search the table"). */
function fromCopy(db: Database.Database, query: Float32Array, k: number): number[] | undefined {
  const table = ensureVectorIndex(db, DIMS);
  return nearestFromCopy(db, table, DIMS, unit(query), k)?.map((n) => n.rowid);
}

/** Searches until the copy answers, as a long-running process would. */
function warm(db: Database.Database, query: Float32Array): number[] {
  for (let i = 0; i <= 100; i++) {
    const got = fromCopy(db, query, 10);
    if (got !== undefined) return got;
  }
  throw new Error('the copy was never built');
}

function filled(db: Database.Database, ids: number[], seed = 1): Map<number, Float32Array> {
  const next = rng(seed);
  const rows = new Map<number, Float32Array>();
  db.transaction(() => {
    for (const id of ids) {
      const v = vector(next);
      rows.set(id, v);
      indexVector(db, id, v);
    }
  })();
  return rows;
}

const ids = (n: number, from = 1) => Array.from({ length: n }, (_, i) => from + i);

describe('the in-memory copy of the vector index', () => {
  const open = useStore();

  it('answers exactly as sqlite-vec does, across chunks and after deletions', () => {
    const { store } = open();
    const db = store.db;
    filled(db, ids(2600)); // three vec0 chunks of 1024
    db.transaction(() => {
      for (let id = 5; id <= 2600; id += 7) unindexVector(db, id, DIMS);
    })();
    const next = rng(99);
    warm(db, vector(next));
    for (let q = 0; q < 8; q++) {
      const query = vector(next);
      expect(fromCopy(db, query, 40)).toEqual(fromTable(db, query, 40));
    }
  });

  it('is not built by a one-shot command (the first searches go to the table)', () => {
    const { store } = open();
    filled(store.db, ids(50));
    const query = vector(rng(3));
    for (let i = 0; i < SEARCHES_BEFORE_COPY; i++) expect(fromCopy(store.db, query, 5)).toBeUndefined();
    expect(fromCopy(store.db, query, 5)).toEqual(fromTable(store.db, query, 5));
  });

  // Ways the copy could answer from stale data, each checked against the table.
  const staleness: Array<[string, (db: Database.Database, other: () => Database.Database) => void]> = [
    ['a row this connection adds', (db) => indexVector(db, 5000, vector(rng(5)))],
    ['a row this connection removes', (db) => unindexVector(db, 7, DIMS)],
    ['a row this connection re-embeds', (db) => indexVector(db, 8, vector(rng(8)))],
    [
      'a write rolled back',
      (db) => {
        expect(() =>
          db.transaction(() => {
            indexVector(db, 6000, vector(rng(6)));
            unindexVector(db, 9, DIMS);
            throw new Error('abort');
          })(),
        ).toThrow('abort');
      },
    ],
    ['a row another connection adds', (_db, other) => indexVector(other(), 7000, vector(rng(7)))],
    ['a row another connection removes', (_db, other) => unindexVector(other(), 10, DIMS)],
    ['a row another connection re-embeds', (_db, other) => indexVector(other(), 11, vector(rng(11)))],
  ];

  for (const [what, change] of staleness) {
    it(`never answers from stale data: ${what}`, () => {
      const { store, path } = open();
      const db = store.db;
      filled(db, ids(300));
      const others: Store[] = [];
      const other = () => {
        const s = Store.open(path);
        others.push(s);
        return s.db;
      };
      warm(db, vector(rng(1)));
      change(db, other);
      for (const s of others) s.close();
      const next = rng(42);
      for (let q = 0; q < 6; q++) {
        const query = vector(next);
        const want = fromTable(db, query, 300);
        const got = warm(db, query);
        expect(got).toEqual(want.slice(0, 10));
      }
    });
  }

  it('searches the table inside a transaction, where uncommitted rows are visible', () => {
    const { store } = open();
    const db = store.db;
    filled(db, ids(100));
    const query = vector(rng(77));
    warm(db, query);
    db.transaction(() => {
      indexVector(db, 9000, query);
      expect(fromCopy(db, query, 1)).toBeUndefined();
      expect(fromTable(db, query, 1)).toEqual([9000]);
    })();
    expect(warm(db, query)[0]).toBe(9000);
  });

  it('waits longer between rebuilds while another process keeps writing', () => {
    const { store, path } = open();
    const db = store.db;
    filled(db, ids(100));
    const query = vector(rng(4));
    warm(db, query);
    const other = Store.open(path);
    try {
      // Another process commits before every other search: the copy is dropped each time.
      const waits: number[] = [];
      for (let round = 0; round < 6; round++) {
        indexVector(other.db, 10_000 + round, vector(rng(round)));
        let tableSearches = 0;
        while (fromCopy(db, query, 3) === undefined) tableSearches++;
        waits.push(tableSearches);
      }
      expect(waits[0]).toBeGreaterThanOrEqual(SEARCHES_BEFORE_COPY);
      for (let i = 1; i < waits.length; i++) expect(waits[i]).toBeGreaterThanOrEqual(waits[i - 1] ?? 0);
      expect(waits.at(-1)).toBeGreaterThan(waits[0] ?? 0);
      expect(fromCopy(db, query, 3)).toEqual(fromTable(db, query, 3));
    } finally {
      other.close();
    }
  });
});

describe('copying the index', () => {
  const open = useStore();

  it('reads sqlite-vec chunk storage, and row by row gives the same copy', () => {
    const { store } = open();
    const db = store.db;
    filled(db, ids(2100));
    db.transaction(() => {
      for (let id = 3; id <= 2100; id += 5) unindexVector(db, id, DIMS);
      for (let id = 4; id <= 2100; id += 50) indexVector(db, id, vector(rng(id)));
    })();
    const table = ensureVectorIndex(db, DIMS);
    const chunks = copyIndex(db, table, DIMS);
    const rows = copyIndex(db, table, DIMS, { viaRows: true });
    expect(chunks?.source).toBe('chunks');
    expect(rows?.source).toBe('rows');
    expect(chunks?.matrix.size).toBe(2100 - 420);
    expect(rows?.matrix.size).toBe(chunks?.matrix.size);
    const next = rng(5);
    for (let q = 0; q < 5; q++) {
      const query = unit(vector(next));
      const want = fromTable(db, query, 30);
      expect(chunks?.matrix.nearest(query, 30).map((n) => n.rowid)).toEqual(want);
      expect(rows?.matrix.nearest(query, 30).map((n) => n.rowid)).toEqual(want);
    }
  });
});

describe('an index too large to copy', () => {
  const open = useStore();

  it('is left in SQLite, whichever way it would be read', () => {
    const { store } = open();
    filled(store.db, ids(500));
    const table = ensureVectorIndex(store.db, DIMS);
    const bytes = VectorMatrix.bytesFor(DIMS, 500);
    expect(copyIndex(store.db, table, DIMS, { maxBytes: bytes - 1 })).toBeUndefined();
    expect(copyIndex(store.db, table, DIMS, { maxBytes: bytes - 1, viaRows: true })).toBeUndefined();
    expect(copyIndex(store.db, table, DIMS, { maxBytes: bytes })?.matrix.size).toBe(500);
  });
});

describe('memory search through the copy', () => {
  const open = useStore();

  it('ranks exactly as searching the table does', async () => {
    const { store, path } = open();
    const now = () => 1_750_000_000_000;
    const service = new MemoryService({ db: store.db, now });
    const corpus = buildIngestCorpus({ size: 600 });
    service.importAll(
      corpus.events.map((e) => ({ content: e.content, category: e.category, createdAt: e.at })),
    );
    const questions = corpus.questions.slice(0, 40).map((q) => q.text);
    for (const q of questions.slice(0, SEARCHES_BEFORE_COPY + 1)) await service.search(q);
    for (const q of questions) {
      // A fresh connection's first search goes to the table.
      const fresh = Store.open(path);
      try {
        const want = await new MemoryService({ db: fresh.db, now }).search(q);
        const got = await service.search(q);
        expect(got.map((h) => [h.memory.id, h.score])).toEqual(want.map((h) => [h.memory.id, h.score]));
      } finally {
        fresh.close();
      }
    }
    // The long-lived connection did answer from its copy.
    expect(nearestFromCopy(store.db, 'memory_knn_192', 192, new Float32Array(192), 1)).toHaveLength(1);
  });
});
