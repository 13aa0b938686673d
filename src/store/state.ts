import type Database from 'better-sqlite3';
import type { Clock } from './clock.js';
import { StoreError } from './errors.js';

/**
 * Small JSON values a session keeps between turns and runs (its todo list, the
 * tools the model has loaded, permission grants), keyed by name.
 */
export class SessionStateRepo {
  private readonly getStmt;
  private readonly setStmt;
  private readonly deleteStmt;
  private readonly withKeyStmt;
  private readonly byFieldStmt;

  constructor(
    db: Database.Database,
    private readonly now: Clock,
  ) {
    this.getStmt = db
      .prepare<[string, string], string>('SELECT value FROM session_state WHERE session_id = ? AND key = ?')
      .pluck();
    this.setStmt = db.prepare<[string, string, string, number], void>(
      `INSERT INTO session_state (session_id, key, value, updated_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (session_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    );
    this.withKeyStmt = db.prepare<[string], { session_id: string; value: string }>(
      'SELECT session_id, value FROM session_state WHERE key = ? ORDER BY updated_at DESC',
    );
    this.byFieldStmt = db
      .prepare<[string, string, string], string>(
        'SELECT session_id FROM session_state WHERE key = ? AND json_valid(value) AND json_extract(value, ?) = ? ORDER BY updated_at DESC',
      )
      .pluck();
    this.deleteStmt = db.prepare<[string, string], void>(
      'DELETE FROM session_state WHERE session_id = ? AND key = ?',
    );
  }

  get<T>(sessionId: string, key: string): T | undefined {
    const raw = this.getStmt.get(sessionId, key);
    return raw === undefined ? undefined : (JSON.parse(raw) as T);
  }

  set(sessionId: string, key: string, value: unknown): void {
    const json = JSON.stringify(value);
    if (json === undefined)
      throw new StoreError(`session state '${key}' must be JSON-serialisable`, 'invalid');
    try {
      this.setStmt.run(sessionId, key, json, this.now());
    } catch (err) {
      if (err instanceof Error && /FOREIGN KEY/.test(err.message)) {
        throw new StoreError(`session not found: '${sessionId}'`, 'not-found');
      }
      throw err;
    }
  }

  /** Every session that has `key` set, the most recently set first (a value that is not JSON is left out). */
  withKey(key: string): { sessionId: string; value: unknown }[] {
    return this.withKeyStmt.all(key).flatMap((r) => {
      try {
        return [{ sessionId: r.session_id, value: JSON.parse(r.value) as unknown }];
      } catch {
        return [];
      }
    });
  }

  /** The sessions whose `key` holds an object with string `field` equal to `value`, the most recently set first. */
  withField(key: string, field: string, value: string): string[] {
    return this.byFieldStmt.all(key, `$.${field}`, value);
  }

  delete(sessionId: string, key: string): void {
    this.deleteStmt.run(sessionId, key);
  }
}
