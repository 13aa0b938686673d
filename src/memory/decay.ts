/**
 * Forgetting: priorities step down with age (pinned memories are exempt),
 * reminders expire, and CRITICAL memories are capped first-in-first-out.
 */
import { DAY_MS } from './select.js';
import type { Memory, Priority } from './types.js';

/** Age (from `createdAt`) after which a priority steps down one level. */
export const DECAY_AFTER_MS: Readonly<Record<Priority, number | null>> = {
  0: 30 * DAY_MS,
  1: 60 * DAY_MS,
  2: 90 * DAY_MS,
  3: null,
};

export const CRITICAL_CAP = 15;

/** Not deleted and not superseded (expiry is judged separately). */
function isLive(memory: Memory): boolean {
  return memory.deletedAt === null && memory.supersededBy === null && memory.validTo === null;
}

/**
 * The priority changes due at `now`: at most one step per memory per call
 * (a 100-day-old CRITICAL becomes HIGH now, MEDIUM on a later call if still due).
 */
export function decayChanges(memories: Memory[], now: number): Array<{ id: number; priority: Priority }> {
  const changes: Array<{ id: number; priority: Priority }> = [];
  for (const memory of memories) {
    if (memory.pinned || !isLive(memory)) continue;
    const after = DECAY_AFTER_MS[memory.priority];
    if (after === null || now - memory.createdAt <= after) continue;
    changes.push({ id: memory.id, priority: (memory.priority + 1) as Priority });
  }
  return changes;
}

/** Ids of live reminders whose due time has passed (pinned or not: a past reminder is moot). */
export function expiredReminders(memories: Memory[], now: number): number[] {
  return memories
    .filter((m) => m.category === 'reminder' && isLive(m) && m.expiresAt !== null && m.expiresAt <= now)
    .map((m) => m.id);
}

/**
 * Ids of the oldest live CRITICAL memories beyond `cap`, to soft-delete.
 * Pinned ones count toward the cap but are never evicted.
 */
export function criticalOverflow(memories: Memory[], cap = CRITICAL_CAP): number[] {
  const critical = memories.filter((m) => m.priority === 0 && isLive(m));
  const excess = critical.length - Math.max(0, cap);
  if (excess <= 0) return [];
  return critical
    .filter((m) => !m.pinned)
    .sort((a, b) => a.createdAt - b.createdAt || a.id - b.id)
    .slice(0, excess)
    .map((m) => m.id);
}
