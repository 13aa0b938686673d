import type Database from 'better-sqlite3';

/** An attribute value as OpenTelemetry allows: a scalar or a list of one type. */
export type SpanAttributeValue = string | number | boolean | string[] | number[] | boolean[];

/** One finished span as kept in the database (`trace_spans`, migration 11). */
export interface SpanRow {
  traceId: string;
  spanId: string;
  /** Absent: the trace's root (or a span whose parent is not kept here). */
  parentId?: string;
  /** The run it belongs to: the top-level session's id, or a workflow run's id. */
  runId: string;
  name: string;
  /** OpenTelemetry's SpanKind: 0 internal, 1 server, 2 client, 3 producer, 4 consumer. */
  kind: number;
  /** Epoch milliseconds (with a fraction). */
  startMs: number;
  durationMs: number;
  /** OpenTelemetry's status code: 0 unset, 1 ok, 2 error. */
  status: number;
  statusMessage?: string;
  attributes: Record<string, SpanAttributeValue>;
  events?: { name: string; atMs: number; attributes?: Record<string, SpanAttributeValue> }[];
}

/** One run's kept traces in brief (`tea trace list`). */
export interface TraceRunSummary {
  runId: string;
  /** The name of its first root span (`invoke_agent tea`, `invoke_workflow review`). */
  root: string;
  traces: number;
  spans: number;
  firstMs: number;
  lastMs: number;
  /** Tokens of its root spans (a root's usage includes its sub-agents'). */
  inputTokens: number;
  outputTokens: number;
  errors: number;
}

interface Record_ {
  trace_id: string;
  span_id: string;
  parent_id: string | null;
  run_id: string;
  name: string;
  kind: number;
  start_ms: number;
  duration_ms: number;
  status: number;
  status_message: string | null;
  attributes: string;
  events: string | null;
}

function toRow(r: Record_): SpanRow {
  return {
    traceId: r.trace_id,
    spanId: r.span_id,
    ...(r.parent_id === null ? {} : { parentId: r.parent_id }),
    runId: r.run_id,
    name: r.name,
    kind: r.kind,
    startMs: r.start_ms,
    durationMs: r.duration_ms,
    status: r.status,
    ...(r.status_message === null ? {} : { statusMessage: r.status_message }),
    attributes: JSON.parse(r.attributes) as SpanRow['attributes'],
    ...(r.events === null ? {} : { events: JSON.parse(r.events) as SpanRow['events'] }),
  };
}

/** The highest code point: `prefix + MAX_CHAR` bounds every id that starts with `prefix`. */
const MAX_CHAR = '\u{10ffff}';

/**
 * Spans kept per run. Written in batches (one transaction each), read per run, and
 * pruned by age and count. Statements are prepared on first use: a process that
 * writes no span prepares none.
 */
export class TraceSpanRepo {
  private insertStmt: Database.Statement<unknown[]> | undefined;

  constructor(private readonly db: Database.Database) {}

  /** Stores finished spans. */
  insert(rows: readonly SpanRow[]): void {
    if (rows.length === 0) return;
    this.insertStmt ??= this.db.prepare(
      `INSERT INTO trace_spans (trace_id, span_id, parent_id, run_id, name, kind, start_ms,
         duration_ms, status, status_message, attributes, events)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const stmt = this.insertStmt;
    this.db.transaction(() => {
      for (const r of rows) {
        stmt.run(
          r.traceId,
          r.spanId,
          r.parentId ?? null,
          r.runId,
          r.name,
          r.kind,
          r.startMs,
          r.durationMs,
          r.status,
          r.statusMessage ?? null,
          JSON.stringify(r.attributes),
          r.events && r.events.length > 0 ? JSON.stringify(r.events) : null,
        );
      }
    })();
  }

  /** Every kept span of a run, oldest first. */
  spansOf(runId: string): SpanRow[] {
    return this.db
      .prepare<[string], Record_>('SELECT * FROM trace_spans WHERE run_id = ? ORDER BY start_ms, rowid')
      .all(runId)
      .map(toRow);
  }

  /** Whether any span of `runId` is kept. */
  has(runId: string): boolean {
    return (
      this.db
        .prepare<[string], number>('SELECT 1 FROM trace_spans WHERE run_id = ? LIMIT 1')
        .pluck()
        .get(runId) !== undefined
    );
  }

  /** The run holding the spans of a conversation (a session), if any are kept (a scan: for look-ups by hand). */
  runOfConversation(sessionId: string): string | undefined {
    return this.db
      .prepare<[string], string>(
        `SELECT run_id FROM trace_spans WHERE json_extract(attributes, '$."gen_ai.conversation.id"') = ? LIMIT 1`,
      )
      .pluck()
      .get(sessionId);
  }

  /** Up to `limit` run ids starting with `prefix`. */
  runIdsStartingWith(prefix: string, limit: number): string[] {
    return this.db
      .prepare<[string, string, number], string>(
        'SELECT DISTINCT run_id FROM trace_spans WHERE run_id >= ? AND run_id < ? ORDER BY run_id LIMIT ?',
      )
      .pluck()
      .all(prefix, prefix + MAX_CHAR, limit);
  }

  /** The runs with kept spans, the most recently active first. */
  runs(limit: number): TraceRunSummary[] {
    const rows = this.db
      .prepare<[number], TraceRunSummary>(
        `SELECT run_id AS runId,
           (SELECT r.name FROM trace_spans r WHERE r.run_id = s.run_id AND r.parent_id IS NULL
              ORDER BY r.start_ms LIMIT 1) AS root,
           count(DISTINCT trace_id) AS traces, count(*) AS spans,
           min(start_ms) AS firstMs, max(start_ms + duration_ms) AS lastMs,
           coalesce(sum(CASE WHEN parent_id IS NULL
             THEN json_extract(attributes, '$."gen_ai.usage.input_tokens"') END), 0) AS inputTokens,
           coalesce(sum(CASE WHEN parent_id IS NULL
             THEN json_extract(attributes, '$."gen_ai.usage.output_tokens"') END), 0) AS outputTokens,
           sum(status = 2) AS errors
         FROM trace_spans s GROUP BY run_id ORDER BY lastMs DESC LIMIT ?`,
      )
      .all(limit);
    return rows.map((r) => ({ ...r, root: r.root ?? '?' }));
  }

  /** How many runs have kept spans. */
  countRuns(): number {
    return this.db.prepare<[], number>('SELECT count(DISTINCT run_id) FROM trace_spans').pluck().get() ?? 0;
  }

  /**
   * Drops the spans written before the first that started at `beforeMs` or later (rows
   * go in as spans end, so their order is time's), and the oldest beyond the newest
   * `keep`; returns how many went. Both walk the rowid, not an index on time.
   */
  prune(opts: { beforeMs: number; keep: number }): number {
    const old = this.db
      .prepare(
        `DELETE FROM trace_spans WHERE rowid < coalesce(
           (SELECT rowid FROM trace_spans WHERE start_ms >= ? ORDER BY rowid LIMIT 1),
           (SELECT max(rowid) + 1 FROM trace_spans))`,
      )
      .run(opts.beforeMs).changes;
    const over = this.db
      .prepare('DELETE FROM trace_spans WHERE rowid <= (SELECT max(rowid) FROM trace_spans) - ?')
      .run(opts.keep).changes;
    return old + over;
  }
}
