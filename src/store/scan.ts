/**
 * Reads every row of a table that can still be read in a damaged database file.
 * A query stops at the first damaged page it meets; this goes on past it. Rows are
 * read in rowid order; when a read fails, the scan looks for the next rowid it can
 * reach (trying ever further ahead, then narrowing back down) and goes on from
 * there, noting which rowids could not be read. A row whose own content cannot be
 * read (a damaged overflow page) is skipped alone. A table without rowids is read
 * in key order from both ends, up to the damage.
 */
import type Database from 'better-sqlite3';
import { isCorruption } from './corrupt.js';
import { quoteName } from './schema.js';

const MIN_ROWID = -(2n ** 63n);
const MAX_ROWID = 2n ** 63n - 1n;

/** Rowids (inclusive) that could not be read; `null` is the table's start or end. */
export interface LostRange {
  from: bigint | null;
  to: bigint | null;
}

export interface ScanResult {
  /** Rows read and handed to `onRow`. */
  read: number;
  /** Rows known to be there whose content could not be read. */
  badRows: number;
  /** Stretches of rowids that could not be reached (how many rows they held is unknown). */
  lost: LostRange[];
  /** A table without rowids stopped at damage: some rows (how many is unknown) were not read. */
  lostUnknown: boolean;
}

/** A row as read: its column values (integers as BigInt, so they are copied exactly). */
export type Row = unknown[];

/** The columns a repair copies (not the generated or hidden ones), in table order. */
export function columnsOf(db: Database.Database, table: string): string[] {
  return db
    .prepare<[], { name: string }>(`PRAGMA table_info(${quoteName(table)})`)
    .all()
    .map((c) => c.name);
}

