/**
 * The operation journal's rows (migration 14): rounds of a session and the files each
 * changed. Statements are prepared on first use: a run that journals nothing prepares none.
 */
import type Database from 'better-sqlite3';
import type { Clock } from './clock.js';

export type RoundState = 'applied' | 'undone' | 'dropped';

export interface JournalFileRow {
  path: string;
  beforeBlob: string | null;
  afterBlob: string | null;
  beforeMode: string | null;
  afterMode: string | null;
}

export interface JournalRoundRow {
  id: number;
  sessionId: string;
  turnId: string;
  workspace: string;
  beforeTree: string;
  afterTree: string;
  state: RoundState;
  createdAt: number;
  changedAt: number;
  files: JournalFileRow[];
}

export interface NewRound {
  sessionId: string;
  turnId: string;
  workspace: string;
  beforeTree: string;
  afterTree: string;
  files: readonly JournalFileRow[];
}

interface RoundRecord {
  id: number;
  session_id: string;
  turn_id: string;
  workspace: string;
  before_tree: string;
  after_tree: string;
  state: RoundState;
  created_at: number;
  changed_at: number;
}

interface FileRecord {
  path: string;
  before_blob: string | null;
  after_blob: string | null;
  before_mode: string | null;
  after_mode: string | null;
}

export class JournalRepo {
  constructor(
    private readonly db: Database.Database,
    private readonly now: Clock,
  ) {}

  /** Records a round; the session's undone rounds are dropped (a new round ends the redo stack). */
  add(round: NewRound): JournalRoundRow {
    const at = this.now();
    const id = this.db.transaction(() => {
      this.db
        .prepare(
          `UPDATE journal_rounds SET state = 'dropped', changed_at = ? WHERE session_id = ? AND state = 'undone'`,
        )
        .run(at, round.sessionId);
      const r = this.db
        .prepare(
          `INSERT INTO journal_rounds (session_id, turn_id, workspace, before_tree, after_tree, state, created_at, changed_at)
           VALUES (?, ?, ?, ?, ?, 'applied', ?, ?)`,
        )
        .run(round.sessionId, round.turnId, round.workspace, round.beforeTree, round.afterTree, at, at);
      const file = this.db.prepare(
        `INSERT INTO journal_files (round_id, path, before_blob, after_blob, before_mode, after_mode)
         VALUES (?, ?, ?, ?, ?, ?)`,
      );
      for (const f of round.files)
        file.run(r.lastInsertRowid, f.path, f.beforeBlob, f.afterBlob, f.beforeMode, f.afterMode);
      return Number(r.lastInsertRowid);
    })();
    return this.get(id)!;
  }

  get(id: number): JournalRoundRow | undefined {
    const r = this.db.prepare<[number], RoundRecord>('SELECT * FROM journal_rounds WHERE id = ?').get(id);
    return r ? this.toRow(r) : undefined;
  }

  /** The session's rounds, oldest first. */
  list(sessionId: string): JournalRoundRow[] {
    return this.db
      .prepare<[string], RoundRecord>('SELECT * FROM journal_rounds WHERE session_id = ? ORDER BY id')
      .all(sessionId)
      .map((r) => this.toRow(r));
  }

  /** The round undo takes: the session's newest applied one. */
  lastApplied(sessionId: string): JournalRoundRow | undefined {
    const r = this.db
      .prepare<[string], RoundRecord>(
        `SELECT * FROM journal_rounds WHERE session_id = ? AND state = 'applied' ORDER BY id DESC LIMIT 1`,
      )
      .get(sessionId);
    return r ? this.toRow(r) : undefined;
  }

  /** The round redo takes: the session's oldest undone one (the last undo's). */
  firstUndone(sessionId: string): JournalRoundRow | undefined {
    const r = this.db
      .prepare<[string], RoundRecord>(
        `SELECT * FROM journal_rounds WHERE session_id = ? AND state = 'undone' ORDER BY id LIMIT 1`,
      )
      .get(sessionId);
    return r ? this.toRow(r) : undefined;
  }

  setState(id: number, state: RoundState): void {
    this.db
      .prepare('UPDATE journal_rounds SET state = ?, changed_at = ? WHERE id = ?')
      .run(state, this.now(), id);
  }

  private toRow(r: RoundRecord): JournalRoundRow {
    const files = this.db
      .prepare<[number], FileRecord>('SELECT * FROM journal_files WHERE round_id = ? ORDER BY path')
      .all(r.id);
    return {
      id: r.id,
      sessionId: r.session_id,
      turnId: r.turn_id,
      workspace: r.workspace,
      beforeTree: r.before_tree,
      afterTree: r.after_tree,
      state: r.state,
      createdAt: r.created_at,
      changedAt: r.changed_at,
      files: files.map((f) => ({
        path: f.path,
        beforeBlob: f.before_blob,
        afterBlob: f.after_blob,
        beforeMode: f.before_mode,
        afterMode: f.after_mode,
      })),
    };
  }
}
