import type Database from 'better-sqlite3';
import type { Part, Role } from '../llm/types.js';
import type { Clock } from './clock.js';
import { StoreError, sqliteCode } from './errors.js';
import { hasLongText, TextPieces } from './text-pieces.js';
import { decodeParts, encodeParts, optionalIndex, requireRole, requireText } from './validate.js';

/** `partial` marks a streaming assistant draft that has not finished (yet, or ever if the process died). */
export type MessageStatus = 'complete' | 'partial';

export interface StoredMessage {
  id: number;
  sessionId: string;
  /** 1, 2, 3, … within the session, in the order messages were appended. */
  seq: number;
  turnId: string;
  role: Role;
  parts: Part[];
  status: MessageStatus;
  createdAt: number;
}

export interface NewMessage {
  turnId: string;
  role: Role;
  parts: Part[];
  status?: MessageStatus;
}

export interface MessagePatch {
  parts?: Part[];
  status?: MessageStatus;
}

interface MessageRecord {
  id: number;
  session_id: string;
  seq: number;
  turn_id: string;
  role: Role;
  parts: string;
  status: MessageStatus;
  created_at: number;
}

interface AppendInput {
  sessionId: string;
  turnId: string;
  role: Role;
  parts: string;
  status: MessageStatus;
  now: number;
}

const COLUMNS = 'id, session_id, seq, turn_id, role, parts, status, created_at';

export class MessageRepo {
  private readonly insertStmt;
  private readonly seqStmt;
  private readonly touchStmt;
  private readonly updateStmt;
  private readonly getStmt;
  private readonly listStmt;
  private readonly countStmt;
  private readonly lastTurnStmt;
  private readonly appendTx;
  /** The same writes, in the caller's transaction (no savepoint). */
  private readonly appendIn;
  private readonly db: Database.Database;
  private readonly searchStmt;
  private readonly pieces: TextPieces;