function keyColumnsOf(db: Database.Database, table: string): string[] {
  return db
    .prepare<[], { name: string; pk: number }>(`PRAGMA table_info(${quoteName(table)})`)
    .all()
    .filter((c) => c.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((c) => c.name);
}

type Probe = { row: bigint } | 'end' | 'bad';

/**
 * Reads the readable rows of `table` (its `columns`, in rowid order) into `onRow`.
 * Only damage stops a read; any other error is thrown.
 */
export function scanRowidTable(
  db: Database.Database,
  table: string,
  columns: readonly string[],
  onRow: (row: Row) => void,
): ScanResult {
  const t = quoteName(table);
  const probeStmt = db
    .prepare(`SELECT _rowid_ FROM ${t} NOT INDEXED WHERE _rowid_ >= ? ORDER BY _rowid_ LIMIT 1`)
    .pluck()
    .safeIntegers(true);
  const cols = columns.map(quoteName).join(', ');
  const readStmt = db
    .prepare(`SELECT _rowid_, ${cols} FROM ${t} NOT INDEXED WHERE _rowid_ >= ? ORDER BY _rowid_`)
    .raw(true)
    .safeIntegers(true);
  const probe = (at: bigint): Probe => {
    try {
      const found = probeStmt.get(at) as bigint | undefined;
      if (found === undefined) return 'end';
      // A damaged b-tree may hand back rows out of order: that is damage too.
      return found >= at ? { row: found } : 'bad';
    } catch (err) {
      if (isCorruption(err)) return 'bad';
      throw err;
    }
  };
  const result: ScanResult = { read: 0, badRows: 0, lost: [], lostUnknown: false };
  let pos = MIN_ROWID;
  /** The last rowid read (or skipped), to bound a lost stretch. */
  let last: bigint | null = null;
  for (;;) {
    const found = probe(pos);
    if (found === 'end') return result;
    if (found === 'bad') {
      const next = nextReachable(probe, pos);
      result.lost.push({ from: last === null ? null : last + 1n, to: next === undefined ? null : next - 1n });
      if (next === undefined) return result;
      pos = next;
      continue;
    }
    let readHere = 0;
    let broken = false;
    try {
      for (const raw of readStmt.iterate(found.row) as Iterable<unknown[]>) {
        const rowid = raw[0] as bigint;
        if (last !== null && rowid <= last) {
          broken = true; // out of order: damage; look again past `last`
          break;
        }
        last = rowid;
        readHere++;
        result.read++;
        onRow(raw.slice(1));
      }
      if (!broken) return result; // read to the end of the table
    } catch (err) {
      if (!isCorruption(err)) throw err;
    }
    if (readHere === 0) {
      // The row at `found` itself cannot be read (its overflow pages are damaged): skip it alone.
      result.badRows++;
      last = found.row;
    }
    if (last === null || last === MAX_ROWID) return result;
    pos = last + 1n;
  }
}

/**
 * The smallest position after `pos` from which a probe gets past the damage: tries
 * `pos + 1, + 2, + 4, …`, then narrows the last step down. Undefined when nothing
 * after `pos` can be reached.
 */
function nextReachable(probe: (at: bigint) => Probe, pos: bigint): bigint | undefined {
  let step = 1n;
  let bad = pos;
  let good = pos + step > MAX_ROWID ? MAX_ROWID : pos + step;
  while (probe(good) === 'bad') {
    if (good === MAX_ROWID) return undefined;
    bad = good;
    step *= 2n;
    good = pos + step > MAX_ROWID ? MAX_ROWID : pos + step;
  }
  // Invariant: probe(bad) is bad, probe(good) is not.
  while (good - bad > 1n) {
    const mid: bigint = bad + (good - bad) / 2n;
    if (probe(mid) === 'bad') bad = mid;
    else good = mid;
  }
  const landed = probe(good);
  return typeof landed === 'object' ? landed.row : landed === 'end' ? undefined : good;
}

/**
 * Reads the readable rows of a WITHOUT ROWID table: in key order from the start
 * until damage stops it, then from the end backwards until damage stops it again
 * or it meets a row already read.
 */
export function scanKeyedTable(
  db: Database.Database,
  table: string,
  columns: readonly string[],
  onRow: (row: Row) => void,
): ScanResult {
  const keys = keyColumnsOf(db, table);
  const keyIndex = keys.map((k) => columns.indexOf(k));
  const keyOf = (row: Row) => JSON.stringify(keyIndex.map((i) => String(row[i])));
  const order = (dir: 'ASC' | 'DESC') => keys.map((k) => `${quoteName(k)} ${dir}`).join(', ');
  const select = `SELECT ${columns.map(quoteName).join(', ')} FROM ${quoteName(table)}`;
  const seen = new Set<string>();
  const result: ScanResult = { read: 0, badRows: 0, lost: [], lostUnknown: false };
  const pass = (dir: 'ASC' | 'DESC'): boolean => {
    const stmt = db
      .prepare(`${select} ORDER BY ${order(dir)}`)
      .raw(true)
      .safeIntegers(true);
    try {
      for (const row of stmt.iterate() as Iterable<Row>) {
        const key = keyOf(row);
        if (seen.has(key)) return true;
        seen.add(key);
        result.read++;
        onRow(row);
      }
      return true;
    } catch (err) {
      if (!isCorruption(err)) throw err;
      return false;
    }
  };
  if (!pass('ASC')) {
    result.lostUnknown = true;
    pass('DESC');
  }
  return result;
}

export function isWithoutRowid(sql: string | null): boolean {
  return /\)\s*WITHOUT\s+ROWID\s*;?\s*$/i.test(sql ?? '');
}

/** Reads every readable row of `table` (created by `sql`) into `onRow`. */
export function scanTable(
  db: Database.Database,
  table: string,
  sql: string | null,
  columns: readonly string[],
  onRow: (row: Row) => void,
): ScanResult {
  return isWithoutRowid(sql)
    ? scanKeyedTable(db, table, columns, onRow)
    : scanRowidTable(db, table, columns, onRow);
}

/** Whether the scan read every row there was. */
export function complete(scan: ScanResult): boolean {
  return scan.badRows === 0 && scan.lost.length === 0 && !scan.lostUnknown;
}
