/**
 * Task evaluations (migration 12): one verdict per prompt of a top-level session —
 * succeeded, failed or abandoned — with the signals it was read from. The evolve layer
 * writes them after each prompt and revises one when the user's next message says it
 * went wrong; `tea evolve report` and prompt evolution read them. Statements are
 * prepared on first use: a process that evaluates nothing prepares none.
 */
import type Database from 'better-sqlite3';
import type { Clock } from './clock.js';
import { StoreError } from './errors.js';

export type TaskOutcome = 'succeeded' | 'failed' | 'abandoned';
export const TASK_OUTCOMES: readonly TaskOutcome[] = ['succeeded', 'failed', 'abandoned'];

/** The user's words kept with an evaluation, at most (an excerpt: the transcript holds the rest). */
export const EVALUATION_INPUT_MAX = 500;

/** A JSON object, as signals are stored. */
export type SignalsJson = { [key: string]: unknown };

export interface TaskEvaluationRow {
  id: number;
  sessionId: string;
  /** The seq of the prompt's first message (the user's words) in the session. */
  seq: number;
  /** The start of the user's words (EVALUATION_INPUT_MAX characters at most). */
  input: string;
  outcome: TaskOutcome;
  signals: SignalsJson;
  lessonMemoryId?: number;
  /** When the user's next message changed the outcome (epoch ms). */
  revisedAt?: number;
  createdAt: number;
}

export interface NewTaskEvaluation {
  sessionId: string;
  seq: number;
  input: string;
  outcome: TaskOutcome;
  signals: SignalsJson;
}

export interface EvaluationQuery {
  /** Only evaluations made at or after this time (epoch ms). */
  since?: number;
  /** At most this many, newest first (default 100). */
  limit?: number;
  sessionId?: string;
}

export type OutcomeCounts = Record<TaskOutcome, number> & { total: number; revised: number };

interface Record_ {
  id: number;
  session_id: string;
  seq: number;
  input: string;
  outcome: TaskOutcome;
  signals: string;
  lesson_memory_id: number | null;
  revised_at: number | null;
  created_at: number;
}

function toRow(r: Record_): TaskEvaluationRow {
  return {
    id: r.id,
    sessionId: r.session_id,
    seq: r.seq,
    input: r.input,
    outcome: r.outcome,
    signals: JSON.parse(r.signals) as SignalsJson,
    ...(r.lesson_memory_id === null ? {} : { lessonMemoryId: r.lesson_memory_id }),
    ...(r.revised_at === null ? {} : { revisedAt: r.revised_at }),
    createdAt: r.created_at,
  };
}

function checkOutcome(outcome: string): void {
  if (!(TASK_OUTCOMES as readonly string[]).includes(outcome)) {
    throw new StoreError(
      `unknown task outcome "${outcome}": use one of ${TASK_OUTCOMES.join(', ')}`,
      'invalid',
    );
  }
}

/** Cuts `text` to `max` UTF-16 units without splitting a surrogate pair. */
function excerpt(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\ud800-\udbff]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return text.slice(0, end);
}

export class TaskEvaluationRepo {
  constructor(
    private readonly db: Database.Database,
    private readonly now: Clock = Date.now,
  ) {}

  /**
   * Stores the evaluation of one prompt. A prompt is evaluated once: when (session, seq)
   * already has one, that one is returned unchanged.
   */
  add(e: NewTaskEvaluation): TaskEvaluationRow {
    checkOutcome(e.outcome);
    if (!Number.isInteger(e.seq) || e.seq < 1) {
      throw new StoreError(
        `an evaluation's seq must be a whole number of at least 1, got ${e.seq}`,
        'invalid',
      );
    }
    this.db
      .prepare(
        `INSERT INTO task_evaluations (session_id, seq, input, outcome, signals, created_at)
         VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (session_id, seq) DO NOTHING`,
      )
      .run(
        e.sessionId,
        e.seq,
        excerpt(e.input, EVALUATION_INPUT_MAX),
        e.outcome,
        JSON.stringify(e.signals),
        this.now(),
      );
    return this.at(e.sessionId, e.seq)!;
  }

  get(id: number): TaskEvaluationRow | undefined {
    const r = this.db.prepare<[number], Record_>('SELECT * FROM task_evaluations WHERE id = ?').get(id);
    return r && toRow(r);
  }

  /** The evaluation of the prompt starting at `seq` in the session. */
  at(sessionId: string, seq: number): TaskEvaluationRow | undefined {
    const r = this.db
      .prepare<[string, number], Record_>('SELECT * FROM task_evaluations WHERE session_id = ? AND seq = ?')
      .get(sessionId, seq);
    return r && toRow(r);
  }

  /** The session's last evaluation before the prompt at `seq` (the one a reaction is about). */
  previous(sessionId: string, beforeSeq: number): TaskEvaluationRow | undefined {
    const r = this.db
      .prepare<[string, number], Record_>(
        'SELECT * FROM task_evaluations WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT 1',
      )
      .get(sessionId, beforeSeq);
    return r && toRow(r);
  }

  /** Sets a new outcome and signals, marking the row revised (now). */
  revise(id: number, outcome: TaskOutcome, signals: SignalsJson): TaskEvaluationRow {
    checkOutcome(outcome);
    this.db
      .prepare('UPDATE task_evaluations SET outcome = ?, signals = ?, revised_at = ? WHERE id = ?')
      .run(outcome, JSON.stringify(signals), this.now(), id);
    return this.must(id);
  }

  /** Replaces the signals (a note added later, e.g. the user's confirmation or a draft's name). */
  setSignals(id: number, signals: SignalsJson): TaskEvaluationRow {
    this.db.prepare('UPDATE task_evaluations SET signals = ? WHERE id = ?').run(JSON.stringify(signals), id);
    return this.must(id);
  }

  /** Links the lesson memory written from this (failed) task. */
  setLesson(id: number, memoryId: number): TaskEvaluationRow {
    this.db.prepare('UPDATE task_evaluations SET lesson_memory_id = ? WHERE id = ?').run(memoryId, id);
    return this.must(id);
  }

  /** Evaluations, newest first. */
  list(q: EvaluationQuery = {}): TaskEvaluationRow[] {
    const limit = q.limit ?? 100;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new StoreError(`limit must be a whole number of at least 1, got ${limit}`, 'invalid');
    }
    return this.db
      .prepare<[number, string | null, string | null, number], Record_>(
        `SELECT * FROM task_evaluations WHERE created_at >= ? AND (? IS NULL OR session_id = ?)
         ORDER BY created_at DESC, id DESC LIMIT ?`,
      )
      .all(q.since ?? 0, q.sessionId ?? null, q.sessionId ?? null, limit)
      .map(toRow);
  }

  /** How many evaluations of each outcome (and how many were revised) since `since`. */
  counts(q: { since?: number } = {}): OutcomeCounts {
    const rows = this.db
      .prepare<[number], { outcome: TaskOutcome; n: number; revised: number }>(
        `SELECT outcome, count(*) AS n, count(revised_at) AS revised
         FROM task_evaluations WHERE created_at >= ? GROUP BY outcome`,
      )
      .all(q.since ?? 0);
    const out: OutcomeCounts = { succeeded: 0, failed: 0, abandoned: 0, total: 0, revised: 0 };
    for (const r of rows) {
      out[r.outcome] = r.n;
      out.total += r.n;
      out.revised += r.revised;
    }
    return out;
  }

  private must(id: number): TaskEvaluationRow {
    const row = this.get(id);
    if (!row) throw new StoreError(`no task evaluation ${id}`, 'not-found');
    return row;
  }
}
