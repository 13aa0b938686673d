/**
 * An in-memory copy of a connection's vector index, so a process that searches
 * memory again and again (an agent session, `tea serve`) compares vectors with
 * the SIMD kernel instead of scanning the `vec0` table each time.
 *
 * The copy never answers from stale data:
 * - writes by this connection go through indexVector/unindexVector, which mark
 *   the rows; marked rows are re-read from the table before the next search
 *   (re-read, not replayed, so a rolled-back write leaves nothing behind);
 * - a commit by any other connection or process changes `PRAGMA data_version`,
 *   and the copy is rebuilt;
 * - inside a transaction the table itself is searched (it sees uncommitted rows).
 * A one-shot command searches once and never builds the copy.
 */
import type Database from 'better-sqlite3';
import { type Neighbour, VectorMatrix } from './knn-matrix.js';
import { cached } from './statements.js';

/**
 * Table searches before a connection builds its copy: a one-shot command (one to
 * three searches) never pays the ~30 ms a copy of 10k vectors takes to build.
 */
export const SEARCHES_BEFORE_COPY = 3;
/** A copy that served fewer searches than this before another process's commit dropped it did not pay off. */
const PAID_OFF = 10;
/** The most table searches between rebuilds while other processes keep writing. */
const MAX_WAIT = 64;
/** Larger indexes stay in SQLite only (10k vectors of 192 dimensions take 7.7 MB; 100k, 77 MB). */
export const MAX_COPY_BYTES = 128 * 1024 * 1024;

interface Mirror {
  matrix?: VectorMatrix;
  /** `PRAGMA data_version` when the copy was last brought up to date. */
  version: number;
  /** Rows this connection wrote since then. */
  marked: Set<number>;
  /** Searches since the copy was built, or (without a copy) since it was dropped. */
  searches: number;
  /** Table searches to run before the next build (doubles while copies do not pay off). */
  wait: number;
  /** The index outgrew MAX_COPY_BYTES: search the table. */
  tooLarge: boolean;
}

const mirrors = new WeakMap<Database.Database, Map<string, Mirror>>();

function mirrorOf(db: Database.Database, table: string): Mirror {
  let byTable = mirrors.get(db);
  if (!byTable) {
    byTable = new Map();
    mirrors.set(db, byTable);
  }
  let mirror = byTable.get(table);
  if (!mirror) {
    mirror = { version: -1, marked: new Set(), searches: 0, wait: SEARCHES_BEFORE_COPY, tooLarge: false };
    byTable.set(table, mirror);
  }
  return mirror;
}

/** Records that this connection wrote (or deleted) `rowid` in `table`. */
export function markIndexWrite(db: Database.Database, table: string, rowid: number): void {
  mirrors.get(db)?.get(table)?.marked.add(rowid);
}

function floatsOf(bytes: Buffer): Float32Array {
  return new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
}

/**
 * Fills `matrix` straight from the `vec0` table's chunk storage (sqlite-vec
 * 0.1.x: `<table>_chunks` holds each chunk's validity bitmap and rowids,
 * `<table>_vector_chunks00` its vectors): ~20 blobs instead of 10k row reads.
 * False when the storage is not laid out as expected.
 */
function readChunks(db: Database.Database, table: string, dims: number, matrix: VectorMatrix): boolean {
  let chunks: Array<{ size: number; validity: Buffer; rowids: Buffer; vectors: Buffer }>;
  try {
    chunks = cached(
      db,
      `SELECT c.size, c.validity, c.rowids, v.vectors FROM ${table}_chunks c
         JOIN ${table}_vector_chunks00 v ON v.rowid = c.chunk_id ORDER BY c.chunk_id`,
    ).all() as typeof chunks;
  } catch {
    return false;
  }
  matrix.reserve(chunks.reduce((sum, chunk) => sum + chunk.size, 0));
  for (const { size, validity, rowids, vectors } of chunks) {
    const fits =
      validity.length * 8 >= size && rowids.length === size * 8 && vectors.length === size * dims * 4;
    if (!fits) return false;
    const floats = new Float32Array(new Uint8Array(vectors).buffer);
    for (let slot = 0; slot < size; slot++) {
      if ((((validity[slot >> 3] as number) >> (slot & 7)) & 1) === 0) continue;
      // Rowids are 64-bit; memory ids fit in 53 bits.
      const rowid = rowids.readInt32LE(slot * 8 + 4) * 2 ** 32 + rowids.readUInt32LE(slot * 8);
      matrix.upsert(rowid, floats.subarray(slot * dims, (slot + 1) * dims));
    }
  }
  return true;
}

