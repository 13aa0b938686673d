import type Database from 'better-sqlite3';
import type { Clock } from './clock.js';
import { StoreError, sqliteCode } from './errors.js';
import { requireCount, requireInteger, requireText } from './validate.js';

/** Tokens and cost of one model call. */
export interface UsageRow {
  sessionId: string;
  turnId: string;
  profile: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  costUsd: number;
  createdAt: number;
}

export interface UsageTotals {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  reasoningTokens: number;
  costUsd: number;
  /** Number of recorded model calls. */
  calls: number;
}

interface UsageRecord {
  session_id: string;
  turn_id: string;
  profile: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  reasoning_tokens: number;
  cost_usd: number;
  created_at: number;
}

const COLUMNS =
  'session_id, turn_id, profile, model, input_tokens, output_tokens, cached_input_tokens, reasoning_tokens, cost_usd, created_at';

export class UsageRepo {
  private readonly insertStmt;
  private readonly totalsStmt;
  private readonly bySessionStmt;
  private readonly lastStmt;

  constructor(
    db: Database.Database,
    private readonly now: Clock,
  ) {
    this.insertStmt = db.prepare<[UsageRecord], void>(
      `INSERT INTO usage (${COLUMNS})
       VALUES (@session_id, @turn_id, @profile, @model, @input_tokens, @output_tokens,
               @cached_input_tokens, @reasoning_tokens, @cost_usd, @created_at)`,
    );
    this.totalsStmt = db.prepare<[string], UsageTotals>(
      `SELECT COALESCE(SUM(input_tokens), 0) AS inputTokens,
              COALESCE(SUM(output_tokens), 0) AS outputTokens,
              COALESCE(SUM(cached_input_tokens), 0) AS cachedInputTokens,
              COALESCE(SUM(reasoning_tokens), 0) AS reasoningTokens,
              COALESCE(SUM(cost_usd), 0.0) AS costUsd,
              COUNT(*) AS calls
       FROM usage WHERE session_id = ?`,
    );
    this.bySessionStmt = db.prepare<[string], UsageRecord>(
      `SELECT ${COLUMNS} FROM usage WHERE session_id = ? ORDER BY id`,
    );
    this.lastStmt = db.prepare<[string], UsageRecord>(
      // A turn's own calls: background jobs (memory, summaries, titles…) use other context.
      `SELECT ${COLUMNS} FROM usage WHERE session_id = ? AND turn_id NOT LIKE 'background:%' ORDER BY id DESC LIMIT 1`,
    );
  }

  record(row: Omit<UsageRow, 'createdAt'>): void {
    const record: UsageRecord = {
      session_id: requireText(row.sessionId, 'usage sessionId'),
      turn_id: requireText(row.turnId, 'usage turnId'),
      profile: requireText(row.profile, 'usage profile'),
      model: requireText(row.model, 'usage model'),
      input_tokens: requireInteger(row.inputTokens, 'inputTokens'),
      output_tokens: requireInteger(row.outputTokens, 'outputTokens'),
      cached_input_tokens: requireInteger(row.cachedInputTokens, 'cachedInputTokens'),
      reasoning_tokens: requireInteger(row.reasoningTokens, 'reasoningTokens'),
      cost_usd: requireCount(row.costUsd, 'costUsd'),
      created_at: this.now(),
    };
    try {
      this.insertStmt.run(record);
    } catch (err) {
      if (sqliteCode(err) === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
        throw new StoreError(`cannot record usage: session not found: '${row.sessionId}'`, 'not-found', {
          cause: err,
        });
      }
      throw err;
    }
  }

  totals(sessionId: string): UsageTotals {
    const totals = this.totalsStmt.get(sessionId);
    if (totals === undefined) throw new StoreError(`usage totals query returned no row for '${sessionId}'`);
    return totals;
  }

  /** Every recorded model call of the session, oldest first. */
  bySession(sessionId: string): UsageRow[] {
    return this.bySessionStmt.all(sessionId).map(toRow);
  }

  /** The session's last recorded model call (none yet: undefined). */
  last(sessionId: string): UsageRow | undefined {
    const r = this.lastStmt.get(sessionId);
    return r === undefined ? undefined : toRow(r);
  }
}

function toRow(r: UsageRecord): UsageRow {
  return {
    sessionId: r.session_id,
    turnId: r.turn_id,
    profile: r.profile,
    model: r.model,
    inputTokens: r.input_tokens,
    outputTokens: r.output_tokens,
    cachedInputTokens: r.cached_input_tokens,
    reasoningTokens: r.reasoning_tokens,
    costUsd: r.cost_usd,
    createdAt: r.created_at,
  };
}
