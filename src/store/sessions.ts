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
  /** A sub-agent's session: the session whose tool call started it (absent: a top-level session). */
  parentId?: string;
  /** The parent's tool call that started this child session. */
  parentCallId?: string;
  /** The sub-agent's role (e.g. `reviewer`). */
  role?: string;
  /** 0 for a top-level session, 1 for its children, 2 for theirs. */
  depth: number;
}

export interface CreateSessionInput {
  id?: string;
  title?: string;
  cwd: string;
  model?: string;
  profile?: string;
  /** For a sub-agent's session: its parent, the call that started it, and its depth. */
  parent?: { id: string; callId: string; depth: number };
  /** The role a sub-agent or a workflow node runs as. */
  role?: string;
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
  /** Also list sub-agents' and workflow steps' sessions (default: the sessions people started). */
  children?: boolean;
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
  parent_id: string | null;
  parent_call_id: string | null;
  role: string | null;
  depth: number;
}

const COLUMNS =
  'id, title, cwd, model, profile, created_at, updated_at, parent_id, parent_call_id, role, depth';
/** A session a person started: not a sub-agent's (a parent), nor a workflow step's (a role, no parent). */
const TOP_LEVEL = 'parent_id IS NULL AND role IS NULL';
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
  /** Prepared on first use: only sub-agents need them. */
  private childrenStmt: Database.Statement<[string], SessionRecord> | undefined;

  /** Prepared on first use: only `tea sessions list` counts. */
  private countStmt: Database.Statement<[string | null, string | null], number> | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly now: Clock,
  ) {
    this.insertStmt = db.prepare<[SessionRecord], void>(
      `INSERT INTO sessions (${COLUMNS})
       VALUES (@id, @title, @cwd, @model, @profile, @created_at, @updated_at,
               @parent_id, @parent_call_id, @role, @depth)`,
    );
    this.getStmt = db.prepare<[string], SessionRecord>(`SELECT ${COLUMNS} FROM sessions WHERE id = ?`);
    this.prefixStmt = db.prepare<[string, string], SessionRecord>(
      `SELECT ${COLUMNS} FROM sessions WHERE substr(id, 1, length(?)) = ? ORDER BY id LIMIT 6`,
    );
    this.latestStmt = db.prepare<[], SessionRecord>(
      `SELECT ${COLUMNS} FROM sessions WHERE ${TOP_LEVEL} ${NEWEST_FIRST} LIMIT 1`,
    );
    this.latestInCwdStmt = db.prepare<[string], SessionRecord>(
      `SELECT ${COLUMNS} FROM sessions WHERE cwd = ? AND ${TOP_LEVEL} ${NEWEST_FIRST} LIMIT 1`,
    );
    this.listStmt = db.prepare<
      { cwd: string | null; limit: number; offset: number; children: number },
      SessionRecord & { message_count: number }
    >(
      `SELECT ${COLUMNS},
              (SELECT COUNT(*) FROM messages m WHERE m.session_id = sessions.id) AS message_count
       FROM sessions
       WHERE (@cwd IS NULL OR cwd = @cwd) AND (@children = 1 OR ${TOP_LEVEL})
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
      parent_id: input.parent ? requireText(input.parent.id, 'parent session id') : null,
      parent_call_id: input.parent ? requireText(input.parent.callId, 'parent call id') : null,
      role: optionalText(input.role, 'session role'),
      depth: input.parent ? (optionalIndex(input.parent.depth, 'session depth') ?? 0) : 0,
    };
    try {
      this.insertStmt.run(record);
    } catch (err) {
      if (sqliteCode(err) === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
        throw new StoreError(`a session with id ${id} already exists`, 'conflict', { cause: err });
      }
      if (sqliteCode(err) === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        throw new StoreError(`parent session not found: '${record.parent_id}'`, 'not-found', { cause: err });
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
      .all({ cwd: opts.cwd ?? null, limit, offset, children: opts.children ? 1 : 0 })
      .map((record) => ({ ...toRow(record), messageCount: record.message_count }));
  }

  /** The sessions of the sub-agents a session started, oldest first. */
  children(parentId: string): SessionRow[] {
    this.childrenStmt ??= this.db.prepare<[string], SessionRecord>(
      `SELECT ${COLUMNS} FROM sessions WHERE parent_id = ? ORDER BY created_at, rowid`,
    );
    return this.childrenStmt.all(parentId).map(toRow);
  }

  /** How many top-level sessions there are (in `cwd`, when given): `list` would also count each one's messages. */
  count(opts: { cwd?: string } = {}): number {
    this.countStmt ??= this.db.prepare<[string | null, string | null], number>(
      `SELECT COUNT(*) FROM sessions WHERE (? IS NULL OR cwd = ?) AND ${TOP_LEVEL}`,
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
    ...(record.parent_id === null ? {} : { parentId: record.parent_id }),
    ...(record.parent_call_id === null ? {} : { parentCallId: record.parent_call_id }),
    ...(record.role === null ? {} : { role: record.role }),
    depth: record.depth,
  };
}
