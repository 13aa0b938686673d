/**
 * The user profile: one short free-text block per scope (normally `user`),
 * kept in the `memory_profile` table (migration 4) and shown above the
 * memories in every turn.
 */
import type Database from 'better-sqlite3';
import { PROFILE_MAX_CHARS } from './format.js';
import { cached } from './statements.js';

export { PROFILE_MAX_CHARS } from './format.js';

export const PROFILE_SCOPE = 'user';

export class ProfileRepo {
  readonly db: Database.Database;
  readonly now: () => number;

  constructor(db: Database.Database, now: () => number = Date.now) {
    this.db = db;
    this.now = now;
  }

  /** The profile text of `scope`, '' when none was set. */
  get(scope: string = PROFILE_SCOPE): string {
    const text = cached(this.db, 'SELECT text FROM memory_profile WHERE scope = ?', { pluck: true }).get(
      scope,
    ) as string | undefined;
    return text ?? '';
  }

  /**
   * Replaces the profile of `scope` (trimmed). Empty text removes it. Longer than
   * PROFILE_MAX_CHARS is refused with an error and the stored profile is kept.
   */
  set(text: string, scope: string = PROFILE_SCOPE): void {
    if (typeof text !== 'string') throw new Error('the user profile must be a string');
    const trimmed = text.trim();
    if (trimmed.length > PROFILE_MAX_CHARS) {
      throw new Error(
        `the user profile is ${trimmed.length} characters, more than the ${PROFILE_MAX_CHARS} allowed; ` +
          'shorten it (keep the lasting facts, drop the rest) and try again',
      );
    }
    if (trimmed === '') {
      this.db.prepare('DELETE FROM memory_profile WHERE scope = ?').run(scope);
      return;
    }
    this.db
      .prepare(
        `INSERT INTO memory_profile (scope, text, updated_at) VALUES (?, ?, ?)
           ON CONFLICT (scope) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at`,
      )
      .run(scope, trimmed, this.now());
  }
}
