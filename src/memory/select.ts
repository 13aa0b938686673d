/**
 * Which memories go into a turn: score = relevance × importance/5 × recency ×
 * priority factor, with tiered quotas so CRITICAL instructions never crowd out
 * everything else, under a count limit and a token cap.
 */
import { formatMemoryLine } from './format.js';
import type { Memory, Priority } from './types.js';

export const DAY_MS = 24 * 60 * 60 * 1000;

export const DEFAULT_MAX_MEMORIES = 30;
export const DEFAULT_TOKEN_CAP = 1_200;
/** CRITICAL memories taken first, newest first. */
export const CRITICAL_SELECT_LIMIT = 10;
/** Minimum picks per tier (when that many exist), before free competition. */
export const TIER_QUOTAS: ReadonlyArray<{ priority: Priority; min: number }> = [
  { priority: 1, min: 3 },
  { priority: 2, min: 2 },
  { priority: 3, min: 1 },
];
/** Memories with no retrieval hit still compete a little. */
export const RELEVANCE_FLOOR = 0.05;

export interface SelectOptions {
  /** Memory id → 0..1 from retrieval; absent means 0. */
  relevance: Map<number, number>;
  now: number;
  max?: number;
  tokenCap?: number;
  /** Defaults to characters / 4, rounded up. */
  estimateTokens?: (text: string) => number;
}

/** A memory counts when not deleted, not superseded and not expired at `now`. */
export function isActive(memory: Memory, now: number): boolean {
  if (memory.deletedAt !== null) return false;
  if (memory.supersededBy !== null) return false;
  if (memory.validTo !== null && memory.validTo <= now) return false;
  if (memory.expiresAt !== null && memory.expiresAt <= now) return false;
  return true;
}

/** Recency by age since creation: ≤1 d 1.0, ≤7 d 0.9, ≤30 d 0.7, ≤90 d 0.5, older 0.3. */
export function recencyFactor(ageMs: number): number {
  if (ageMs <= DAY_MS) return 1;
  if (ageMs <= 7 * DAY_MS) return 0.9;
  if (ageMs <= 30 * DAY_MS) return 0.7;
  if (ageMs <= 90 * DAY_MS) return 0.5;
  return 0.3;
}

/** (4 − priority) / 4: CRITICAL 1, HIGH 0.75, MEDIUM 0.5, LOW 0.25. */
export function priorityFactor(priority: Priority): number {
  return (4 - priority) / 4;
}

function clamp(value: number, low: number, high: number): number {
  if (Number.isNaN(value)) return low;
  return Math.min(high, Math.max(low, value));
}

/** The selection score of one memory; `relevance` is clamped to [floor, 1]. */
export function scoreMemory(memory: Memory, relevance: number, now: number): number {
  const rel = Math.max(clamp(relevance, 0, 1), RELEVANCE_FLOOR);
  const importance = clamp(memory.importance, 1, 5) / 5;
  return rel * importance * recencyFactor(now - memory.createdAt) * priorityFactor(memory.priority);
}

interface Scored {
  memory: Memory;
  score: number;
}

/** Higher score first; ties: more important tier, newer, lower id. */
function byScore(a: Scored, b: Scored): number {
  return (
    b.score - a.score ||
    a.memory.priority - b.memory.priority ||
    b.memory.createdAt - a.memory.createdAt ||
    a.memory.id - b.memory.id
  );
}

function newestFirst(a: Memory, b: Memory): number {
  return b.createdAt - a.createdAt || b.id - a.id;
}

const defaultEstimate = (text: string): number => Math.ceil(text.length / 4);

/**
 * Picks the memories for one turn. Order of the result: CRITICAL (newest
 * first), then the rest by score. Each pick must fit both `max` and the token
 * cap (counted on its formatted line); a pick that does not fit is skipped and
 * smaller ones may still get in.
 */
export function selectMemories(memories: Memory[], opts: SelectOptions): Memory[] {
  const max = Math.max(0, Math.floor(opts.max ?? DEFAULT_MAX_MEMORIES));
  const tokenCap = opts.tokenCap ?? DEFAULT_TOKEN_CAP;
  const estimate = opts.estimateTokens ?? defaultEstimate;
  const active = memories.filter((m) => isActive(m, opts.now));

  const critical = active.filter((m) => m.priority === 0).sort(newestFirst);
  const others: Scored[] = active
    .filter((m) => m.priority !== 0)
    .map((memory) => ({ memory, score: scoreMemory(memory, opts.relevance.get(memory.id) ?? 0, opts.now) }))
    .sort(byScore);

  // Leave room for the tier quotas, but give CRITICAL at least half of a small `max`.
  const reserved = TIER_QUOTAS.reduce(
    (sum, q) => sum + Math.min(q.min, others.filter((s) => s.memory.priority === q.priority).length),
    0,
  );
  const criticalLimit = Math.min(CRITICAL_SELECT_LIMIT, Math.max(max - reserved, Math.ceil(max / 2)));

  const picked = new Set<number>();
  const chosenCritical: Memory[] = [];
  const chosenOthers: Scored[] = [];
  let tokens = 0;

  const tryTake = (memory: Memory): boolean => {
    if (picked.size >= max || picked.has(memory.id)) return false;
    const cost = estimate(formatMemoryLine(memory));
    if (tokens + cost > tokenCap) return false;
    tokens += cost;
    picked.add(memory.id);
    return true;
  };

  for (const memory of critical) {
    if (chosenCritical.length >= criticalLimit) break;
    if (tryTake(memory)) chosenCritical.push(memory);
  }
  for (const quota of TIER_QUOTAS) {
    let taken = 0;
    for (const item of others) {
      if (taken >= quota.min) break;
      if (item.memory.priority !== quota.priority) continue;
      if (tryTake(item.memory)) {
        chosenOthers.push(item);
        taken += 1;
      }
    }
  }
  for (const item of others) {
    if (picked.size >= max) break;
    if (tryTake(item.memory)) chosenOthers.push(item);
  }

  return [...chosenCritical, ...chosenOthers.sort(byScore).map((s) => s.memory)];
}
