import type Database from 'better-sqlite3';
import { randomUUID } from '../util/random-id.js';
import type { Clock } from './clock.js';
import { StoreError, sqliteCode } from './errors.js';
import { optionalIndex, optionalText, requireText } from './validate.js';

export interface SessionRow {
  id: string;
  title: string | null;
  cwd: string;
  model: string | null;
  profile: string | null;
  /** Epoch milliseconds. */
  createdAt: number;
  /** Epoch milliseconds; bumped by every append and update. */
  updatedAt: number;
}

export interface CreateSessionInput {
  id?: string;
  title?: string;
  cwd: string;
  model?: string;
  profile?: string;
}

export interface SessionPatch {
  title?: string;
  model?: string;
  profile?: string;
}

export interface ListSessionsOptions {
  limit?: number;
  offset?: number;
  cwd?: string;
}

/** The shortest prefix `resolve` accepts, so a stray keystroke cannot pick a session. */
export const MIN_PREFIX_LENGTH = 4;

interface SessionRecord {
  id: string;
  title: string | null;
  cwd: string;
  model: string | null;
  profile: string | null;
  created_at: number;
  updated_at: number;
}

const COLUMNS = 'id, title, cwd, model, profile, created_at, updated_at';
const NEWEST_FIRST = 'ORDER BY updated_at DESC, rowid DESC';

export class SessionRepo {
  private readonly insertStmt;
  private readonly getStmt;
  private readonly prefixStmt;
  private readonly latestStmt;
  private readonly latestInCwdStmt;
  private readonly listStmt;
  private readonly updateStmt;
  private readonly touchStmt;
  private readonly deleteStmt;

