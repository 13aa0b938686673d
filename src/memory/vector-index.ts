/**
 * The KNN index over memory vectors: one sqlite-vec `vec0` table per dimension
 * holding unit-length copies of the vectors under L2 distance (the same order as
 * cosine, and sqlite-vec's fastest path; its int8 and bit tables measured slower
 * here). The vector as the embedder made it stays in `memories.embedding`. Only
 * active memories are indexed. A database from before this index (cosine `vec0`
 * tables) is converted on first use.
 */
import type Database from 'better-sqlite3';
import { markIndexWrite } from './knn-mirror.js';
import { ensureVectorSupport } from './repo-rows.js';
import { cached } from './statements.js';

/** The vec0 table holding unit vectors of `dims` dimensions. */
export function vectorTable(dims: number): string {
  return `memory_knn_${dims}`;
}

/** The cosine vec0 table of earlier versions (dropped when converted). */
function legacyTable(dims: number): string {
  return `memory_vec_${dims}`;
}

export function vectorBytes(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

/** The vector scaled to unit length (a zero vector stays zero), as bytes for vec0. */
export function unitBytes(vector: Float32Array): Buffer {
  let norm = 0;
  for (const x of vector) norm += x * x;
  const scale = norm === 0 ? 0 : 1 / Math.sqrt(norm);
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = (vector[i] ?? 0) * scale;
  return Buffer.from(out.buffer);
}

const ready = new WeakMap<Database.Database, Set<number>>();

function tableExists(db: Database.Database, name: string): boolean {
  return (
    cached(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", { pluck: true }).get(name) !==
    undefined
  );
}

/** Is there an index for `dims`-dimensional vectors (without creating one)? */
export function hasVectorIndex(db: Database.Database, dims: number): boolean {
  if (ready.get(db)?.has(dims)) return true;
  return tableExists(db, vectorTable(dims)) || tableExists(db, legacyTable(dims));
}

/**
 * Makes sure the int8 table for `dims` exists, filling it from the stored float
 * vectors of active memories when it is new (and dropping a legacy float table).
 */
export function ensureVectorIndex(db: Database.Database, dims: number): string {
  const table = vectorTable(dims);
  let known = ready.get(db);
  if (known?.has(dims)) return table;
  ensureVectorSupport(db);
  if (!tableExists(db, table)) {
    db.transaction(() => {
      db.exec(`CREATE VIRTUAL TABLE ${table} USING vec0 (embedding float[${dims}])`);
      const page = db.prepare<[number, number], { id: number; embedding: Buffer }>(
        `SELECT id, embedding FROM memories
           WHERE id > ? AND embedding IS NOT NULL AND length(embedding) = ? * 4
             AND deleted_at IS NULL AND valid_to IS NULL
           ORDER BY id LIMIT 1000`,
      );
      const insert = db.prepare(`INSERT INTO ${table} (rowid, embedding) VALUES (?, ?)`);
      for (let rows = page.all(0, dims); rows.length > 0; rows = page.all(rows.at(-1)?.id ?? 0, dims)) {
        for (const row of rows) {
          const floats = new Float32Array(new Uint8Array(row.embedding).buffer);
          insert.run(BigInt(row.id), unitBytes(floats));
        }
      }
      if (tableExists(db, legacyTable(dims))) db.exec(`DROP TABLE ${legacyTable(dims)}`);
    }).immediate();
  }
  if (!known) {
    known = new Set();
    ready.set(db, known);
  }
  known.add(dims);
  return table;
}

/** Adds or replaces one memory's vector in the index. */
export function indexVector(db: Database.Database, id: number, vector: Float32Array): void {
  const table = ensureVectorIndex(db, vector.length);
  cached(db, `DELETE FROM ${table} WHERE rowid = ?`).run(BigInt(id));
  cached(db, `INSERT INTO ${table} (rowid, embedding) VALUES (?, ?)`).run(BigInt(id), unitBytes(vector));
  markIndexWrite(db, table, id);
}

/** Removes a memory from the index of its dimension (no-op when there is none). */
export function unindexVector(db: Database.Database, id: number, dims: number): void {
  if (!hasVectorIndex(db, dims)) return;
  const table = ensureVectorIndex(db, dims);
  cached(db, `DELETE FROM ${table} WHERE rowid = ?`).run(BigInt(id));
  markIndexWrite(db, table, id);
}
