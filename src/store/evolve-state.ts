import type Database from 'better-sqlite3';
import type { Clock } from './clock.js';
import { StoreError } from './errors.js';

/**
 * Small JSON values the evolve layer keeps by key (table `evolve_state`): the last
 * background upkeep and the tool statistics it took. Not per session: the store's
 * `state` is that.
 */
export class EvolveStateRepo {
  private readonly getStmt;
  private readonly setStmt;

  constructor(
    db: Database.Database,
    private readonly now: Clock,
  ) {
    this.getStmt = db.prepare<[string], string>('SELECT value FROM evolve_state WHERE key = ?').pluck();
    this.setStmt = db.prepare<[string, string, number], void>(
      `INSERT INTO evolve_state (key, value, updated_at) VALUES (?, ?, ?)
       ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
    );
  }

  get<T>(key: string): T | undefined {
    const raw = this.getStmt.get(key);
    return raw === undefined ? undefined : (JSON.parse(raw) as T);
  }

  set(key: string, value: unknown): void {
    const json = JSON.stringify(value);
    if (json === undefined)
      throw new StoreError(`evolve state '${key}' must be JSON-serialisable`, 'invalid');
    this.setStmt.run(key, json, this.now());
  }
}
