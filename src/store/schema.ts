/**
 * What the b-trees of a database file are for, read from its `sqlite_schema`: the
 * tables that hold the data, the indexes built from them, and the trees a virtual
 * table keeps for itself (the full-text and vector indexes of memory), which are
 * rebuilt from the data too. `tea db check` and `tea db repair` tell damage that
 * loses nothing (an index) from damage that does (a table) this way.
 */
import type Database from 'better-sqlite3';

export interface SchemaEntry {
  type: 'table' | 'index' | 'view' | 'trigger';
  name: string;
  tbl_name: string;
  rootpage: number;
  sql: string | null;
}

/**
 * `data`: a table whose rows are the user's (sessions, messages, memories…);
 * `index`: an index of such a table (rebuilt from it);
 * `derived`: a virtual table's own b-tree (its index, rebuilt from the data), or
 * SQLite's statistics; `internal`: `sqlite_sequence`.
 */
export type TreeRole = 'data' | 'index' | 'derived' | 'internal';

/** Every entry of the schema, in the order it was created. Throws when the schema cannot be read. */
export function readSchema(db: Database.Database): SchemaEntry[] {
  return db
    .prepare<[], SchemaEntry>('SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema ORDER BY rowid')
    .all();
}

export function isVirtualTable(entry: SchemaEntry): boolean {
  return entry.type === 'table' && /^\s*CREATE\s+VIRTUAL\s+TABLE/i.test(entry.sql ?? '');
}

/** Names of the virtual tables in `schema`. */
function virtualNames(schema: readonly SchemaEntry[]): string[] {
  return schema.filter(isVirtualTable).map((e) => e.name);
}

/** A table a virtual table keeps for itself: named after it (`memories_fts_words_data`). */
export function isShadowTable(name: string, virtuals: readonly string[]): boolean {
  return virtuals.some((v) => name.startsWith(`${v}_`));
}

/** What the b-tree of `entry` is for. */
export function roleOf(entry: SchemaEntry, virtuals: readonly string[] = []): TreeRole {
  if (entry.name === 'sqlite_sequence') return 'internal';
  if (entry.name.startsWith('sqlite_stat')) return 'derived';
  if (entry.type === 'index') {
    // The index of a shadow table (e.g. `sqlite_autoindex_memory_knn_192_info_1`) goes with it.
    return isShadowTable(entry.tbl_name, virtuals) ? 'derived' : 'index';
  }
  if (isVirtualTable(entry) || isShadowTable(entry.name, virtuals)) return 'derived';
  return 'data';
}

export interface Tree {
  name: string;
  type: 'table' | 'index';
  role: TreeRole;
}

/** Root page → the b-tree there, for every table and index that has one. */
export function treesByRoot(schema: readonly SchemaEntry[]): Map<number, Tree> {
  const virtuals = virtualNames(schema);
  const out = new Map<number, Tree>();
  for (const e of schema) {
    if ((e.type === 'table' || e.type === 'index') && e.rootpage > 0) {
      out.set(e.rootpage, { name: e.name, type: e.type, role: roleOf(e, virtuals) });
    }
  }
  return out;
}

/** The tables whose rows a repair copies: not SQLite's own, not a virtual table or its shadows. */
export function dataTables(schema: readonly SchemaEntry[]): SchemaEntry[] {
  const virtuals = virtualNames(schema);
  return schema.filter((e) => e.type === 'table' && e.rootpage > 0 && roleOf(e, virtuals) === 'data');
}

/** The virtual tables (created empty by a repair, then filled from the data). */
export function virtualTables(schema: readonly SchemaEntry[]): SchemaEntry[] {
  return schema.filter(isVirtualTable);
}

export const quoteName = (name: string): string => `"${name.replaceAll('"', '""')}"`;
