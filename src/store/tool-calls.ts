import type Database from 'better-sqlite3';
import type { Clock } from './clock.js';
import { StoreError, sqliteCode } from './errors.js';
import {
  contentText,
  isFinished,
  TOOL_CALL_OUTCOMES,
  type ToolCallOutcome,
  type ToolCallRecord,
  type ToolCallState,
} from './tool-record.js';
import { decodeArgs, encodeArgs, requireCount, requireText } from './validate.js';

export type { ToolCallOutcome, ToolCallState } from './tool-record.js';

/** A stored call: the record's states and timings, with its result as text (images stay in the transcript). */
export interface ToolCallRow {
  callId: string;
  sessionId: string;
  turnId: string;
  name: string;
  args: Record<string, unknown>;
  state: ToolCallState;
  output: string | null;
  /** When the call was received. */
  createdAt: number;
  /** When it started running (null: it never ran). */
  startedAt: number | null;
  finishedAt: number | null;
  durationMs: number | null;
}

export interface StartToolCall {
  callId: string;
  turnId: string;
  name: string;
  args: Record<string, unknown>;
}

export interface ToolCallResult {
  state: ToolCallOutcome;
  output: string;
  durationMs: number;
}

interface ToolCallDbRow {
  id: number;
  session_id: string;
  call_id: string;
  turn_id: string;
  name: string;
  args: string;
  status: string;
  output: string | null;
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  duration_ms: number | null;
}

interface Transition {
  sessionId: string;
  callId: string;
  state: ToolCallState;
  output: string | null;
  startedAt: number | null;
  finishedAt: number | null;
  durationMs: number | null;
}

const COLUMNS =
  'id, session_id, call_id, turn_id, name, args, status, output, created_at, started_at, finished_at, duration_ms';
/** Prefer the unfinished row, then the newest, when a call id is not unique. */
const PICK_ORDER = 'ORDER BY (finished_at IS NULL) DESC, id DESC LIMIT 1';

export class ToolCallRepo {
  private readonly insertStmt;
  private readonly moveStmt;
  private readonly advanceStmt;
  private readonly finishStmt;
  private readonly findStmt;
  private readonly findInSessionStmt;
  private readonly listStmt;
  private readonly runningStmt;
  private readonly turnsStmt;

  constructor(
    db: Database.Database,
    private readonly now: Clock,
  ) {
    this.insertStmt = db.prepare<[Omit<ToolCallDbRow, 'id'>], void>(
      `INSERT INTO tool_calls (session_id, call_id, turn_id, name, args, status, output, created_at,
                               started_at, finished_at, duration_ms)
       VALUES (@session_id, @call_id, @turn_id, @name, @args, @status, @output, @created_at,
               @started_at, @finished_at, @duration_ms)`,
    );
    this.moveStmt = db.prepare<[Transition], void>(
      `UPDATE tool_calls SET status = @state, output = @output, started_at = COALESCE(@startedAt, started_at),
              finished_at = @finishedAt, duration_ms = @durationMs
       WHERE session_id = @sessionId AND call_id = @callId AND finished_at IS NULL`,
    );
    // A call that has not ended changes only its state and start time: its other
    // columns (and the index of unfinished calls) stay as they are, one page written.
    this.advanceStmt = db.prepare<[Transition], void>(
      `UPDATE tool_calls SET status = @state, started_at = COALESCE(@startedAt, started_at)
       WHERE session_id = @sessionId AND call_id = @callId AND finished_at IS NULL`,
    );
    this.finishStmt = db.prepare<
      { id: number; status: ToolCallOutcome; output: string; finishedAt: number; durationMs: number },
      void
    >(
      `UPDATE tool_calls SET status = @status, output = @output, finished_at = @finishedAt,
              duration_ms = @durationMs
       WHERE id = @id AND finished_at IS NULL`,
    );
    this.findStmt = db.prepare<[string], ToolCallDbRow>(
      `SELECT ${COLUMNS} FROM tool_calls WHERE call_id = ? ${PICK_ORDER}`,
    );
    this.findInSessionStmt = db.prepare<[string, string], ToolCallDbRow>(
      `SELECT ${COLUMNS} FROM tool_calls WHERE call_id = ? AND session_id = ? ${PICK_ORDER}`,
    );
    this.listStmt = db.prepare<[string], ToolCallDbRow>(
      `SELECT ${COLUMNS} FROM tool_calls WHERE session_id = ? ORDER BY id`,
    );
    this.turnsStmt = db.prepare<[string, string], ToolCallDbRow>(
      `SELECT ${COLUMNS} FROM tool_calls
       WHERE session_id = ? AND turn_id IN (SELECT value FROM json_each(?)) ORDER BY id`,
    );
    this.runningStmt = db.prepare<[string], ToolCallDbRow>(
      `SELECT ${COLUMNS} FROM tool_calls WHERE session_id = ? AND finished_at IS NULL ORDER BY id`,
    );
  }