  constructor(
    db: Database.Database,
    private readonly now: Clock,
  ) {
    // One statement picks the next seq and inserts, so seq stays gap-free and unique (a
    // write from its first step: the lock is taken before MAX(seq) is read). A subquery
    // in VALUES, not INSERT … SELECT FROM messages nor RETURNING: each of those copies
    // the row through a temporary table, which costs more than reading the seq back.
    this.insertStmt = db.prepare<AppendInput, void>(
      `INSERT INTO messages (session_id, seq, turn_id, role, parts, status, created_at)
       VALUES (@sessionId, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = @sessionId),
               @turnId, @role, @parts, @status, @now)`,
    );
    this.seqStmt = db.prepare<[number | bigint], number>('SELECT seq FROM messages WHERE id = ?').pluck();
    this.touchStmt = db.prepare<[number, string], void>('UPDATE sessions SET updated_at = ? WHERE id = ?');
    this.updateStmt = db.prepare<{ id: number; parts: string | null; status: MessageStatus | null }, void>(
      `UPDATE messages SET parts = COALESCE(@parts, parts), status = COALESCE(@status, status)
       WHERE id = @id`,
    );
    this.getStmt = db.prepare<[number], MessageRecord>(`SELECT ${COLUMNS} FROM messages WHERE id = ?`);
    this.listStmt = db.prepare<[string, number, number], MessageRecord>(
      `SELECT ${COLUMNS} FROM messages WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
    );
    this.countStmt = db
      .prepare<[string], number>('SELECT COUNT(*) FROM messages WHERE session_id = ?')
      .pluck();
    this.lastTurnStmt = db.prepare<[string], MessageRecord>(
      `SELECT ${COLUMNS} FROM messages WHERE session_id = ? AND role != 'tool' ORDER BY seq DESC LIMIT 1`,
    );
    this.searchStmt = db.prepare<{ pattern: string; limit: number }, MessageRecord>(
      `SELECT ${COLUMNS} FROM messages WHERE id IN (
         SELECT id FROM messages WHERE parts LIKE @pattern ESCAPE '\\'
         UNION
         SELECT o.message_id FROM message_text_pieces p JOIN message_text_owners o ON o.spill_id = p.spill_id
         WHERE p.text LIKE @pattern ESCAPE '\\'
       ) ORDER BY id DESC LIMIT @limit`,
    );
    this.pieces = new TextPieces(db, now);
    this.db = db;
    this.appendIn = (input: AppendInput, pieces: readonly string[]) => {
      const rowid = this.insertStmt.run(input).lastInsertRowid;
      const seq = this.seqStmt.get(rowid);
      if (seq === undefined) return undefined;
      const id = Number(rowid);
      this.pieces.link(id, pieces);
      this.touchStmt.run(input.now, input.sessionId);
      return { id, seq };
    };
    const tx = db.transaction(this.appendIn);
    // IMMEDIATE takes the write lock up front, so another process cannot slip in between
    // reading MAX(seq) and inserting.
    this.appendTx = tx.immediate;
  }

  /**
   * `append` for messages that may hold a pasted megabyte: a text over
   * PIECES_ABOVE_CHARS is written a piece at a time with the event loop free in
   * between (see text-pieces.ts), then the message is stored whole in one transaction.
   */
  async appendYielding(sessionId: string, msg: NewMessage): Promise<StoredMessage> {
    if (!hasLongText(msg.parts)) return this.append(sessionId, msg);
    const { stored, ids } = await this.pieces.write(msg.parts);
    try {
      return this.insert(sessionId, { ...msg, parts: stored as Part[] }, ids, msg.parts);
    } catch (err) {
      this.pieces.discard(ids);
      throw err;
    }
  }

  /**
   * Messages whose text holds `likePattern` (SQL LIKE, `\\` escapes), newest first. In a
   * text stored in pieces, a match across two pieces (every 128k characters) is missed.
   */
  findText(likePattern: string, limit: number): StoredMessage[] {
    return this.searchStmt.all({ pattern: likePattern, limit }).map((r) => this.toMessage(r));
  }

  /** Appends at the next seq and bumps the session's `updatedAt`; durable once it returns. */
  append(sessionId: string, msg: NewMessage): StoredMessage {
    return this.insert(sessionId, msg, [], msg.parts);
  }

  /**
   * `append` as one part of the caller's transaction, which must roll back whole when
   * this throws (as a `db.transaction` function does): no savepoint of its own, which
   * would copy every page the insert changes. Outside a transaction it is `append`.
   */
  appendInTransaction(sessionId: string, msg: NewMessage): StoredMessage {
    return this.insert(sessionId, msg, [], msg.parts, this.db.inTransaction);
  }

  /** Stores `msg` (whose long texts may already be in `pieces`); `whole` are its parts as given. */
  private insert(
    sessionId: string,
    msg: NewMessage,
    pieces: readonly string[],
    whole: readonly Part[],
    inCallersTransaction = false,
  ): StoredMessage {
    const input: AppendInput = {
      sessionId: requireText(sessionId, 'session id'),
      turnId: requireText(msg.turnId, 'message turnId'),
      role: requireRole(msg.role),
      parts: encodeParts(msg.parts),
      status: checkStatus(msg.status ?? 'complete'),
      now: this.now(),
    };
    let inserted: { id: number; seq: number } | undefined;
    try {
      inserted = inCallersTransaction ? this.appendIn(input, pieces) : this.appendTx(input, pieces);
    } catch (err) {
      if (sqliteCode(err) === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        throw new StoreError(`cannot append message: session not found: '${sessionId}'`, 'not-found', {
          cause: err,
        });
      }
      throw err;
    }
    if (inserted === undefined) throw new StoreError(`append to session '${sessionId}' returned no row`);
    const id = inserted.id;
    let parts: StoredMessage['parts'] | undefined;
    return {
      id,
      sessionId: input.sessionId,
      seq: inserted.seq,
      turnId: input.turnId,
      role: input.role,
      // A copy of what was stored, decoded only when read: most callers want the id,
      // and decoding a pasted megabyte again blocks the event loop for nothing.
      get parts() {
        parts ??= pieces.length > 0 ? [...whole] : decodeParts(input.parts, id);
        return parts;
      },
      status: input.status,
      createdAt: input.now,
    };
  }

  /** Replaces the parts and/or status of a message, e.g. to checkpoint and then complete a draft. */
  update(id: number, patch: MessagePatch): void {
    const result = this.updateStmt.run({
      id,
      parts: patch.parts === undefined ? null : encodeParts(patch.parts),
      status: patch.status === undefined ? null : checkStatus(patch.status),
    });
    if (result.changes === 0) throw new StoreError(`message not found: ${id}`, 'not-found');
  }

  get(id: number): StoredMessage | undefined {
    const record = this.getStmt.get(id);
    return record === undefined ? undefined : this.toMessage(record);
  }

  /** Messages in seq order, optionally only those after `afterSeq`, at most `limit`. */
  list(sessionId: string, opts: { afterSeq?: number; limit?: number } = {}): StoredMessage[] {
    const afterSeq = optionalIndex(opts.afterSeq, 'afterSeq') ?? 0;
    const limit = optionalIndex(opts.limit, 'list limit') ?? -1;
    return this.listStmt.all(sessionId, afterSeq, limit).map((r) => this.toMessage(r));
  }

  /** The last message that is not a tool result, and the tool results stored after it. */
  tail(sessionId: string): { last: StoredMessage | undefined; results: StoredMessage[] } {
    const record = this.lastTurnStmt.get(sessionId);
    if (record === undefined) return { last: undefined, results: this.list(sessionId) };
    return { last: this.toMessage(record), results: this.list(sessionId, { afterSeq: record.seq }) };
  }

  count(sessionId: string): number {
    return this.countStmt.get(sessionId) ?? 0;
  }

  private toMessage(record: MessageRecord): StoredMessage {
    return {
      id: record.id,
      sessionId: record.session_id,
      seq: record.seq,
      turnId: record.turn_id,
      role: record.role,
      parts: this.pieces.restore(decodeParts(record.parts, record.id), record.id),
      status: record.status,
      createdAt: record.created_at,
    };
  }
}

function checkStatus(status: unknown): MessageStatus {
  if (status !== 'complete' && status !== 'partial') {
    throw new StoreError(`message status must be 'complete' or 'partial', got ${JSON.stringify(status)}`);
  }
  return status;
}
