import type Database from 'better-sqlite3';
import type { Clock } from './clock.js';
import { StoreError, sqliteCode } from './errors.js';
import { decodeArgs, encodeArgs, requireCount, requireText } from './validate.js';

/** `interrupted`: the process running the call died before it finished (set by recovery). */
export type ToolCallStatus = 'running' | 'ok' | 'error' | 'cancelled' | 'skipped' | 'denied' | 'interrupted';
export type ToolCallOutcome = Exclude<ToolCallStatus, 'running'>;

export interface ToolCallRow {
  callId: string;
  sessionId: string;
  turnId: string;
  name: string;
  args: Record<string, unknown>;
  status: ToolCallStatus;
  output: string | null;
  startedAt: number;
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
  status: ToolCallOutcome;
  output: string;
  durationMs: number;
}

interface ToolCallRecord {
  id: number;
  session_id: string;
  call_id: string;
  turn_id: string;
  name: string;
  args: string;
  status: ToolCallStatus;
  output: string | null;
  started_at: number;
  finished_at: number | null;
  duration_ms: number | null;
}

const COLUMNS =
  'id, session_id, call_id, turn_id, name, args, status, output, started_at, finished_at, duration_ms';
const OUTCOMES: ReadonlySet<string> = new Set<ToolCallOutcome>([
  'ok',
  'error',
  'cancelled',
  'skipped',
  'denied',
  'interrupted',
]);
/** Prefer the unfinished row, then the newest, when a call id is not unique. */
const PICK_ORDER = 'ORDER BY (finished_at IS NULL) DESC, id DESC LIMIT 1';

export class ToolCallRepo {
  private readonly insertStmt;
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
    this.insertStmt = db.prepare<[string, string, string, string, string, number], void>(
      `INSERT INTO tool_calls (session_id, call_id, turn_id, name, args, status, started_at)
       VALUES (?, ?, ?, ?, ?, 'running', ?)`,
    );
    this.finishStmt = db.prepare<
      { id: number; status: ToolCallOutcome; output: string; finishedAt: number; durationMs: number },
      void
    >(
      `UPDATE tool_calls SET status = @status, output = @output, finished_at = @finishedAt,
              duration_ms = @durationMs
       WHERE id = @id AND finished_at IS NULL`,
    );
    this.findStmt = db.prepare<[string], ToolCallRecord>(
      `SELECT ${COLUMNS} FROM tool_calls WHERE call_id = ? ${PICK_ORDER}`,
    );
    this.findInSessionStmt = db.prepare<[string, string], ToolCallRecord>(
      `SELECT ${COLUMNS} FROM tool_calls WHERE call_id = ? AND session_id = ? ${PICK_ORDER}`,
    );
    this.listStmt = db.prepare<[string], ToolCallRecord>(
      `SELECT ${COLUMNS} FROM tool_calls WHERE session_id = ? ORDER BY id`,
    );
    this.turnsStmt = db.prepare<[string, string], ToolCallRecord>(
      `SELECT ${COLUMNS} FROM tool_calls
       WHERE session_id = ? AND turn_id IN (SELECT value FROM json_each(?)) ORDER BY id`,
    );
    this.runningStmt = db.prepare<[string], ToolCallRecord>(
      `SELECT ${COLUMNS} FROM tool_calls WHERE session_id = ? AND finished_at IS NULL ORDER BY id`,
    );
  }

  /** Records a call as running before it executes. Call ids must be unique within a session. */
  start(sessionId: string, call: StartToolCall): void {
    const callId = requireText(call.callId, 'tool call id');
    try {
      this.insertStmt.run(
        requireText(sessionId, 'session id'),
        callId,
        requireText(call.turnId, 'tool call turnId'),
        requireText(call.name, 'tool call name'),
        encodeArgs(call.args, callId),
        this.now(),
      );
    } catch (err) {
      const code = sqliteCode(err);
      if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        throw new StoreError(
          `cannot start tool call ${callId}: session not found: '${sessionId}'`,
          'not-found',
          {
            cause: err,
          },
        );
      }
      if (code === 'SQLITE_CONSTRAINT_UNIQUE') {
        throw new StoreError(
          `tool call id ${callId} already exists in session '${sessionId}'; call ids must be unique per session`,
          'conflict',
          { cause: err },
        );
      }
      throw err;
    }
  }

  /**
   * Records the outcome of a running call. `sessionId` is optional because call ids
   * are usually globally unique; pass it when the same id may exist in several sessions
   * (without it the newest unfinished call with that id is finished).
   */
  finish(callId: string, result: ToolCallResult, sessionId?: string): void {
    if (!OUTCOMES.has(result.status)) {
      throw new StoreError(
        `tool call status must be one of ${[...OUTCOMES].join(', ')}, got ${JSON.stringify(result.status)}`,
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
      status: result.status,
      output: result.output,
      finishedAt: this.now(),
      durationMs,
    }).changes;
    if (changed === 0) {
      throw new StoreError(
        `tool call ${callId}${where} has already finished with status '${record.status}'`,
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

  /** Calls that started but never finished; after a crash these need an answer before resuming. */
  running(sessionId: string): ToolCallRow[] {
    return this.runningStmt.all(sessionId).map(toRow);
  }
}

function toRow(record: ToolCallRecord): ToolCallRow {
  return {
    callId: record.call_id,
    sessionId: record.session_id,
    turnId: record.turn_id,
    name: record.name,
    args: decodeArgs(record.args, record.call_id),
    status: record.status,
    output: record.output,
    startedAt: record.started_at,
    finishedAt: record.finished_at,
    durationMs: record.duration_ms,
  };
}
