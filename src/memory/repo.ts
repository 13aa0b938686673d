import type Database from 'better-sqlite3';
import { StoreError } from '../store/errors.js';
import {
  ACTIVE_SQL,
  COLUMNS,
  checkVector,
  cleanTags,
  contentHash,
  ensureVectorSupport,
  type MemoryPatch,
  type MemoryRow,
  toMemory,
  validate,
} from './repo-rows.js';
import { cached } from './statements.js';
import { writeTextIndex } from './text-index.js';
import { CATEGORY_PRIORITY, type Category, type Memory, type NewMemory, type Priority } from './types.js';
import { indexVector, unindexVector, vectorBytes } from './vector-index.js';

export {
  ACTIVE_SQL,
  contentHash,
  ensureVectorSupport,
  type MemoryPatch,
} from './repo-rows.js';
export { vectorBytes, vectorTable } from './vector-index.js';

/**
 * A memory to add, optionally with its vector and the embedder that made it, and
 * `at`: when it was said (its creation and validity start; default now).
 */
export type AddMemoryInput = NewMemory & { embedding?: Float32Array; embedder?: string; at?: number };

export interface ListMemoriesOptions {
  /** Only these scopes (any of them); all scopes when omitted. */
  scope?: string[];
  /** Also superseded, deleted and expired memories. */
  includeInactive?: boolean;
  category?: Category;
  limit?: number;
  offset?: number;
}

/** A memory's stored vector. */
export interface StoredEmbedding {
  vector: Float32Array;
  embedder: string;
}

/**
 * The long-term memory table: rows, both full-text indexes and the per-dimension
 * sqlite-vec tables, always written together in one transaction.
 */
export class MemoryRepo {
  readonly db: Database.Database;
  readonly now: () => number;

  constructor(db: Database.Database, now: () => number = Date.now) {
    this.db = db;
    this.now = now;
  }

  add(input: AddMemoryInput): Memory {
    validate(input);
    if (input.embedding !== undefined) checkVector(input.embedding, input.embedder);
    const now = input.at ?? this.now();
    const tags = cleanTags(input.tags ?? []);
    const content = input.content.trim();
    const write = this.db.transaction((): number => {
      const info = cached(
        this.db,
        `INSERT INTO memories (content, priority, importance, category, tags, content_hash, expires_at,
             pinned, created_at, valid_from, subject, attribute, source_session_id, source_message_id, scope)
           VALUES (@content, @priority, @importance, @category, @tags, @hash, @expiresAt, @pinned, @now, @now,
             @subject, @attribute, @sourceSessionId, @sourceMessageId, @scope)`,
      ).run({
        content,
        priority: input.priority ?? CATEGORY_PRIORITY[input.category],
        importance: input.importance ?? 3,
        category: input.category,
        tags: JSON.stringify(tags),
        hash: contentHash(content),
        expiresAt: input.expiresAt ?? null,
        pinned: input.pinned === true ? 1 : 0,
        now,
        subject: input.subject ?? null,
        attribute: input.attribute ?? null,
        sourceSessionId: input.sourceSessionId ?? null,
        sourceMessageId: input.sourceMessageId ?? null,
        scope: input.scope ?? 'user',
      });
      const id = Number(info.lastInsertRowid);
      this.index(id, content, tags);
      if (input.embedding !== undefined && input.embedder !== undefined) {
        this.writeVector(id, input.embedding, input.embedder);
      }
      return id;
    });
    return this.mustGet(write.immediate());
  }

  get(id: number): Memory | undefined {
    const row = cached(this.db, `SELECT ${COLUMNS} FROM memories WHERE id = ?`).get(id) as
      | MemoryRow
      | undefined;
    return row === undefined ? undefined : toMemory(row);
  }

