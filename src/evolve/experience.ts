/**
 * What the agent learnt, as long-term memory keeps it: failure lessons (memories of
 * category `lesson`) and reflections (summaries tagged `reflection`). Read straight
 * from the `memories` table by those strings, so this works whether or not the store
 * knows the `lesson` category yet, and without loading the memory service.
 */
import type Database from 'better-sqlite3';
import { REFLECTION_TAG } from '../memory/types.js';

export const LESSON_CATEGORY = 'lesson';

export interface ExperienceNote {
  id: number;
  content: string;
  scope: string;
  createdAt: number;
}

const LIVE = 'deleted_at IS NULL AND valid_to IS NULL AND (expires_at IS NULL OR expires_at > @now)';

/** The newest live lessons (since `since`, epoch ms), at most `limit`. */
export function lessons(
  db: Database.Database,
  opts: { limit: number; since?: number; now?: number },
): ExperienceNote[] {
  return db
    .prepare<{ now: number; since: number; limit: number; category: string }, ExperienceNote>(
      `SELECT id, content, scope, created_at AS createdAt FROM memories
        WHERE category = @category AND created_at >= @since AND ${LIVE}
        ORDER BY created_at DESC, id DESC LIMIT @limit`,
    )
    .all({
      category: LESSON_CATEGORY,
      since: opts.since ?? 0,
      now: opts.now ?? Date.now(),
      limit: opts.limit,
    });
}

/** How many live lessons there are (since `since`). */
export function lessonCount(db: Database.Database, opts: { since?: number; now?: number } = {}): number {
  return db
    .prepare<{ now: number; since: number; category: string }, number>(
      `SELECT COUNT(*) FROM memories WHERE category = @category AND created_at >= @since AND ${LIVE}`,
    )
    .pluck()
    .get({ category: LESSON_CATEGORY, since: opts.since ?? 0, now: opts.now ?? Date.now() })!;
}

/** The newest live reflections, at most `limit`. */
export function reflections(db: Database.Database, opts: { limit: number; now?: number }): ExperienceNote[] {
  return db
    .prepare<{ now: number; limit: number; tag: string }, ExperienceNote>(
      `SELECT id, content, scope, created_at AS createdAt FROM memories
        WHERE json_valid(memories.tags)
          AND EXISTS (SELECT 1 FROM json_each(memories.tags) WHERE json_each.value = @tag) AND ${LIVE}
        ORDER BY created_at DESC, id DESC LIMIT @limit`,
    )
    .all({ tag: REFLECTION_TAG, now: opts.now ?? Date.now(), limit: opts.limit });
}