/** Rows in the index, from its rowid storage; undefined when that is not where sqlite-vec keeps them. */
function storedCount(db: Database.Database, table: string): number | undefined {
  try {
    return cached(db, `SELECT count(*) FROM ${table}_rowids`, { pluck: true }).get() as number;
  } catch {
    return undefined;
  }
}

/**
 * A copy of the index: read from its chunk storage when that is laid out as
 * expected (unless `viaRows`), else row by row. Undefined when it would exceed
 * `maxBytes` (MAX_COPY_BYTES).
 */
export function copyIndex(
  db: Database.Database,
  table: string,
  dims: number,
  opts: { viaRows?: boolean; maxBytes?: number } = {},
): { matrix: VectorMatrix; source: 'chunks' | 'rows' } | undefined {
  const maxBytes = opts.maxBytes ?? MAX_COPY_BYTES;
  const count = opts.viaRows ? undefined : storedCount(db, table);
  if (count !== undefined) {
    if (VectorMatrix.bytesFor(dims, count) > maxBytes) return undefined;
    const matrix = new VectorMatrix(dims);
    if (readChunks(db, table, dims, matrix) && matrix.size === count) return { matrix, source: 'chunks' };
  }
  // Another layout: read the rows through the virtual table (slower, always right).
  const matrix = new VectorMatrix(dims);
  const rows = cached(db, `SELECT rowid, embedding FROM ${table}`).iterate() as IterableIterator<{
    rowid: number | bigint;
    embedding: Buffer;
  }>;
  for (const row of rows) {
    matrix.upsert(Number(row.rowid), floatsOf(row.embedding));
    if (VectorMatrix.bytesFor(dims, matrix.size) > maxBytes) {
      rows.return?.();
      return undefined;
    }
  }
  return { matrix, source: 'rows' };
}

function refresh(db: Database.Database, table: string, mirror: Mirror, matrix: VectorMatrix): void {
  const read = cached(db, `SELECT embedding FROM ${table} WHERE rowid = ?`, { pluck: true });
  for (const rowid of mirror.marked) {
    const bytes = read.get(BigInt(rowid)) as Buffer | undefined;
    if (bytes === undefined) matrix.remove(rowid);
    else matrix.upsert(rowid, floatsOf(bytes));
  }
}

/**
 * The `k` nearest rows of `table` to `query` (unit vectors of `dims`), from the
 * in-memory copy; undefined when the table itself should be searched (first
 * search, inside a transaction, an index too large to copy).
 */
export function nearestFromCopy(
  db: Database.Database,
  table: string,
  dims: number,
  query: Float32Array,
  k: number,
): Neighbour[] | undefined {
  const mirror = mirrorOf(db, table);
  mirror.searches++;
  if (db.inTransaction || mirror.tooLarge) return undefined;
  // Read the version before the rows: a commit landing in between is seen next time.
  const version = cached(db, 'PRAGMA data_version', { pluck: true }).get() as number;
  if (mirror.matrix !== undefined && version !== mirror.version) {
    // Another connection committed: drop the copy; while copies keep being dropped
    // soon after they are built, wait longer before the next one.
    mirror.wait = mirror.searches < PAID_OFF ? Math.min(MAX_WAIT, mirror.wait * 2) : SEARCHES_BEFORE_COPY;
    mirror.matrix = undefined;
    mirror.searches = 1;
  }
  if (mirror.matrix === undefined) {
    if (mirror.searches <= mirror.wait) return undefined;
    mirror.marked.clear();
    mirror.matrix = copyIndex(db, table, dims)?.matrix;
    mirror.searches = 1;
    if (mirror.matrix === undefined) {
      mirror.tooLarge = true;
      return undefined;
    }
  } else if (mirror.marked.size > 0) {
    refresh(db, table, mirror, mirror.matrix);
    mirror.marked.clear();
  }
  mirror.version = version;
  return mirror.matrix.nearest(query, k);
}
