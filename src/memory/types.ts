/**
 * Long-term memory: the shapes shared by the memory store, retrieval, ingest,
 * selection and the agent. Timestamps are epoch milliseconds.
 */

/** 0 = CRITICAL, 1 = HIGH, 2 = MEDIUM, 3 = LOW. */
export type Priority = 0 | 1 | 2 | 3;
/**
 * `lesson`: what a failed task taught (written by the evolve layer after a failure,
 * recalled only for prompts it is relevant to; see lessons.ts).
 */
export type Category = 'instruction' | 'preference' | 'fact' | 'reminder' | 'general' | 'lesson';

export const CATEGORIES: readonly Category[] = [
  'instruction',
  'preference',
  'fact',
  'reminder',
  'general',
  'lesson',
];

/** Tag on reflection summaries, so reflection never summarises its own summaries. */
export const REFLECTION_TAG = 'reflection';

/** The seed's mapping from category to priority. */
export const CATEGORY_PRIORITY: Record<Category, Priority> = {
  instruction: 0,
  preference: 1,
  reminder: 1,
  fact: 2,
  general: 3,
  lesson: 2,
};

/** `user` (this user, everywhere), `global`, or `project:<absolute path>`. */
export type Scope = string;

export interface Memory {
  id: number;
  content: string;
  priority: Priority;
  /** 1 (trivial) … 5 (ignoring it causes serious problems). */
  importance: number;
  category: Category;
  tags: string[];
  /** First 16 hex chars of SHA-256 of the normalised content. */
  contentHash: string;
  expiresAt: number | null;
  pinned: boolean;
  createdAt: number;
  accessedAt: number | null;
  accessCount: number;
  /** When the fact became true / stopped being true (`validTo` set when superseded). */
  validFrom: number;
  validTo: number | null;
  supersededBy: number | null;
  /** What the fact is about and which attribute it sets, when known (e.g. "user", "city"). */
  subject: string | null;
  attribute: string | null;
  sourceSessionId: string | null;
  sourceMessageId: number | null;
  scope: Scope;
  /** Soft delete (FIFO eviction, user removal). */
  deletedAt: number | null;
}

/** What a caller supplies to add a memory; the rest has defaults. */
export interface NewMemory {
  content: string;
  category: Category;
  priority?: Priority;
  importance?: number;
  tags?: string[];
  expiresAt?: number | null;
  pinned?: boolean;
  subject?: string | null;
  attribute?: string | null;
  sourceSessionId?: string | null;
  sourceMessageId?: number | null;
  scope?: Scope;
}

/** Turns texts into vectors; the built-in offline one needs no model. */
export interface Embedder {
  /** Stable identity, e.g. `offline-hash-256` or `openai:nomic-embed-text`. */
  readonly id: string;
  readonly dimensions: number;
  embed(texts: string[], signal?: AbortSignal): Promise<Float32Array[]>;
}