  /** Several memories by id, in the order given; unknown ids are skipped. */
  getMany(ids: readonly number[]): Memory[] {
    if (ids.length === 0) return [];
    const rows = cached(
      this.db,
      `SELECT ${COLUMNS} FROM memories WHERE id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(ids)) as MemoryRow[];
    const byId = new Map(rows.map((r) => [r.id, toMemory(r)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  /** The newest active memory with this content hash (optionally in one scope). */
  findByHash(hash: string, scope?: string): Memory | undefined {
    const row = this.db
      .prepare<{ hash: string; scope: string | null; now: number }, MemoryRow>(
        `SELECT ${COLUMNS} FROM memories m WHERE content_hash = @hash AND (@scope IS NULL OR scope = @scope)
           AND ${ACTIVE_SQL} ORDER BY id DESC LIMIT 1`,
      )
      .get({ hash, scope: scope ?? null, now: this.now() });
    return row === undefined ? undefined : toMemory(row);
  }

  update(id: number, patch: MemoryPatch): Memory {
    validate(patch);
    const current = this.mustGet(id);
    const content = patch.content?.trim() ?? current.content;
    const tags = patch.tags === undefined ? current.tags : cleanTags(patch.tags);
    const contentChanged = content !== current.content;
    this.db
      .transaction(() => {
        this.db
          .prepare(
            `UPDATE memories SET content = @content, content_hash = @hash, priority = @priority,
               importance = @importance, category = @category, tags = @tags, expires_at = @expiresAt,
               pinned = @pinned, subject = @subject, attribute = @attribute, scope = @scope WHERE id = @id`,
          )
          .run({
            id,
            content,
            hash: contentHash(content),
            priority: patch.priority ?? current.priority,
            importance: patch.importance ?? current.importance,
            category: patch.category ?? current.category,
            tags: JSON.stringify(tags),
            expiresAt: patch.expiresAt === undefined ? current.expiresAt : patch.expiresAt,
            pinned: (patch.pinned ?? current.pinned) ? 1 : 0,
            subject: patch.subject === undefined ? current.subject : patch.subject,
            attribute: patch.attribute === undefined ? current.attribute : patch.attribute,
            scope: patch.scope ?? current.scope,
          });
        if (contentChanged || patch.tags !== undefined) this.index(id, content, tags);
        if (contentChanged) this.clearVector(id);
      })
      .immediate();
    return this.mustGet(id);
  }

  /** Marks `oldId` as no longer true (valid_to = `at`, default now) and replaced by `newId`; kept for history. */
  supersede(oldId: number, newId: number, at: number = this.now()): Memory {
    if (oldId === newId) throw new StoreError(`memory ${oldId} cannot supersede itself`);
    const old = this.mustGet(oldId);
    this.mustGet(newId);
    if (old.validTo !== null) {
      throw new StoreError(
        `memory ${oldId} is already superseded (by ${String(old.supersededBy)})`,
        'conflict',
      );
    }
    this.db
      .transaction(() => {
        this.db
          .prepare('UPDATE memories SET valid_to = ?, superseded_by = ? WHERE id = ?')
          .run(at, newId, oldId);
        this.dropFromVectorTable(oldId);
      })
      .immediate();
    return this.mustGet(oldId);
  }

  /** Makes a superseded or deleted memory active again (its vector back in the index). */
  reactivate(id: number): Memory {
    const current = this.mustGet(id);
    if (current.deletedAt === null && current.validTo === null) return current;
    this.db
      .transaction(() => {
        this.db
          .prepare(
            'UPDATE memories SET valid_to = NULL, superseded_by = NULL, deleted_at = NULL WHERE id = ?',
          )
          .run(id);
        const stored = this.getEmbedding(id);
        if (stored !== undefined) indexVector(this.db, id, stored.vector);
      })
      .immediate();
    return this.mustGet(id);
  }

  softDelete(id: number): Memory {
    const current = this.mustGet(id);
    if (current.deletedAt !== null) return current;
    this.db
      .transaction(() => {
        this.db.prepare('UPDATE memories SET deleted_at = ? WHERE id = ?').run(this.now(), id);
        this.dropFromVectorTable(id);
      })
      .immediate();
    return this.mustGet(id);
  }

  /** Records that these memories were used: accessed_at = now, access_count + 1. */
  touch(ids: readonly number[]): void {
    if (ids.length === 0) return;
    const now = this.now();
    const stmt = cached(
      this.db,
      'UPDATE memories SET accessed_at = ?, access_count = access_count + 1 WHERE id = ?',
    );
    this.db.transaction(() => {
      for (const id of new Set(ids)) stmt.run(now, id);
    })();
  }

  /** Changes priority; `resetAge` restarts the age-decay clock (created_at = now). */
  setPriority(id: number, priority: Priority, options: { resetAge?: boolean } = {}): Memory {
    validate({ priority });
    this.mustGet(id);
    if (options.resetAge === true) {
      this.db
        .prepare('UPDATE memories SET priority = ?, created_at = ? WHERE id = ?')
        .run(priority, this.now(), id);
    } else {
      this.db.prepare('UPDATE memories SET priority = ? WHERE id = ?').run(priority, id);
    }
    return this.mustGet(id);
  }

  setPinned(id: number, pinned: boolean): Memory {
    this.mustGet(id);
    this.db.prepare('UPDATE memories SET pinned = ? WHERE id = ?').run(pinned ? 1 : 0, id);
    return this.mustGet(id);
  }

  /** Memories by priority (most critical first), then newest first. */
  list(options: ListMemoriesOptions = {}): Memory[] {
    const { where, params } = this.filter(options);
    const limit = options.limit ?? -1;
    const offset = options.offset ?? 0;
    const rows = this.db
      .prepare<Record<string, unknown>, MemoryRow>(
        `SELECT ${COLUMNS} FROM memories m WHERE ${where}
           ORDER BY priority ASC, created_at DESC, id DESC LIMIT @limit OFFSET @offset`,
      )
      .all({ ...params, limit, offset });
    return rows.map(toMemory);
  }

  private anyRow: Database.Statement<[], unknown> | undefined;

  /** Whether the table holds no memory at all, deleted or not (a new home). */
  isEmpty(): boolean {
    this.anyRow ??= this.db.prepare<[], unknown>('SELECT 1 FROM memories LIMIT 1');
    return this.anyRow.get() === undefined;
  }

  count(options: Omit<ListMemoriesOptions, 'limit' | 'offset'> = {}): number {
    const { where, params } = this.filter(options);
    return this.db
      .prepare<Record<string, unknown>, number>(`SELECT count(*) FROM memories m WHERE ${where}`)
      .pluck()
      .get(params) as number;
  }

  /** Stores a vector (replacing any earlier one) in the row and in the vec0 table for its dimension. */
  setEmbedding(id: number, vector: Float32Array, embedderId: string): void {
    checkVector(vector, embedderId);
    const current = this.mustGet(id);
    this.db
      .transaction(() => {
        this.writeVector(id, vector, embedderId);
        if (current.deletedAt !== null || current.validTo !== null) this.dropFromVectorTable(id);
      })
      .immediate();
  }

  getEmbedding(id: number): StoredEmbedding | undefined {
    const row = this.db
      .prepare<[number], { embedding: Buffer | null; embedder: string | null }>(
        'SELECT embedding, embedder FROM memories WHERE id = ?',
      )
      .get(id);
    if (row?.embedding == null || row.embedder === null) return undefined;
    const copy = new Uint8Array(row.embedding).buffer;
    return { vector: new Float32Array(copy), embedder: row.embedder };
  }

  /** Active memories with no vector from `embedderId` (missing, or made by another embedder), oldest first. */
  withoutEmbedding(embedderId: string, limit: number): Memory[] {
    const rows = this.db
      .prepare<{ embedder: string; limit: number; now: number }, MemoryRow>(
        `SELECT ${COLUMNS} FROM memories m WHERE ${ACTIVE_SQL}
           AND (m.embedding IS NULL OR m.embedder IS NOT @embedder) ORDER BY id ASC LIMIT @limit`,
      )
      .all({ embedder: embedderId, limit, now: this.now() });
    return rows.map(toMemory);
  }

  private filter(options: ListMemoriesOptions): { where: string; params: Record<string, unknown> } {
    const clauses: string[] = [];
    const params: Record<string, unknown> = {};
    if (options.includeInactive !== true) {
      clauses.push(ACTIVE_SQL);
      params.now = this.now();
    }
    if (options.scope !== undefined) {
      clauses.push(`m.scope IN (SELECT value FROM json_each(@scopes))`);
      params.scopes = JSON.stringify(options.scope);
    }
    if (options.category !== undefined) {
      clauses.push('m.category = @category');
      params.category = options.category;
    }
    return { where: clauses.length === 0 ? '1' : clauses.join(' AND '), params };
  }

  private mustGet(id: number): Memory {
    const memory = this.get(id);
    if (memory === undefined) throw new StoreError(`no memory with id ${id}`, 'not-found');
    return memory;
  }

  /** Rewrites both full-text rows for a memory. */
  private index(id: number, content: string, tags: readonly string[]): void {
    writeTextIndex(this.db, id, content, tags);
  }

  private writeVector(id: number, vector: Float32Array, embedder: string): void {
    ensureVectorSupport(this.db);
    this.clearVector(id);
    cached(this.db, 'UPDATE memories SET embedding = ?, embedder = ? WHERE id = ?').run(
      vectorBytes(vector),
      embedder,
      id,
    );
    indexVector(this.db, id, vector);
  }

  /** Forgets a memory's vector everywhere (its content changed). */
  private clearVector(id: number): void {
    this.dropFromVectorTable(id);
    cached(this.db, 'UPDATE memories SET embedding = NULL, embedder = NULL WHERE id = ?').run(id);
  }

  /** Removes the memory from the KNN table only; the BLOB stays for history. */
  private dropFromVectorTable(id: number): void {
    const bytes = cached(this.db, 'SELECT length(embedding) FROM memories WHERE id = ?', { pluck: true }).get(
      id,
    ) as number | null | undefined;
    if (bytes == null) return;
    unindexVector(this.db, id, bytes / 4);
  }
}