  /** Prepared on first use: only `tea sessions list` counts. */
  private countStmt: Database.Statement<[string | null, string | null], number> | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly now: Clock,
  ) {
    this.insertStmt = db.prepare<[SessionRecord], void>(
      `INSERT INTO sessions (${COLUMNS})
       VALUES (@id, @title, @cwd, @model, @profile, @created_at, @updated_at)`,
    );
    this.getStmt = db.prepare<[string], SessionRecord>(`SELECT ${COLUMNS} FROM sessions WHERE id = ?`);
    this.prefixStmt = db.prepare<[string, string], SessionRecord>(
      `SELECT ${COLUMNS} FROM sessions WHERE substr(id, 1, length(?)) = ? ORDER BY id LIMIT 6`,
    );
    this.latestStmt = db.prepare<[], SessionRecord>(
      `SELECT ${COLUMNS} FROM sessions ${NEWEST_FIRST} LIMIT 1`,
    );
    this.latestInCwdStmt = db.prepare<[string], SessionRecord>(
      `SELECT ${COLUMNS} FROM sessions WHERE cwd = ? ${NEWEST_FIRST} LIMIT 1`,
    );
    this.listStmt = db.prepare<
      { cwd: string | null; limit: number; offset: number },
      SessionRecord & { message_count: number }
    >(
      `SELECT ${COLUMNS},
              (SELECT COUNT(*) FROM messages m WHERE m.session_id = sessions.id) AS message_count
       FROM sessions
       WHERE @cwd IS NULL OR cwd = @cwd
       ${NEWEST_FIRST}
       LIMIT @limit OFFSET @offset`,
    );
    this.updateStmt = db.prepare<
      { id: string; title: string | null; model: string | null; profile: string | null; now: number },
      void
    >(
      `UPDATE sessions
       SET title = COALESCE(@title, title), model = COALESCE(@model, model),
           profile = COALESCE(@profile, profile), updated_at = @now
       WHERE id = @id`,
    );
    this.touchStmt = db.prepare<[number, string], void>('UPDATE sessions SET updated_at = ? WHERE id = ?');
    this.deleteStmt = db.prepare<[string], void>('DELETE FROM sessions WHERE id = ?');
  }

  create(input: CreateSessionInput): SessionRow {
    const id = input.id === undefined ? randomUUID() : requireText(input.id, 'session id');
    const now = this.now();
    const record: SessionRecord = {
      id,
      title: optionalText(input.title, 'session title'),
      cwd: requireText(input.cwd, 'session cwd'),
      model: optionalText(input.model, 'session model'),
      profile: optionalText(input.profile, 'session profile'),
      created_at: now,
      updated_at: now,
    };
    try {
      this.insertStmt.run(record);
    } catch (err) {
      if (sqliteCode(err) === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        throw new StoreError(`a session with id ${id} already exists`, 'conflict', { cause: err });
      }
      throw err;
    }
    return toRow(record);
  }

  get(id: string): SessionRow | undefined {
    const record = this.getStmt.get(id);
    return record === undefined ? undefined : toRow(record);
  }

  /** Finds a session by exact id or by a unique prefix of at least four characters. */
  resolve(idOrPrefix: string): SessionRow {
    const wanted = requireText(idOrPrefix, 'session id').trim();
    const exact = this.getStmt.get(wanted);
    if (exact !== undefined) return toRow(exact);
    if (wanted.length < MIN_PREFIX_LENGTH) {
      throw new StoreError(
        `session not found: '${wanted}' (a prefix needs at least ${MIN_PREFIX_LENGTH} characters)`,
        'not-found',
      );
    }
    const matches = this.prefixStmt.all(wanted, wanted);
    const [first] = matches;
    if (first === undefined) throw new StoreError(`session not found: '${wanted}'`, 'not-found');
    if (matches.length > 1) {
      const shown = matches.slice(0, 5).map((m) => m.id);
      const more = matches.length > 5 ? ', …' : '';
      throw new StoreError(
        `session id '${wanted}' is an ambiguous prefix: matches ${shown.join(', ')}${more}`,
        'ambiguous',
      );
    }
    return toRow(first);
  }

  /** The most recently updated session, optionally only among those started in `cwd`. */
  latest(opts: { cwd?: string } = {}): SessionRow | undefined {
    const record = opts.cwd === undefined ? this.latestStmt.get() : this.latestInCwdStmt.get(opts.cwd);
    return record === undefined ? undefined : toRow(record);
  }

  /** Sessions newest first, each with its number of stored messages. */
  list(opts: ListSessionsOptions = {}): Array<SessionRow & { messageCount: number }> {
    const limit = optionalIndex(opts.limit, 'list limit') ?? -1;
    const offset = optionalIndex(opts.offset, 'list offset') ?? 0;
    return this.listStmt
      .all({ cwd: opts.cwd ?? null, limit, offset })
      .map((record) => ({ ...toRow(record), messageCount: record.message_count }));
  }

  /** How many sessions there are (in `cwd`, when given): `list` would also count each one's messages. */
  count(opts: { cwd?: string } = {}): number {
    this.countStmt ??= this.db.prepare<[string | null, string | null], number>(
      'SELECT COUNT(*) FROM sessions WHERE ? IS NULL OR cwd = ?',
    );
    return this.countStmt.pluck().get(opts.cwd ?? null, opts.cwd ?? null) ?? 0;
  }

  /** Sets the given fields (absent ones are kept) and bumps `updatedAt`. */
  update(id: string, patch: SessionPatch): void {
    const result = this.updateStmt.run({
      id,
      title: optionalText(patch.title, 'session title'),
      model: optionalText(patch.model, 'session model'),
      profile: optionalText(patch.profile, 'session profile'),
      now: this.now(),
    });
    if (result.changes === 0) throw new StoreError(`session not found: '${id}'`, 'not-found');
  }

  touch(id: string): void {
    const result = this.touchStmt.run(this.now(), id);
    if (result.changes === 0) throw new StoreError(`session not found: '${id}'`, 'not-found');
  }

  /** Deletes the session and, by cascade, its messages, tool calls and usage. */
  delete(id: string): boolean {
    return this.deleteStmt.run(id).changes > 0;
  }
}

function toRow(record: SessionRecord): SessionRow {
  return {
    id: record.id,
    title: record.title,
    cwd: record.cwd,
    model: record.model,
    profile: record.profile,
    createdAt: record.created_at,
    updatedAt: record.updated_at,
  };
}