  /**
   * Stores a call's record as it is now: the first sight of a call inserts its row,
   * each later transition updates it. A call that has ended cannot change again.
   */
  save(sessionId: string, record: ToolCallRecord): void {
    const callId = requireText(record.callId, 'tool call id');
    const finished = isFinished(record.state);
    const transition: Transition = {
      sessionId,
      callId,
      state: record.state,
      output: finished ? contentText(record.content) : null,
      startedAt: record.startedAt ?? null,
      finishedAt: finished ? (record.finishedAt ?? this.now()) : null,
      durationMs: finished ? (record.durationMs ?? null) : null,
    };
    const update = finished ? this.moveStmt : this.advanceStmt;
    if (record.state === 'pending') {
      // A call's first sight, nearly always: insert first, update only when it exists.
      try {
        this.insert(sessionId, record, transition);
        return;
      } catch (err) {
        if (!(err instanceof StoreError && err.code === 'conflict')) throw err;
        if (update.run(transition).changes > 0) return;
        throw err;
      }
    }
    if (update.run(transition).changes > 0) return;
    this.insert(sessionId, record, transition);
  }

  /** Records a call as running before it executes. Call ids must be unique within a session. */
  start(sessionId: string, call: StartToolCall): void {
    const at = this.now();
    this.insert(
      sessionId,
      { ...call, state: 'running', title: call.name, kind: 'other', content: [], createdAt: at },
      {
        sessionId,
        callId: requireText(call.callId, 'tool call id'),
        state: 'running',
        output: null,
        startedAt: at,
        finishedAt: null,
        durationMs: null,
      },
    );
  }

  private insert(sessionId: string, record: ToolCallRecord, t: Transition): void {
    const callId = t.callId;
    try {
      this.insertStmt.run({
        session_id: requireText(sessionId, 'session id'),
        call_id: callId,
        turn_id: requireText(record.turnId, 'tool call turnId'),
        name: requireText(record.name, 'tool call name'),
        args: encodeArgs(record.args, callId),
        status: t.state,
        output: t.output,
        created_at: requireCount(record.createdAt, `createdAt of tool call ${callId}`),
        started_at: t.startedAt,
        finished_at: t.finishedAt,
        duration_ms: t.durationMs,
      });
    } catch (err) {
      const code = sqliteCode(err);
      if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        throw new StoreError(
          `cannot start tool call ${callId}: session not found: '${sessionId}'`,
          'not-found',
          { cause: err },
        );
      }
      if (code === 'SQLITE_CONSTRAINT_UNIQUE') {
        const known = this.findInSessionStmt.get(callId, sessionId);
        const why =
          known?.finished_at != null ? ` and has already finished with state '${known.status}'` : '';
        throw new StoreError(
          `tool call id ${callId} already exists in session '${sessionId}'${why}; call ids must be unique per session`,
          'conflict',
          { cause: err },
        );
      }
      throw err;
    }
  }

  /**
   * Records the outcome of an unfinished call. `sessionId` is optional because call ids
   * are usually globally unique; pass it when the same id may exist in several sessions
   * (without it the newest unfinished call with that id is finished).
   */
  finish(callId: string, result: ToolCallResult, sessionId?: string): void {
    if (!(TOOL_CALL_OUTCOMES as readonly string[]).includes(result.state)) {
      throw new StoreError(
        `tool call state must be one of ${TOOL_CALL_OUTCOMES.join(', ')}, got ${JSON.stringify(result.state)}`,
      );
    }
    if (typeof result.output !== 'string')
      throw new StoreError(`output of tool call ${callId} must be a string`);
    const durationMs = requireCount(result.durationMs, `durationMs of tool call ${callId}`);
    const record =
      sessionId === undefined ? this.findStmt.get(callId) : this.findInSessionStmt.get(callId, sessionId);
    const where = sessionId === undefined ? '' : ` in session '${sessionId}'`;
    if (record === undefined) throw new StoreError(`tool call not found: ${callId}${where}`, 'not-found');
    const changed = this.finishStmt.run({
      id: record.id,
      status: result.state,
      output: result.output,
      finishedAt: this.now(),
      durationMs,
    }).changes;
    if (changed === 0) {
      throw new StoreError(
        `tool call ${callId}${where} has already finished with state '${stateOf(record.status)}'`,
        'conflict',
      );
    }
  }

  /** The call `callId` of the session, if it was recorded. */
  get(sessionId: string, callId: string): ToolCallRow | undefined {
    const record = this.findInSessionStmt.get(callId, sessionId);
    return record === undefined ? undefined : toRow(record);
  }

  list(sessionId: string): ToolCallRow[] {
    return this.listStmt.all(sessionId).map(toRow);
  }

  /** The session's calls made in the turns `turnIds` (not the whole session's: its outputs can be large). */
  listForTurns(sessionId: string, turnIds: readonly string[]): ToolCallRow[] {
    if (turnIds.length === 0) return [];
    return this.turnsStmt.all(sessionId, JSON.stringify(turnIds)).map(toRow);
  }

  /**
   * Calls that have not ended (pending, awaiting approval or running); after a crash
   * these need an answer before resuming.
   */
  running(sessionId: string): ToolCallRow[] {
    return this.runningStmt.all(sessionId).map(toRow);
  }
}

/** A stored status as a state (a row written before the states were named reads `ok` as `completed`). */
function stateOf(status: string): ToolCallState {
  return status === 'ok' ? 'completed' : (status as ToolCallState);
}

function toRow(record: ToolCallDbRow): ToolCallRow {
  return {
    callId: record.call_id,
    sessionId: record.session_id,
    turnId: record.turn_id,
    name: record.name,
    args: decodeArgs(record.args, record.call_id),
    state: stateOf(record.status),
    output: record.output,
    createdAt: record.created_at,
    startedAt: record.started_at,
    finishedAt: record.finished_at,
    durationMs: record.duration_ms,
  };
}
