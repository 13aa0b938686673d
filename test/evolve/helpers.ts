/** Seeding the store for the evolve tests. */
import type Database from 'better-sqlite3';
import type { Scheduler } from '../../src/evolve/upkeep/schedule.js';

/** A memory row as the memory service writes one (the lesson category may not be known to the schema yet). */
export function seedMemory(
  db: Database.Database,
  m: { content: string; category: string; tags?: string[]; at: number; deleted?: boolean },
): void {
  db.pragma('ignore_check_constraints = ON');
  try {
    db.prepare(
      `INSERT INTO memories (content, priority, importance, category, tags, content_hash, created_at, valid_from, scope, deleted_at)
       VALUES (?, 2, 3, ?, ?, ?, ?, ?, 'user', ?)`,
    ).run(
      m.content,
      m.category,
      JSON.stringify(m.tags ?? []),
      `h${m.content.length}${m.at}`,
      m.at,
      m.at,
      m.deleted ? m.at : null,
    );
  } finally {
    db.pragma('ignore_check_constraints = OFF');
  }
}

/** A session to hang seeded tool calls on. */
export function seedSession(db: Database.Database, id = 'seeded-session'): string {
  db.prepare('INSERT OR IGNORE INTO sessions (id, cwd, created_at, updated_at) VALUES (?, ?, 0, 0)').run(
    id,
    '/work',
  );
  return id;
}

let calls = 0;

/** A finished tool call at `at` (epoch ms). */
export function seedToolCall(
  db: Database.Database,
  c: {
    name: string;
    at: number;
    args?: Record<string, unknown>;
    status?: string;
    durationMs?: number | null;
  },
): void {
  const session = seedSession(db);
  db.prepare(
    `INSERT INTO tool_calls (session_id, call_id, turn_id, name, args, status, output, created_at, started_at, finished_at, duration_ms)
     VALUES (?, ?, 't', ?, ?, ?, '', ?, ?, ?, ?)`,
  ).run(
    session,
    `call-${++calls}`,
    c.name,
    JSON.stringify(c.args ?? {}),
    c.status ?? 'completed',
    c.at,
    c.at,
    c.at,
    c.durationMs === undefined ? 10 : c.durationMs,
  );
}

/** Timers by hand: `fire()` runs the one pending timer; nothing runs on its own. */
export class ManualScheduler implements Scheduler {
  pending: Array<{ fn: () => void; ms: number; id: number }> = [];
  cleared = 0;
  private next = 0;
  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.next;
    this.pending.push({ fn, ms, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    const before = this.pending.length;
    this.pending = this.pending.filter((t) => t.id !== handle);
    if (this.pending.length < before) this.cleared++;
  }
  /** Runs the only pending timer (fails when there is not exactly one). */
  fire(): number {
    if (this.pending.length !== 1)
      throw new Error(`expected one pending timer, found ${this.pending.length}`);
    const t = this.pending.shift()!;
    t.fn();
    return t.ms;
  }
}
