/**
 * Long message texts, stored in pieces. Writing a pasted 5 MB prompt as one row
 * means one `JSON.stringify` and one insert of it, tens of milliseconds during which
 * a server answers nobody. A text over PIECES_ABOVE_CHARS is written instead a piece
 * at a time, each in its own short statement with the event loop free in between;
 * the message row then holds `{type: "text", text: "", pieces: <id>}`, and the
 * transaction that stores it records the message as the pieces' owner (pieces are
 * never rewritten), so a message is whole or absent. Pieces of a write that never
 * finished (the process died) have no owner and are cleared on a later long write.
 */
import type Database from 'better-sqlite3';
import type { Part } from '../llm/types.js';
import { randomUUID } from '../util/random-id.js';
import { textSlices } from '../util/slices.js';
import { yieldToEventLoop } from '../util/yield.js';
import type { Clock } from './clock.js';
import { StoreError } from './errors.js';

/** Text parts longer than this are stored in pieces. */
export const PIECES_ABOVE_CHARS = 256 * 1024;
/** Characters per piece (one short insert each). */
const PIECE_CHARS = 128 * 1024;
/** Unlinked pieces older than this are from a write that died. */
const ABANDONED_AFTER_MS = 60 * 60 * 1000;

/** How a text stored in pieces appears in the message row. */
export interface PiecesRef {
  type: 'text';
  text: '';
  pieces: string;
}

const isRef = (part: unknown): part is PiecesRef =>
  typeof part === 'object' && part !== null && typeof (part as { pieces?: unknown }).pieces === 'string';

export const hasLongText = (parts: readonly Part[]): boolean =>
  parts.some((p) => p.type === 'text' && p.text.length > PIECES_ABOVE_CHARS);

export class TextPieces {
  private readonly insertStmt;
  private readonly readStmt;
  private readonly linkStmt;
  private readonly dropStmt;
  private readonly abandonedStmt;

  constructor(
    db: Database.Database,
    private readonly now: Clock,
  ) {
    this.insertStmt = db.prepare<[string, number, string, number], void>(
      'INSERT INTO message_text_pieces (spill_id, idx, text, created_at) VALUES (?, ?, ?, ?)',
    );
    this.readStmt = db
      .prepare<[string], string>('SELECT text FROM message_text_pieces WHERE spill_id = ? ORDER BY idx')
      .pluck();
    this.linkStmt = db.prepare<[string, number], void>(
      'INSERT INTO message_text_owners (spill_id, message_id) VALUES (?, ?)',
    );
    this.dropStmt = db.prepare<[string], void>(
      `DELETE FROM message_text_pieces WHERE spill_id IN (SELECT value FROM json_each(?))
       AND spill_id NOT IN (SELECT spill_id FROM message_text_owners)`,
    );
    this.abandonedStmt = db.prepare<[number], void>(
      `DELETE FROM message_text_pieces WHERE created_at < ?
       AND spill_id NOT IN (SELECT spill_id FROM message_text_owners)`,
    );
  }

  /**
   * Writes the long text parts of `parts` in pieces, yielding between pieces; returns
   * the parts as the message row holds them and the ids to link once it is stored.
   */
  async write(parts: readonly Part[]): Promise<{ stored: Array<Part | PiecesRef>; ids: string[] }> {
    this.abandonedStmt.run(this.now() - ABANDONED_AFTER_MS);
    const stored: Array<Part | PiecesRef> = [];
    const ids: string[] = [];
    try {
      for (const part of parts) {
        if (part.type !== 'text' || part.text.length <= PIECES_ABOVE_CHARS) {
          stored.push(part);
          continue;
        }
        const id = randomUUID();
        ids.push(id);
        const at = this.now();
        let idx = 0;
        for (const piece of textSlices(part.text, PIECE_CHARS)) {
          await yieldToEventLoop();
          this.insertStmt.run(id, idx++, piece, at);
        }
        stored.push({ type: 'text', text: '', pieces: id });
      }
    } catch (err) {
      this.discard(ids);
      throw err;
    }
    return { stored, ids };
  }

  /** Links the pieces `ids` to the message `messageId` (inside the transaction that stores it). */
  link(messageId: number, ids: readonly string[]): void {
    for (const id of ids) this.linkStmt.run(id, messageId);
  }

  /** Removes pieces of a write that failed. */
  discard(ids: readonly string[]): void {
    if (ids.length === 0) return;
    try {
      this.dropStmt.run(JSON.stringify(ids));
    } catch {
      // left for the clean-up of abandoned pieces
    }
  }

  /** `parts` with every text stored in pieces read back whole. */
  restore(parts: Part[], messageId: number): Part[] {
    if (!parts.some(isRef)) return parts;
    return parts.map((part) => {
      if (!isRef(part)) return part;
      const pieces = this.readStmt.all(part.pieces);
      if (pieces.length === 0) {
        throw new StoreError(`the text of message ${messageId} is missing from the database`, 'corrupt');
      }
      return { type: 'text', text: pieces.join('') };
    });
  }
}
